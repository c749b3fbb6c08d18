import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadSection } from '@/i18n/section';
import { forgetPages, notePage } from '@/lib/flow/previous-page';
import { readResetProgress } from '@/lib/flow/reset-state';
import { readFlow, updateFlow, type RegistrationState } from '@/lib/flow/state';
import { ssoFields } from '@/lib/flow/sso-form';
import { leavePage, postedEntries } from '@/test/sso-post';
import { fakeApi, type FakeAnswer, type FakeRoutes } from '@/lib/flow/testing';
import { renderApp } from '@/test/render';
import { submittedForms } from '@/test/flow-hooks';
import { click, heading, type, where } from '@/test/page';
import { siteConfig } from '@/test/site-fixture';

// Issue 14, SPA side: an emailed invitation's link (spec §4.2 token routing),
// the token variants of account-creation/password and password-validation
// (spec §2.4), /reset with an email token, /webseal.do 0x00000000 with one.

const TOKEN = 'Tk9uZS1vZi10aGVzZS1pcy1hLXJlYWwtdG9rZW4tYWJj';
const READ = `GET /api/v1/tokens/${TOKEN}`;
const DELETE = `DELETE /api/v1/tokens/${TOKEN}`;
const REG = 'reg-tok-1';
const CREATE = `POST /api/v1/accounts/${REG}/create`;
const AUTH = `POST /api/v1/accounts/${REG}/authentication`;

const answer = (action: string, extra: Record<string, unknown> = {}): FakeAnswer => ({
  status: 200,
  body: { id: REG, twoFactorValidations: [], email: 'marie@example.com', ubiMatchPH: false, action, startDate: '2026-11-20T10:00:00Z', ...extra },
});

const submitted = submittedForms();

beforeAll(async () => {
  await Promise.all([loadSection('registration', 'en'), loadSection('registration', 'fr')]);
});

beforeEach(() => {
  forgetPages();
});

/** The URLs fetch was called with (the fake API drops the query string from its paths). */
const fetchedUrls = () => vi.mocked(fetch).mock.calls.map(([url]) => String(url));

async function openLink(routes: FakeRoutes, query = `token=${TOKEN}&src=edoc`, language: 'en' | 'fr' = 'en') {
  const calls = fakeApi(routes);
  await renderApp(siteConfig({ language }), `/registration/link?${query}`);
  return calls;
}

/** A token page as the link's entry opens it: the flow state, arriving from /registration/link. */
async function openWithToken(url: string, routes: FakeRoutes, registration: RegistrationState, emailSource = 'edoc') {
  const calls = fakeApi(routes);
  updateFlow({ registration, emailToken: { token: TOKEN, emailSource, startDate: '' } });
  notePage('/registration/link');
  await renderApp(siteConfig(), url);
  return calls;
}

function fillDate(day: string, month: string, year: string) {
  type('Day', day);
  fireEvent.change(screen.getByLabelText('Month'), { target: { value: month } });
  type('Year', year);
}

function fillPassword() {
  type('Password', 'Green#Lamp42x');
  type('Confirm your password', 'Green#Lamp42x');
  fireEvent.click(screen.getByRole('checkbox'));
}

