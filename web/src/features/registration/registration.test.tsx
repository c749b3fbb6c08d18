import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadSection } from '@/i18n/section';
import { forgetPages, notePage } from '@/lib/flow/previous-page';
import { readFlow, updateFlow, type RegistrationState } from '@/lib/flow/state';
import { ssoFields } from '@/lib/flow/sso-form';
import { leavePage, postedEntries } from '@/test/sso-post';
import { fakeApi, type FakeAnswer, type FakeRoutes } from '@/lib/flow/testing';
import type { PublicBrand } from '@/lib/site/types';
import { renderApp } from '@/test/render';
import { submittedForms } from '@/test/flow-hooks';
import { alertText, click, heading, type, where } from '@/test/page';
import { belair, siteConfig } from '@/test/site-fixture';
import guarded from '@/test/guarded-registration-pages.json';
import { afterCode, afterEmail, afterIdentification, MIN_SPINNER_MS, selectionOf } from './flow';
import { registrationRoadblock } from './use-registration-response';
import { fullText } from '@/test/text';

const FIND = 'POST /api/v1/accounts/find';
const REG = 'reg-1';
const validation = (optionId: string) => `POST /api/v1/registrations/${REG}/validations/${optionId}/`;
const CREATE = `POST /api/v1/accounts/${REG}/create`;
const AUTH = `POST /api/v1/accounts/${REG}/authentication`;

const EMAIL_OPTION = { id: 'opt-email', method: 'EMAIL', maskedValue: 'm***@example.com' };
const SMS_OPTION = { id: 'opt-sms', method: 'SMS', maskedValue: '***-***-0123' };
const PIN_OPTION = { id: 'opt-pin', method: 'PIN', maskedValue: '' };
const NONE_OPTION = { id: 'opt-none', method: 'NONE', maskedValue: '' };

const found = (twoFactorValidations: unknown[], extra: Record<string, unknown> = {}): FakeAnswer => ({
  status: 240,
  body: { id: REG, status: 'REGISTRATION', twoFactorValidations, ubiMatchPH: false, email: '', ...extra },
});
const notFound: FakeAnswer = { status: 404, body: { errorCode: 'POLICY_NUMBER_NOT_FOUND', messageKey: 'identification.notFound' } };
const registered: FakeAnswer = { status: 200, body: { status: 'REGISTERED' } };

const submitted = submittedForms();

// The registration texts load with the feature (a lazy chunk); loaded once
// here, as renderApp loads the catalogues, so no page's first render waits
// on a loaded machine.
beforeAll(async () => {
  await Promise.all([loadSection('registration', 'en'), loadSection('registration', 'fr')]);
});

beforeEach(() => {
  forgetPages();
});

/** The email page's form filled in (the address, retyped) and submitted. */
async function submitEmail(address: string, retype = address) {
  type('Email address', address);
  type('Confirm your email address', retype);
  await click('Next');
}

/** Opens a registration page as the flow reaches it: the registration state, arriving from `from`. */
async function openAt(url: string, routes: FakeRoutes, from: string | null, registration: RegistrationState | null, brand: PublicBrand = belair) {
  const calls = fakeApi(routes);
  updateFlow({ registration });
  if (from) notePage(from);
  await renderApp(siteConfig({ brand }), url);
  return calls;
}

async function fillIdentification() {
  type('Policy number', 'abcdefg');
  type('First name', 'Marie');
  type('Last name', 'Tremblay');
  type('Day', '17');
  fireEvent.change(screen.getByLabelText('Month'), { target: { value: '05' } });
  type('Year', '1980');
  type('Postal code', 'h2x1y4');
}

/** What fillIdentification's answers are sent as: the policy number and postal code normalized. */
const identificationSent = {
  policyNumber: 'ABCDEFG',
  firstName: 'Marie',
  lastName: 'Tremblay',
  dateOfBirth: '1980-05-17',
  postalCode: 'H2X 1Y4',
};

/** Opens the identification page, the flow's start: no registration under way, no page before it. */
function openIdentification(routes: FakeRoutes, brand: PublicBrand = belair) {
  return openAt('/registration/identification', routes, null, null, brand);
}

