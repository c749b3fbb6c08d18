import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadSection } from '@/i18n/section';
import { forgetPages, notePage } from '@/lib/flow/previous-page';
import { readFlow, updateFlow } from '@/lib/flow/state';
import { fakeApi, type FakeRoutes } from '@/lib/flow/testing';
import { renderApp } from '@/test/render';
import { alertText, heading, where } from '@/test/page';
import { siteConfig } from '@/test/site-fixture';
import { fullText } from '@/test/text';
import { linkProblem } from './components/confirm-email';

// Issue 28 item 2: a brand that proves an email by link answers the email
// submission 202 (email-sent); the link opens /registration/confirm-email,
// whose token continues the registration (spec §4.2).

const REG = 'reg-link-1';
const OPTION = 'opt-link-1';
const TOKEN = 'TGluay10b2tlbi1vZi10ZXN0cy1ub3QtYS1yZWFsLW9uZQ';
const VALIDATE = `POST /api/v1/registrations/${REG}/validations/${OPTION}/`;
const LINK = `/registration/confirm-email?id=${REG}&validation=${OPTION}&token=${TOKEN}&lang=en`;

beforeAll(async () => {
  await Promise.all([loadSection('registration', 'en'), loadSection('registration', 'fr')]);
});

beforeEach(() => {
  forgetPages();
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  sessionStorage.clear();
});

async function openLink(routes: FakeRoutes, url = LINK, language: 'en' | 'fr' = 'en') {
  const calls = fakeApi(routes);
  await renderApp(siteConfig({ language }), url);
  return calls;
}

describe('/registration/account-creation/email → 202 → email-sent', () => {
  it('the real 202 (ask-email-link) goes to email-sent, which tells the link’s life', async () => {
    const link = { id: OPTION, method: 'ask-email-link', maskedValue: 'n***@example.com' };
    fakeApi({ 'POST /api/v1/registrations/reg-1/validations/ask-1/': { status: 202, body: { id: 'reg-1', twoFactorValidations: [link] } } });
    updateFlow({ registration: { id: 'reg-1', nextOption: { id: 'ask-1', method: 'ask-email', maskedValue: '' } } });
    notePage('/registration/identification');
    await renderApp(siteConfig(), '/registration/account-creation/email');
    await heading('Choose your email address');
    fireEvent.change(screen.getByLabelText('Email address'), { target: { value: 'new@example.com' } });
    fireEvent.change(screen.getByLabelText('Confirm your email address'), { target: { value: 'new@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    await heading('Check your inbox');
    expect(where()).toBe('/registration/email-sent');
    expect(screen.getByText(fullText(/We sent an email to new@example\.com/))).toBeTruthy();
    expect(screen.getByText('The link works once, for 10 minutes. If it has expired, start your registration again.')).toBeTruthy();
    expect(readFlow().registration).toMatchObject({ id: 'reg-1', email: 'new@example.com', nextOption: link });
  });
});

describe('/registration/confirm-email (the emailed link)', () => {
  it('takes the token out of the address at once, posts it as the option’s value, then the password page', async () => {
    const calls = await openLink({ [VALIDATE]: { status: 200, body: { id: REG, email: 'new@example.com' } } });
    await heading('Create your password');
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([VALIDATE]);
    expect(calls[0]?.body).toEqual({ validationValue: TOKEN });
    expect(where()).toBe('/registration/account-creation/password');
    expect(window.location.href).not.toContain(TOKEN);
    expect(window.history.state === null || !JSON.stringify(window.history.state).includes(TOKEN)).toBe(true);
    expect(readFlow().registration).toMatchObject({ id: REG, email: 'new@example.com' });
  });

  it('shows that it is checking, with the token gone from the address', async () => {
    const never = new Promise<Response>(() => undefined);
    vi.stubGlobal('fetch', vi.fn(() => never));
    await renderApp(siteConfig(), LINK);
    await heading('Confirm your email address');
    expect(where()).toBe('/registration/confirm-email?lang=en');
    expect(screen.getByRole('status').textContent).toBe('Checking your link…');
  });

  it('240 ask-username (the email was taken meanwhile): new-email', async () => {
    const next = { id: 'opt-u', method: 'ask-username', maskedValue: 'n***@example.com' };
    await openLink({ [VALIDATE]: { status: 240, body: { id: REG, twoFactorValidations: [next] } } });
    await heading('Choose another email address');
    expect(where()).toBe('/registration/account-creation/new-email');
    expect(readFlow().registration).toMatchObject({ id: REG, nextOption: next });
  });

  it.each([
    [{ status: 400, body: { errorCode: 'INVALID_ACTIVATION_CODE', triesLeft: 4 } }, 'This link is not valid. Open the whole link from the latest email we sent you.'],
    [{ status: 403, body: { errorCode: 'EXCEEDED_RETRIES_CODE_ACTIVATION' } }, 'This link has expired or was tried too many times. Start your registration again to get a new one.'],
    [{ status: 409, body: { errorCode: 'REGISTRATION_STATE' } }, 'This link was already used, or your registration has ended. Start your registration again.'],
    [{ status: 404, body: { errorCode: 'NOT_FOUND' } }, 'This link is not valid. Start your registration again.'],
  ])('%j: says so on the page, with a way to start again', async (answer, text) => {
    await openLink({ [VALIDATE]: answer });
    await waitFor(() => expect(alertText()).toContain(text));
    expect(where()).toBe('/registration/confirm-email?lang=en');
    expect(screen.queryByRole('status')?.textContent ?? '').toBe('');
    fireEvent.click(screen.getByRole('link', { name: 'Start my registration again' }));
    await heading('Create your online account');
    expect(where()).toBe('/registration/identification');
  });

  it('a link without its token is not valid, and nothing is posted', async () => {
    const calls = await openLink({}, `/registration/confirm-email?id=${REG}&validation=${OPTION}`);
    await waitFor(() => expect(alertText()).toContain('This link is not valid. Start your registration again.'));
    expect(calls).toEqual([]);
  });

  it('in French', async () => {
    await openLink({ [VALIDATE]: { status: 409, body: { errorCode: 'REGISTRATION_STATE' } } }, LINK.replace('lang=en', 'lang=fr'), 'fr');
    await heading('Confirmez votre adresse courriel');
    await waitFor(() => expect(alertText()).toContain('Ce lien a déjà servi, ou votre inscription a pris fin. Recommencez votre inscription.'));
  });

  it('429 and 5xx are spec §8’s', () => {
    expect(linkProblem({ status: 429 })).toBeNull();
    expect(linkProblem({ status: 500 })).toBeNull();
    expect(linkProblem({ status: 400, data: { errorCode: 'VALIDATION' } })).toBeNull();
  });
});