describe('/registration/link (spec §4.2 token routing)', () => {
  it('takes the token out of the address at once, says it is checking, and reads it with src', async () => {
    let release: (a: FakeAnswer) => void = () => undefined;
    const pending = new Promise<FakeAnswer>((resolve) => (release = resolve));
    const calls: { path: string }[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        calls.push({ path: String(url) });
        const a = await pending;
        return new Response(JSON.stringify(a.body), { status: a.status, headers: { 'Content-Type': 'application/json' } });
      }),
    );
    await renderApp(siteConfig(), `/registration/link?token=${TOKEN}&src=edoc&lang=en`);
    await heading('Your invitation');
    expect(where()).toBe('/registration/link?lang=en');
    expect(window.history.state === null || !JSON.stringify(window.history.state).includes(TOKEN)).toBe(true);
    expect(screen.getByRole('status').textContent).toBe('Checking your invitation…');
    expect(readFlow().emailToken).toEqual({ token: TOKEN, emailSource: 'edoc', startDate: '' });
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]?.path).toMatch(new RegExp(`/api/v1/tokens/${TOKEN}\\?src=edoc$`));
    release(answer('default-password-register'));
    await heading('Create your password');
    expect(where()).toBe('/registration/account-creation/password');
  });

  it.each([
    {
      action: 'ask-password',
      extra: { email: 'holder@example.com', ubiMatchPH: true, twoFactorValidations: [{ id: REG, method: 'ask-password', maskedValue: '' }] },
      to: '/registration/password-validation',
      title: 'Sign in to link your policy',
    },
    {
      action: 'ask-username',
      extra: { email: '', twoFactorValidations: [{ id: 'opt-u', method: 'ask-username', maskedValue: '' }] },
      to: '/registration/account-creation/new-email',
      title: 'Choose another email address',
    },
    { action: 'default-password-register', extra: {}, to: '/registration/account-creation/password', title: 'Create your password' },
    { action: 'reset-password-login', extra: { id: 'acct-3', email: '' }, to: '/reset', title: 'Choose a new password' },
    { action: 'token-expired', extra: { id: 'acct-3', email: '' }, to: '/roadblock/token-expired', title: 'This link has expired' },
  ])('$action opens $to', async ({ action, extra, to, title }) => {
    await openLink({ [READ]: answer(action, extra) });
    await waitFor(() => expect(where()).toBe(to));
    await heading(title);
  });

  it.each([
    { why: '404 (a wrong source, an unknown or cut token)', read: { status: 404, body: { errorCode: 'NOT_FOUND' } } },
    { why: 'an action no page answers', read: answer('anything-else') },
  ])('$why: the page says the link is not valid, with the way to login; the token is dropped', async ({ read }) => {
    await openLink({ [READ]: read }, `token=${TOKEN}&src=nope`);
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('This link is not valid. It may be incomplete, or it may not be the one we sent you. Open it again from the email, or sign in.'));
    expect(screen.getByRole('status').textContent).toBe('');
    expect(where()).toBe('/registration/link');
    expect(readFlow().emailToken).toBeNull();
    await act(async () => fireEvent.click(screen.getByRole('link', { name: 'Back to login' })));
    await heading('Sign in to your account');
    expect(where()).toBe('/');
  });

  it('not valid, in French', async () => {
    await openLink({ [READ]: { status: 404, body: { errorCode: 'NOT_FOUND' } } }, `token=${TOKEN}&src=nope&lang=fr`, 'fr');
    await waitFor(() => expect(screen.getByRole('alert').textContent).toMatch(/^Ce lien n’est pas valide\./));
    expect(screen.getByRole('link', { name: 'Retour à la connexion' })).toBeTruthy();
  });

  it('ask-username (issue 28, the option the token selects): new-email submits with it, the code page with the next', async () => {
    const calls = await openLink({
      [READ]: answer('ask-username', { email: '', twoFactorValidations: [{ id: 'opt-u', method: 'ask-username', maskedValue: '' }] }),
      [`POST /api/v1/registrations/${REG}/validations/opt-u/`]: {
        status: 240,
        body: { id: REG, twoFactorValidations: [{ id: 'code-7', method: 'ask-email-code', maskedValue: 'n***@example.com' }] },
      },
      [`POST /api/v1/registrations/${REG}/validations/code-7/`]: { status: 200, body: { id: REG, email: 'new@example.com' } },
    });
    await heading('Choose another email address');
    type('Email address', 'new@example.com');
    type('Confirm your email address', 'new@example.com');
    await click('Next');
    await heading('Enter your security code');
    type('Security code', '123456');
    await click('Next');
    await heading('Create your password');
    expect(calls.map((c) => [c.path, c.body])).toEqual([
      [`/api/v1/tokens/${TOKEN}`, undefined],
      [`/api/v1/registrations/${REG}/validations/opt-u/`, { validationValue: 'new@example.com' }],
      [`/api/v1/registrations/${REG}/validations/code-7/`, { validationValue: '123456' }],
    ]);
  });

  it('500: the catalogue’s roadblock (spec §8.1)', async () => {
    await openLink({ [READ]: { status: 500, body: {} } });
    await waitFor(() => expect(where()).toBe('/roadblock/technical'));
  });

  it('412 INCONSISTENT: the inconsistency roadblock, not /', async () => {
    await openLink({ [READ]: { status: 412, body: { errorCode: 'INCONSISTENT', messageKey: 'roadblock.inconsistency' } } });
    await waitFor(() => expect(where()).toBe('/roadblock/inconsistency'));
    await heading("Some information in your file doesn't match");
  });

  it('503: maintenance', async () => {
    await openLink({ [READ]: { status: 503, body: {} } });
    await waitFor(() => expect(where()).toBe('/roadblock/maintenance'));
  });

  it('429: the page says how long to wait, the link stays usable', async () => {
    await openLink({ [READ]: { status: 429, body: { errorCode: 'RATE_LIMITED' }, headers: { 'Retry-After': '120' } } });
    await waitFor(() => expect(screen.getByRole('alert').textContent).toMatch(/2 minutes/));
    expect(where()).toBe('/registration/link');
    expect(readFlow().emailToken?.token).toBe(TOKEN);
  });

  it('without src: read without src, and the password page asks no date of birth', async () => {
    await openLink({ [READ]: answer('default-password-register') }, `token=${TOKEN}`);
    await heading('Create your password');
    expect(fetchedUrls()[0]).toMatch(new RegExp(`/api/v1/tokens/${TOKEN}$`));
    expect(screen.getByLabelText('Postal code')).toBeTruthy();
    expect(screen.queryByLabelText('Day')).toBeNull();
  });

  it('without a token (opened by its address): / keeping the query string, nothing read', async () => {
    const calls = await openLink({}, 'src=edoc');
    await waitFor(() => expect(where()).toBe('/?src=edoc'));
    expect(calls).toEqual([]);
  });

  it('in French', async () => {
    await openLink({ [READ]: answer('default-password-register') }, `token=${TOKEN}&src=mrkt&lang=fr`, 'fr');
    await heading('Créez votre mot de passe');
    expect(screen.getByLabelText('Code postal')).toBeTruthy();
  });

  it('the token pages open only from the link (a direct visit goes to /)', async () => {
    fakeApi({});
    updateFlow({ registration: { id: REG }, emailToken: { token: TOKEN, emailSource: 'edoc', startDate: '' } });
    await renderApp(siteConfig(), '/registration/account-creation/password');
    await waitFor(() => expect(where()).toBe('/'));
  });
});