/**
 * The identification submitted three times to a server that refuses it with `answer`: the first two
 * show `message` on the page (and pass `eachTime`), the third goes to `roadblock`.
 */
async function refusedThrice(answer: FakeAnswer, message: string, roadblock: string, eachTime: () => void) {
  await openIdentification({ [FIND]: answer });
  await heading('Create your online account');
  await fillIdentification();
  for (let i = 0; i < 2; i++) {
    await click('Next');
    await waitFor(() => expect(alertText()).toContain(message));
    eachTime();
  }
  await click('Next');
  await waitFor(() => expect(where()).toBe(roadblock));
}

/** The identification page, once shown, filled in and submitted. */
async function submitIdentification() {
  await heading('Create your online account');
  await fillIdentification();
  await click('Next');
}

describe('spec §4.2 routing', () => {
  it.each([
    { options: [], next: { roadblock: 'no-options' } },
    { options: [NONE_OPTION], next: { roadblock: 'no-options' } },
    {
      options: [{ id: 'a', method: 'ask-email', maskedValue: '' }],
      next: { to: '/registration/account-creation/email', selected: { id: 'a', method: 'ask-email', maskedValue: '' } },
    },
    { options: [PIN_OPTION, NONE_OPTION], next: { to: '/registration/validation/pin', selected: PIN_OPTION } },
    { options: [PIN_OPTION], next: { to: '/registration/validation/pin', selected: PIN_OPTION } },
    { options: [EMAIL_OPTION, NONE_OPTION], next: { to: '/registration/validation' } },
    { options: [EMAIL_OPTION, PIN_OPTION, NONE_OPTION], next: { to: '/registration/validation' } },
    { options: [SMS_OPTION, NONE_OPTION], next: { to: '/registration/validation' } },
  ])('identification 240 with $options.length options', ({ options, next }) => {
    expect(afterIdentification(options)).toEqual(next);
  });

  it('an option selected is kept for the page that submits with it', () => {
    const ask = { id: 'a', method: 'ask-email', maskedValue: '' };
    expect(selectionOf(PIN_OPTION)).toEqual({ selectedTwoFactor: 'opt-pin', resendTwoFactor: 0 });
    expect(selectionOf(SMS_OPTION)).toEqual({ selectedTwoFactor: 'opt-sms', resendTwoFactor: 0 });
    expect(selectionOf(EMAIL_OPTION)).toEqual({ selectedTwoFactor: 'opt-email', resendTwoFactor: 0 });
    expect(selectionOf(ask)).toEqual({ nextOption: ask, selectedTwoFactor: undefined });
  });

  it('code answers', () => {
    expect(afterCode(undefined)).toEqual({ to: '/registration/account-creation/password' });
    expect(afterCode({ id: 'x', method: 'ask-email', maskedValue: '' })).toEqual({ to: '/registration/account-creation/email' });
    expect(afterCode({ id: 'x', method: 'ask-password', maskedValue: '' })).toEqual({ to: '/registration/password-validation' });
    expect(afterCode({ id: 'x', method: 'ask-username', maskedValue: '' })).toEqual({ to: '/registration/account-creation/new-email' });
    expect(afterCode({ id: 'x', method: 'other', maskedValue: '' })).toBeNull();
  });

  it('email answers', () => {
    expect(afterEmail(202, undefined)).toEqual({ to: '/registration/email-sent' });
    expect(afterEmail(240, { id: 'x', method: 'ask-password', maskedValue: '' })).toEqual({ to: '/registration/password-validation' });
    expect(afterEmail(240, { id: 'x', method: 'ask-email-code', maskedValue: '' })).toEqual({ to: '/registration/validation/email' });
    expect(afterEmail(240, undefined)).toBeNull();
  });

  it('registration roadblocks of the contract', () => {
    const answer = (status: number, errorCode: string) => ({ status, data: { errorCode } });
    expect(registrationRoadblock(answer(403, 'EXCEEDED_RESENDS'))).toBe('resend-code');
    expect(registrationRoadblock(answer(403, 'EXCEEDED_RETRIES_CODE_ACTIVATION'))).toBe('pin-difficulties');
    expect(registrationRoadblock(answer(403, 'WRONG_CELLPHONE'))).toBe('wrong-cellphone');
    expect(registrationRoadblock(answer(409, 'REGISTRATION_STATE'))).toBe('technical');
    expect(registrationRoadblock(answer(400, 'INVALID_ACTIVATION_CODE'))).toBeNull();
  });
});