describe('account-creation/password, token variant (spec §2.4)', () => {
  const registration: RegistrationState = { id: REG, email: 'marie@example.com' };

  it('asks the postal code and date of birth, sends them, deletes the token and signs in', async () => {
    const calls = await openWithToken(
      '/registration/account-creation/password',
      { [CREATE]: { status: 201, body: { email: 'marie@example.com' } }, [DELETE]: { status: 204 } },
      registration,
    );
    await heading('Create your password');
    type('Postal code', 'm5v2t6');
    fillDate('14', '03', '1985');
    fillPassword();
    await click('Create my account');
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([CREATE, DELETE]);
    expect(calls[0]?.body).toEqual({
      password: 'Green#Lamp42x',
      passwordConfirmation: 'Green#Lamp42x',
      termsAccepted: true,
      postalCode: 'M5V 2T6',
      dateOfBirth: '1985-03-14',
    });
    expect(postedEntries(submitted[0]!)).toEqual(ssoFields({ username: 'marie@example.com', password: 'Green#Lamp42x' }));
    leavePage();
    expect(readFlow().emailToken).toBeNull();
  });

  it('checks the postal code and date of birth before sending', async () => {
    const calls = await openWithToken('/registration/account-creation/password', {}, registration);
    await heading('Create your password');
    fillPassword();
    await click('Create my account');
    expect(await screen.findByText('Please correct the following errors')).toBeTruthy();
    expect(calls).toEqual([]);
  });

  it('a UBI driver gives the cell phone (digits only), no postal code nor date of birth', async () => {
    const calls = await openWithToken(
      '/registration/account-creation/password',
      { [CREATE]: { status: 201, body: { email: 'marie@example.com' } }, [DELETE]: { status: 204 } },
      { ...registration, ubiDriver: true },
    );
    await heading('Create your password');
    expect(screen.queryByLabelText('Postal code')).toBeNull();
    expect(screen.queryByLabelText('Day')).toBeNull();
    type('Cell phone number', '416-555-0199');
    fillPassword();
    await click('Create my account');
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(calls[0]?.body).toMatchObject({ cellPhone: '4165550199' });
    expect(calls[0]?.body).not.toHaveProperty('postalCode');
  });

  it('1002: the postal code field says it does not match, focused', async () => {
    await openWithToken('/registration/account-creation/password', { [CREATE]: { status: 400, body: { errorCode: '1002' } } }, registration);
    await heading('Create your password');
    type('Postal code', 'M5V 2T6');
    fillDate('14', '03', '1985');
    fillPassword();
    await click('Create my account');
    const text = 'The postal code or date of birth you entered doesn’t match our records.';
    expect((await screen.findAllByText(text)).length).toBeGreaterThan(0);
    expect(document.activeElement).toBe(screen.getByLabelText('Postal code'));
    expect(submitted).toEqual([]);
  });

  it('403 WRONG_CELLPHONE: the 24-hour lock roadblock', async () => {
    await openWithToken(
      '/registration/account-creation/password',
      { [CREATE]: { status: 403, body: { errorCode: 'WRONG_CELLPHONE', messageKey: 'roadblock.wrongCellphone' } } },
      { ...registration, ubiDriver: true },
    );
    await heading('Create your password');
    type('Cell phone number', '416-555-0100');
    fillPassword();
    await click('Create my account');
    await waitFor(() => expect(where()).toBe('/roadblock/wrong-cellphone'));
    await heading('Your account is locked for 24 hours');
  });

  it('without a token the page is the legacy one', async () => {
    fakeApi({});
    updateFlow({ registration });
    notePage('/registration/validation/sms');
    await renderApp(siteConfig(), '/registration/account-creation/password');
    await heading('Create your password');
    expect(screen.queryByLabelText('Postal code')).toBeNull();
  });
});

describe('password-validation, token variant (the UBI link)', () => {
  const ubi: RegistrationState = {
    id: REG,
    email: 'holder@example.com',
    ubiMatchPH: true,
    isUbiFlow: true,
    nextOption: { id: REG, method: 'ask-password', maskedValue: '' },
  };

  it('asks the postal code and date of birth, posts accounts/{id}/authentication, deletes the token, signs in', async () => {
    const calls = await openWithToken('/registration/password-validation', { [AUTH]: { status: 200, body: { email: 'holder@example.com' } }, [DELETE]: { status: 204 } }, ubi);
    await heading('Sign in to link your policy');
    expect(screen.getByText(/holder@example\.com/)).toBeTruthy();
    type('Password', 'Holder#Pass123');
    type('Postal code', 'M5V 2T6');
    fillDate('02', '09', '2001');
    await click('Link my policy');
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([AUTH, DELETE]);
    expect(calls[0]?.body).toEqual({ password: 'Holder#Pass123', postalCode: 'M5V 2T6', dateOfBirth: '2001-09-02' });
    expect(postedEntries(submitted[0]!)).toEqual(ssoFields({ username: 'holder@example.com', password: 'Holder#Pass123' }));
  });

  it('1002: the postal code field says so; 3005: the login error', async () => {
    let code = '1002';
    await openWithToken('/registration/password-validation', { [AUTH]: () => ({ status: 400, body: { errorCode: code } }) }, ubi);
    await heading('Sign in to link your policy');
    type('Password', 'Holder#Pass123');
    type('Postal code', 'M5V 2T6');
    fillDate('02', '09', '2001');
    await click('Link my policy');
    expect((await screen.findAllByText('The postal code or date of birth you entered doesn’t match our records.')).length).toBeGreaterThan(0);
    code = '3005';
    await click('Link my policy');
    await waitFor(() => expect(screen.getAllByRole('alert').map((a) => a.textContent).join(' ')).toContain('The email or password is incorrect.'));
    expect(where()).toBe('/registration/password-validation');
    expect(submitted).toEqual([]);
  });
});