describe('/registration/identification', () => {
  it('shows the fields, the back-to-login link and Next/Back; the licence only where the province has UBI', async () => {
    await openIdentification({});
    await heading('Create your online account');
    expect(document.title).toBe('Create your online account | belairdirect');
    for (const label of ['Policy number', 'First name', 'Last name', 'Day', 'Month', 'Year', 'Postal code']) {
      expect(screen.getByLabelText(label)).toBeTruthy();
    }
    expect(screen.queryByLabelText('Driver’s licence number')).toBeNull();
    expect(screen.getByRole('link', { name: 'Back to login' }).getAttribute('href')).toBe('/');
    expect(screen.getByRole('button', { name: 'Next' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Back' })).toBeTruthy();
  });

  it('UBI province: the licence and its province are asked and sent', async () => {
    const ubiBrand: PublicBrand = { ...belair, provinces: belair.provinces.map((p) => (p.key === 'on' ? { ...p, ubi: true } : p)) };
    const calls = await openIdentification({ [FIND]: found([EMAIL_OPTION, NONE_OPTION]) }, ubiBrand);
    await heading('Create your online account');
    await fillIdentification();
    expect((screen.getByLabelText('Province that issued your driver’s licence') as HTMLSelectElement).value).toBe('on');
    type('Driver’s licence number', 'A123412345123');
    fireEvent.change(screen.getByLabelText('Province that issued your driver’s licence'), { target: { value: 'other' } });
    await click('Next');
    await waitFor(() => expect(where()).toBe('/registration/validation'));
    expect(calls[0]?.body).toEqual({ ...identificationSent, driverLicence: 'A123412345123', licenceProvince: 'other' });
  });

  it('checks the fields before sending', async () => {
    const calls = await openIdentification({});
    await heading('Create your online account');
    await click('Next');
    expect(await screen.findByText('Please correct the following errors')).toBeTruthy();
    expect(calls).toEqual([]);
  });

  it('240: the registration is kept and the choice opens', async () => {
    const calls = await openIdentification({ [FIND]: found([EMAIL_OPTION, SMS_OPTION, NONE_OPTION]) });
    await submitIdentification();
    await heading('Verify your identity');
    expect(where()).toBe('/registration/validation');
    expect(calls[0]?.body).toEqual(identificationSent);
    expect(readFlow().registration).toMatchObject({ id: REG, twoFactorValidations: [EMAIL_OPTION, SMS_OPTION, NONE_OPTION] });
    expect(screen.getByRole('radio', { name: 'By email at m***@example.com' })).toBeTruthy();
    expect(screen.getByRole('radio', { name: 'By text message at ***-***-0123' })).toBeTruthy();
    expect(screen.getByRole('radio', { name: 'I can’t use any of these options' })).toBeTruthy();
  });

  it.each([
    { options: [], to: '/roadblock/no-options', title: 'We can’t verify your identity online' },
    { options: [{ id: 'ask', method: 'ask-email', maskedValue: '' }], to: '/registration/account-creation/email', title: 'Choose your email address' },
    { options: [PIN_OPTION, NONE_OPTION], to: '/registration/validation/pin', title: 'Enter your PIN' },
  ])('240 with $options.length option(s) goes to $to', async ({ options, to, title }) => {
    await openIdentification({ [FIND]: found(options) });
    await submitIdentification();
    await waitFor(() => expect(where()).toBe(to));
    await screen.findByRole('heading', { level: 1, name: (name) => name.replace(/['’]/g, '’') === title });
  });

  it('a single ask-email: account-creation/email submits the email with that option', async () => {
    const ask = { id: 'ask-9', method: 'ask-email', maskedValue: '' };
    const calls = await openIdentification({ [FIND]: found([ask]), [validation('ask-9')]: { status: 202, body: { email: 'new@example.com' } } });
    await submitIdentification();
    await heading('Choose your email address');
    await submitEmail('new@example.com');
    await heading('Check your inbox');
    expect(calls.map((c) => c.path)).toEqual(['/api/v1/accounts/find', `/api/v1/registrations/${REG}/validations/ask-9/`]);
  });

  it('a single PIN (issue 28): the PIN page submits with that option, then the email page with the next', async () => {
    const ask = { id: 'ask-2', method: 'ask-email', maskedValue: '' };
    const calls = await openIdentification({
      [FIND]: found([PIN_OPTION, NONE_OPTION]),
      [validation('opt-pin')]: { status: 240, body: { id: REG, twoFactorValidations: [ask] } },
      [validation('ask-2')]: { status: 240, body: { id: REG, twoFactorValidations: [{ id: 'code-3', method: 'ask-email-code', maskedValue: 'n***@example.com' }] } },
    });
    await submitIdentification();
    await heading('Enter your PIN');
    expect(readFlow().registration).toMatchObject({ selectedTwoFactor: 'opt-pin', resendTwoFactor: 0 });
    type('PIN', 'ab12cd34');
    await click('Next');
    await heading('Choose your email address');
    await submitEmail('new@example.com');
    await heading('Enter your security code');
    expect(calls.map((c) => [c.path, c.body])).toEqual([
      ['/api/v1/accounts/find', expect.anything()],
      [`/api/v1/registrations/${REG}/validations/opt-pin/`, { validationValue: 'AB12CD34' }],
      [`/api/v1/registrations/${REG}/validations/ask-2/`, { validationValue: 'new@example.com' }],
    ]);
  });

  it('404: a message, twice; the third is the registration-difficulties roadblock', async () => {
    await refusedThrice(notFound, 'We couldn\'t find a policy with this information.', '/roadblock/registration-difficulties', () =>
      expect(where()).toBe('/registration/identification'),
    );
    await heading("We couldn't find your policy");
    expect(screen.getByRole('button', { name: 'Back to registration' })).toBeTruthy();
  });

  it('200: already registered, with a sign-in link, twice; the third is more-than-one-profile', async () => {
    await refusedThrice(registered, 'You already have an online account.', '/roadblock/more-than-one-profile', () =>
      expect(screen.getByRole('link', { name: 'Sign in to your account' }).getAttribute('href')).toBe('/'),
    );
  });

  it('in French', async () => {
    fakeApi({});
    await renderApp(siteConfig({ brand: belair, province: 'qc', language: 'fr' }), '/registration/identification');
    await heading('Créez votre compte en ligne');
    expect(screen.getByRole('button', { name: 'Suivant' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Retour à la connexion' })).toBeTruthy();
  });
});

describe('guards in the app', () => {
  it.each(guarded.paths)('%s opened by its address goes to / with the query string', async (path) => {
    fakeApi({});
    updateFlow({ registration: { id: REG, twoFactorValidations: [EMAIL_OPTION] } });
    await renderApp(siteConfig(), `${path}?lang=en&x=1`);
    await waitFor(() => expect(where()).toBe('/?lang=en&x=1'));
  });

  it('a page allowed by the table but without a registration under way goes to /', async () => {
    await openAt('/registration/validation', {}, '/registration/identification', null);
    await waitFor(() => expect(where()).toBe('/'));
  });

  it('email-sent without a registration under way (opened by its address) goes to / with the query string', async () => {
    await openAt('/registration/email-sent?lang=en&x=1', {}, null, null);
    await waitFor(() => expect(where()).toBe('/?lang=en&x=1'));
  });

  it('email-sent with a registration under way opens', async () => {
    await openAt('/registration/email-sent', {}, '/registration/account-creation/email', { id: REG, email: 'new@example.com' });
    await heading('Check your inbox');
    expect(screen.getByText(fullText(/We sent an email to new@example\.com/))).toBeTruthy();
  });

  it('link without a token (opened by its address) goes to / with the query string', async () => {
    const calls = await openAt('/registration/link?lang=en&src=edoc', {}, null, null);
    await waitFor(() => expect(where()).toBe('/?lang=en&src=edoc'));
    expect(calls).toEqual([]);
  });
});

const underWay: RegistrationState = { id: REG, twoFactorValidations: [EMAIL_OPTION, SMS_OPTION, PIN_OPTION, NONE_OPTION] };

describe('/registration/validation', () => {
  it('email: the code is sent, then its page', async () => {
    const calls = await openAt(
      '/registration/validation',
      { [validation('opt-email')]: { status: 200, body: { id: REG, twoFactorValidations: [EMAIL_OPTION], resendsLeft: 3 } } },
      '/registration/identification',
      underWay,
    );
    await heading('Verify your identity');
    await click('Next');
    await heading('Enter your security code');
    expect(where()).toBe('/registration/validation/email');
    expect(calls.map((c) => [c.path, c.body])).toEqual([[`/api/v1/registrations/${REG}/validations/opt-email/`, {}]]);
    expect(screen.getByText(fullText(/by email to m\*\*\*@example\.com/))).toBeTruthy();
  });

  it('PIN: its page, no call', async () => {
    const calls = await openAt('/registration/validation', {}, '/registration/identification', underWay);
    await heading('Verify your identity');
    fireEvent.click(screen.getByRole('radio', { name: 'With the PIN in the letter we mailed you' }));
    await click('Next');
    await heading('Enter your PIN');
    expect(calls).toEqual([]);
    expect(screen.getByRole('img', { name: 'Where to find your PIN in the letter' })).toBeTruthy();
  });

  it('none of these: the no-options roadblock', async () => {
    await openAt('/registration/validation', {}, '/registration/identification', underWay);
    await heading('Verify your identity');
    fireEvent.click(screen.getByRole('radio', { name: 'I can’t use any of these options' }));
    await click('Next');
    await waitFor(() => expect(where()).toBe('/roadblock/no-options'));
  });
});

const codeSent: RegistrationState = { ...underWay, selectedTwoFactor: 'opt-sms', resendTwoFactor: 0 };

describe('/registration/validation/sms, /email, /pin', () => {
  it('a right code: account-creation/password with the email the server gives', async () => {
    const calls = await openAt(
      '/registration/validation/sms',
      { [validation('opt-sms')]: { status: 200, body: { id: REG, email: 'marie@example.com' } } },
      '/registration/validation',
      codeSent,
    );
    await heading('Enter your security code');
    type('Security code', '123456');
    await click('Next');
    await heading('Create your password');
    expect(calls[0]?.body).toEqual({ validationValue: '123456' });
    expect(screen.getByText(fullText('You will sign in with marie@example.com and this password.'))).toBeTruthy();
  });

  it.each([
    { method: 'ask-username', to: '/registration/account-creation/new-email' },
    { method: 'ask-email', to: '/registration/account-creation/email' },
    { method: 'ask-password', to: '/registration/password-validation' },
  ])('240 $method goes to $to', async ({ method, to }) => {
    await openAt(
      '/registration/validation/sms',
      { [validation('opt-sms')]: { status: 240, body: { id: REG, twoFactorValidations: [{ id: 'next-1', method, maskedValue: '' }] } } },
      '/registration/validation',
      codeSent,
    );
    await heading('Enter your security code');
    type('Security code', '123456');
    await click('Next');
    await waitFor(() => expect(where()).toBe(to));
    expect(readFlow().registration?.nextOption).toEqual({ id: 'next-1', method, maskedValue: '' });
  });

  it('a wrong code says so with the tries left; too many is pin-difficulties', async () => {
    let wrong = 0;
    await openAt(
      '/registration/validation/sms',
      {
        [validation('opt-sms')]: () =>
          ++wrong < 3
            ? { status: 400, body: { errorCode: 'INVALID_ACTIVATION_CODE', triesLeft: 5 - wrong } }
            : { status: 403, body: { errorCode: 'EXCEEDED_RETRIES_CODE_ACTIVATION' } },
      },
      '/registration/validation',
      codeSent,
    );
    await heading('Enter your security code');
    type('Security code', '111111');
    await click('Next');
    await waitFor(() => expect(alertText()).toContain('The security code is incorrect. You have 4 tries left.'));
    expect((screen.getByLabelText('Security code') as HTMLInputElement).value).toBe('');
    type('Security code', '222222');
    await click('Next');
    await waitFor(() => expect(alertText()).toContain('You have 3 tries left.'));
    type('Security code', '333333');
    await click('Next');
    await waitFor(() => expect(where()).toBe('/roadblock/pin-difficulties'));
  });

  it('PIN: 8 characters, the PIN message when wrong', async () => {
    const calls = await openAt(
      '/registration/validation/pin',
      { [validation('opt-pin')]: { status: 400, body: { errorCode: 'INVALID_ACTIVATION_CODE', triesLeft: 1 } } },
      '/registration/validation',
      { ...underWay, selectedTwoFactor: 'opt-pin' },
    );
    await heading('Enter your PIN');
    type('PIN', 'ab12');
    await click('Next');
    expect(await screen.findByText('Please correct the following errors')).toBeTruthy();
    expect(calls).toEqual([]);
    type('PIN', 'ab12cd34');
    await click('Next');
    await waitFor(() => expect(alertText()).toContain('The PIN is incorrect. You have 1 try left.'));
    expect(calls[0]?.body).toEqual({ validationValue: 'AB12CD34' });
    expect(screen.queryByRole('button', { name: 'Send me a new code' })).toBeNull();
  });

  it('no option selected: the technical roadblock, and no call to a path without its option', async () => {
    const calls = await openAt('/registration/validation/pin', {}, '/registration/identification', underWay);
    await heading('Enter your PIN');
    type('PIN', 'ab12cd34');
    await click('Next');
    await waitFor(() => expect(where()).toBe('/roadblock/technical'));
    expect(calls).toEqual([]);
  });

  it('resend: a spinner for at least a second, 3 times; the server refuses the fourth email: resend-email', async () => {
    let sent = 0;
    const calls = await openAt(
      '/registration/validation/email',
      {
        [validation('opt-email')]: () =>
          ++sent <= 3
            ? { status: 200, body: { id: REG, twoFactorValidations: [EMAIL_OPTION], resendsLeft: 3 - sent } }
            : { status: 403, body: { errorCode: 'EXCEEDED_EMAIL_RESENDS', messageKey: 'roadblock.resendEmail' } },
      },
      '/registration/validation',
      { ...underWay, selectedTwoFactor: 'opt-email', resendTwoFactor: 0 },
    );
    await heading('Enter your security code');
    vi.useFakeTimers({ shouldAdvanceTime: true });
    for (let i = 1; i <= 3; i++) {
      await click('Send me a new code');
      const button = screen.getByRole('button', { name: 'Sending a new code…' });
      expect(button.getAttribute('aria-busy')).toBe('true');
      await act(async () => vi.advanceTimersByTimeAsync(MIN_SPINNER_MS - 100));
      expect(screen.getByRole('button', { name: 'Sending a new code…' })).toBeTruthy();
      await act(async () => vi.advanceTimersByTimeAsync(100));
      await waitFor(() => expect(screen.getByRole('status').textContent).toBe('We sent you a new code.'));
      expect(readFlow().registration?.resendTwoFactor).toBe(i);
    }
    expect(calls).toHaveLength(3);
    await click('Send me a new code');
    await waitFor(() => expect(where()).toBe('/roadblock/resend-email'));
    expect(calls).toHaveLength(4);
  });

  it("an SMS code's resend refused (403 EXCEEDED_RESENDS) is the resend-code roadblock", async () => {
    await openAt(
      '/registration/validation/sms',
      { [validation('opt-sms')]: { status: 403, body: { errorCode: 'EXCEEDED_RESENDS', messageKey: 'roadblock.resendCode' } } },
      '/registration/validation',
      codeSent,
    );
    await heading('Enter your security code');
    await click('Send me a new code');
    await waitFor(() => expect(where()).toBe('/roadblock/resend-code'));
  });

  it('Back returns to the choice', async () => {
    await openAt('/registration/validation/sms', {}, '/registration/validation', codeSent);
    await heading('Enter your security code');
    await act(async () => fireEvent.click(screen.getByRole('link', { name: 'Back' })));
    await heading('Verify your identity');
  });
});

const askEmail: RegistrationState = { ...underWay, nextOption: { id: 'ask-1', method: 'ask-username', maskedValue: '' } };

/** Opens the new-email page as the flow reaches it from the email validation, once its heading shows. */
async function openNewEmail(routes: FakeRoutes = {}) {
  const calls = await openAt('/registration/account-creation/new-email', routes, '/registration/validation/email', askEmail);
  await heading('Choose another email address');
  return calls;
}

describe('/registration/account-creation/email and /new-email', () => {
  it('new-email: taken twice says so, the third is more-than-one-profile', async () => {
    const calls = await openNewEmail({ [validation('ask-1')]: { status: 404, body: { errorCode: 'EMAIL_ALREADY_EXISTS' } } });
    type('Email address', 'taken@example.com');
    type('Confirm your email address', 'taken@example.com');
    for (let i = 0; i < 2; i++) {
      await click('Next');
      await waitFor(() => expect(alertText()).toContain('taken@example.com is already being used. Try again with a new email address.'));
    }
    await click('Next');
    await waitFor(() => expect(where()).toBe('/roadblock/more-than-one-profile'));
    expect(calls[0]?.body).toEqual({ validationValue: 'taken@example.com' });
  });

  it('another 404 (no such option) is the technical roadblock, not a taken email', async () => {
    await openNewEmail({ [validation('ask-1')]: { status: 404, body: { errorCode: 'NOT_FOUND' } } });
    await submitEmail('new@example.com');
    await waitFor(() => expect(where()).toBe('/roadblock/technical'));
  });

  it('the retype must match', async () => {
    const calls = await openNewEmail();
    await submitEmail('one@example.com', 'two@example.com');
    expect(await screen.findByText('Please correct the following errors')).toBeTruthy();
    expect(calls).toEqual([]);
  });

  it('new-email: cancel goes to login and forgets the registration', async () => {
    await openNewEmail();
    await click('Cancel');
    await waitFor(() => expect(where()).toBe('/'));
    expect(readFlow().registration).toBeNull();
  });

  it('email: ask-email-code goes to validation/email for that option', async () => {
    await openAt(
      '/registration/account-creation/email',
      {
        [validation('ask-1')]: {
          status: 240,
          body: { id: REG, twoFactorValidations: [{ id: 'code-1', method: 'ask-email-code', maskedValue: 'n***@example.com' }] },
        },
      },
      '/registration/identification',
      { ...askEmail, nextOption: { id: 'ask-1', method: 'ask-email', maskedValue: '' } },
    );
    await heading('Choose your email address');
    await submitEmail('new@example.com');
    await heading('Enter your security code');
    expect(where()).toBe('/registration/validation/email');
    expect(screen.getByText(fullText(/by email to n\*\*\*@example\.com/))).toBeTruthy();
    expect(readFlow().registration).toMatchObject({ selectedTwoFactor: 'code-1', email: 'new@example.com' });
  });

  it('202: email-sent', async () => {
    await openAt(
      '/registration/account-creation/email',
      { [validation('ask-1')]: { status: 202, body: { email: 'new@example.com' } } },
      '/registration/identification',
      askEmail,
    );
    await heading('Choose your email address');
    await submitEmail('new@example.com');
    await heading('Check your inbox');
    expect(screen.getByText(fullText(/We sent an email to new@example\.com/))).toBeTruthy();
  });
});

const verified: RegistrationState = { ...underWay, email: 'marie@example.com' };

/** The password page filled in, terms ticked, submitted. */
async function submitPassword() {
  type('Password', 'Green#Lamp42x');
  type('Confirm your password', 'Green#Lamp42x');
  fireEvent.click(screen.getByRole('checkbox'));
  await click('Create my account');
}

/** Opens the password page as the flow reaches it after the SMS code, once its heading shows. */
async function openPassword(routes: FakeRoutes) {
  const calls = await openAt('/registration/account-creation/password', routes, '/registration/validation/sms', verified);
  await heading('Create your password');
  return calls;
}

describe('/registration/account-creation/password', () => {
  it('the terms must be ticked', async () => {
    const calls = await openPassword({});
    type('Password', 'Green#Lamp42x');
    type('Confirm your password', 'Green#Lamp42x');
    await click('Create my account');
    expect((await screen.findAllByText('You must agree to the Terms of Use to sign up.')).length).toBeGreaterThan(0);
    expect(calls).toEqual([]);
  });

  it('201 signs in through the SSO form post with the email and password', async () => {
    const calls = await openPassword({ [CREATE]: { status: 201, body: { email: 'marie@example.com' } } });
    await submitPassword();
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(calls[0]?.body).toEqual({ password: 'Green#Lamp42x', passwordConfirmation: 'Green#Lamp42x', termsAccepted: true });
    const form = submitted[0];
    expect(form?.getAttribute('action')).toBe('/pkmslogin.form');
    expect(postedEntries(form!)).toEqual(ssoFields({ username: 'marie@example.com', password: 'Green#Lamp42x' }));
    // Kept until the page goes, or the page's guard shows / meanwhile (issue 32).
    expect(readFlow().registration).not.toBeNull();
    leavePage();
    expect(readFlow().registration).toBeNull();
  });

  it.each([
    { code: '2002', text: "This password can't be used. Choose another one that follows the rules." },
    { code: '2003', text: "The password contains a character that isn't allowed." },
  ])('400 $code: the password field says so', async ({ code, text }) => {
    await openPassword({ [CREATE]: { status: 400, body: { errorCode: code } } });
    await submitPassword();
    expect((await screen.findAllByText(text)).length).toBeGreaterThan(0);
    expect(submitted).toEqual([]);
  });

  it('400 1003: login-difficulties', async () => {
    await openPassword({ [CREATE]: { status: 400, body: { errorCode: '1003' } } });
    await submitPassword();
    await waitFor(() => expect(where()).toBe('/roadblock/login-difficulties'));
  });

  it('409 REGISTRATION_STATE: the technical roadblock, whose button starts again', async () => {
    await openPassword({ [CREATE]: { status: 409, body: { errorCode: 'REGISTRATION_STATE' } } });
    await submitPassword();
    await waitFor(() => expect(where()).toBe('/roadblock/technical'));
    await click('Back to registration');
    await heading('Create your online account');
    expect(readFlow().registration).toBeNull();
  });
});

describe('/registration/password-validation', () => {
  const ubi: RegistrationState = { ...underWay, isUbiFlow: true, nextOption: { id: 'pw', method: 'ask-password', maskedValue: 'p***@example.com' } };

  it('200 signs in with the account email', async () => {
    const calls = await openAt('/registration/password-validation', { [AUTH]: { status: 200, body: { email: 'parent@example.com' } } }, '/registration/validation/sms', ubi);
    await heading('Sign in to link your policy');
    type('Password', 'Parent#Pass123');
    await click('Link my policy');
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(calls[0]?.body).toEqual({ password: 'Parent#Pass123' });
    expect(postedEntries(submitted[0]!)).toEqual(ssoFields({ username: 'parent@example.com', password: 'Parent#Pass123' }));
  });

  it('3005: the login error, the page stays', async () => {
    await openAt('/registration/password-validation', { [AUTH]: { status: 400, body: { errorCode: '3005' } } }, '/registration/validation/sms', ubi);
    await heading('Sign in to link your policy');
    type('Password', 'wrong');
    await click('Link my policy');
    await waitFor(() => expect(alertText()).toContain('The email or password is incorrect.'));
    expect(where()).toBe('/registration/password-validation');
  });
});

describe('a whole registration in the app', () => {
  it('identification, SMS code, password, SSO post', async () => {
    await openIdentification({
      [FIND]: found([SMS_OPTION, NONE_OPTION]),
      [validation('opt-sms')]: (call) =>
        (call.body as { validationValue?: string }).validationValue
          ? { status: 200, body: { id: REG, email: 'marie@example.com' } }
          : { status: 200, body: { id: REG, twoFactorValidations: [SMS_OPTION], resendsLeft: 3 } },
      [CREATE]: { status: 201, body: { email: 'marie@example.com' } },
    });
    await submitIdentification();
    await heading('Verify your identity');
    await click('Next');
    await heading('Enter your security code');
    expect(within(screen.getByRole('main')).getByText(fullText(/by text message to \*\*\*-\*\*\*-0123/))).toBeTruthy();
    type('Security code', '123456');
    await click('Next');
    await heading('Create your password');
    await submitPassword();
    await waitFor(() => expect(submitted).toHaveLength(1));
  });
});