describe('/reset with an invitation (reset-password-login)', () => {
  it('sends the email token with the postal code and drops it after', async () => {
    const calls = await openLink({
      [READ]: answer('reset-password-login', { id: 'acct-3', email: '' }),
      'POST /api/v1/accounts/acct-3/password': { status: 200, body: { email: 'alex@example.com' } },
    });
    await heading('Choose a new password');
    expect(readResetProgress().token).toBe(TOKEN);
    type('Postal code', 'M5V 2T6');
    type('New password', 'Green#Lamp42x');
    type('Confirm your new password', 'Green#Lamp42x');
    await click('Save my new password');
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(calls[1]?.body).toEqual({ password: 'Green#Lamp42x', token: TOKEN, postalCode: 'M5V 2T6' });
    leavePage();
    expect(readFlow().emailToken).toBeNull();
  });
});

describe('/webseal.do 0x00000000 with an email token held', () => {
  it('reads it without src and opens its action’s page (no date of birth)', async () => {
    fakeApi({ [READ]: answer('default-password-register') });
    updateFlow({ emailToken: { token: TOKEN, emailSource: 'edoc', startDate: '' } });
    await renderApp(siteConfig(), '/webseal.do?error=0x00000000');
    await heading('Create your password');
    expect(fetchedUrls()[0]).toMatch(new RegExp(`/api/v1/tokens/${TOKEN}$`));
    expect(readFlow().emailToken?.emailSource).toBe('');
    expect(screen.queryByLabelText('Day')).toBeNull();
  });

  it.each([
    { name: 'token-expired', route: answer('token-expired', { id: 'acct-3' }) },
    { name: '404', route: { status: 404, body: { errorCode: 'NOT_FOUND' } } },
    { name: '500', route: { status: 500, body: {} } },
  ])('$name: the token goes and the login opens', async ({ route }) => {
    fakeApi({ [READ]: route });
    updateFlow({ emailToken: { token: TOKEN, emailSource: 'edoc', startDate: '' } });
    await renderApp(siteConfig(), '/webseal.do?error=0x00000000');
    await waitFor(() => expect(where()).toBe('/'));
    await heading('Sign in to your account');
    expect(readFlow().emailToken).toBeNull();
  });
});

describe('a token held from an earlier invitation', () => {
  it('a registration by identification drops it: the password page is the legacy one', async () => {
    fakeApi({
      'POST /api/v1/accounts/find': {
        status: 240,
        body: { id: REG, status: 'REGISTRATION', twoFactorValidations: [{ id: 'ask', method: 'ask-email', maskedValue: '' }], ubiMatchPH: false, email: '' },
      },
    });
    updateFlow({ emailToken: { token: TOKEN, emailSource: 'edoc', startDate: '' } });
    await renderApp(siteConfig(), '/registration/identification');
    await heading('Create your online account');
    type('Policy number', 'abcdefg');
    type('First name', 'Marie');
    type('Last name', 'Tremblay');
    fillDate('17', '05', '1980');
    type('Postal code', 'h2x1y4');
    await click('Next');
    await waitFor(() => expect(where()).toBe('/registration/account-creation/email'));
    expect(readFlow().emailToken).toBeNull();
  });

  it('new-email’s cancel drops it with the registration', async () => {
    await openWithToken('/registration/account-creation/new-email', {}, { id: REG, nextOption: { id: 'opt-u', method: 'ask-username', maskedValue: '' } });
    await heading('Choose another email address');
    await click('Cancel');
    await waitFor(() => expect(where()).toBe('/'));
    expect(readFlow().emailToken).toBeNull();
    expect(readFlow().registration).toBeNull();
  });
});
