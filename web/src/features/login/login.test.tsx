import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { readFlow, updateFlow } from '@/lib/flow/state';
import { fakeApi, type FakeRoutes } from '@/lib/flow/testing';
import { readCookies } from '@/lib/site/cookies';
import { renderApp } from '@/test/render';
import { submittedForms } from '@/test/flow-hooks';
import { where } from '@/test/page';
import { belair, siteConfig } from '@/test/site-fixture';
import { createAccountPath } from './routes/login';
import { randomAttemptLimit } from '@/lib/flow/attempts';
import { ssoFields } from '@/lib/flow/sso-form';
import { postedEntries } from '@/test/sso-post';

const EMAIL = 'demo@belair.example';
const found = (status: 'A' | 'T') => ({ status: 200, body: { id: 'acc-1', status, email: EMAIL } });
const wrongPassword = { status: 400, body: { errorCode: '3005', messageKey: 'login.error' } };

const submitted = submittedForms();

async function openLogin(routes: FakeRoutes, config = siteConfig({ brand: belair })) {
  const calls = fakeApi(routes);
  await renderApp(config, '/');
  await screen.findByRole('heading', { level: 1, name: 'Sign in to your account' });
  return calls;
}

async function signIn(email: string, password: string) {
  fireEvent.change(screen.getByLabelText('Email address'), { target: { value: email } });
  fireEvent.change(screen.getByLabelText('Password'), { target: { value: password } });
  await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Sign in' })));
}

/** Three sign-ins, each refused with `message` on the form: the page stays and none counts toward a roadblock. */
async function refusedThrice(message: string) {
  for (let attempt = 1; attempt <= 3; attempt++) {
    await signIn(EMAIL, 'Guichet-Demo-2026!');
    const alert = await screen.findByRole('alert');
    await waitFor(() => expect(alert.textContent).toBe(message));
    expect(where()).toBe('/');
    expect(readFlow().roadblocked).not.toBe(true);
  }
}

describe('randomAttemptLimit (spec §4.3, §4.4: random 3 to 6)', () => {
  it.each([
    [0, 3],
    [0.2499, 3],
    [0.25, 4],
    [0.5, 5],
    [0.75, 6],
    [0.9999, 6],
    [1, 6],
  ])('random %f gives %i', (random, limit) => {
    expect(randomAttemptLimit(() => random)).toBe(limit);
  });
});

describe('login page', () => {
  it.each([
    { random: 0, limit: 3 },
    { random: 0.99, limit: 6 },
  ])('counts wrong passwords up to the drawn limit ($limit), then the login-difficulties roadblock', async ({ random, limit }) => {
    vi.spyOn(Math, 'random').mockReturnValue(random);
    const calls = await openLogin({
      'POST /api/v1/accounts/find': found('A'),
      'POST /api/v1/accounts/acc-1/authentication': wrongPassword,
    });
    for (let attempt = 1; attempt < limit; attempt++) {
      await signIn(EMAIL, `Wrong-${attempt}`);
      await screen.findByText('The email or password is incorrect. Please try again.');
      expect(where()).toBe('/');
      const input = screen.getByLabelText('Password') as HTMLInputElement;
      expect(document.activeElement).toBe(input);
      expect([input.selectionStart, input.selectionEnd]).toEqual([0, `Wrong-${attempt}`.length]);
    }
    await signIn(EMAIL, 'Wrong-last');
    await waitFor(() => expect(where()).toBe('/roadblock/login-difficulties'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Having trouble signing in?' })).toBeTruthy();
    expect(readFlow().roadblocked).toBe(true);
    expect(calls.filter((c) => c.path.endsWith('/authentication'))).toHaveLength(limit);
    expect(calls.find((c) => c.path.endsWith('/authentication'))?.body).toEqual({ password: 'Wrong-1' });
    expect(submitted).toEqual([]);
  });

  it('an unknown email reads as a failed login and marks the flow roadblocked (spec §8.1 404)', async () => {
    await openLogin({ 'POST /api/v1/accounts/find': { status: 404, body: { errorCode: 'ACCOUNT_NOT_FOUND' } } });
    await signIn('nobody@belair.example', 'Whatever-1');
    await screen.findByText('The email or password is incorrect. Please try again.');
    expect(readFlow().roadblocked).toBe(true);
    expect(where()).toBe('/');
  });

  it('signs in: pkms cookie, then a real form post of the spec fields to the brand SSO URL', async () => {
    const calls = await openLogin({
      'POST /api/v1/accounts/find': found('A'),
      'POST /api/v1/accounts/acc-1/authentication': { status: 200, body: { loginTicket: 'ticket-1' } },
    });
    await signIn(`  ${EMAIL} `, 'Guichet-Demo-2026!');
    await waitFor(() => expect(submitted).toHaveLength(1));
    const form = submitted[0] as HTMLFormElement;
    expect(form.method).toBe('post');
    expect(new URL(form.action).pathname).toBe('/pkmslogin.form');
    expect(postedEntries(form)).toEqual(ssoFields({ username: EMAIL, password: 'Guichet-Demo-2026!', ticket: 'ticket-1' }));
    expect(postedEntries(form)[0]).toEqual(['login-form-type', 'pwd']);
    expect(readCookies().pkms).toBe('acc-1');
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /api/v1/accounts/find',
      'POST /api/v1/accounts/acc-1/authentication',
    ]);
    expect(calls[0]?.body).toEqual({ email: EMAIL });
    expect(calls[0]?.headers).toMatchObject({ 'X-API-KEY': 'belair-test-key', province: 'ON', language: 'en' });
    expect(screen.getByRole('button', { name: 'Sign in' }).hasAttribute('disabled')).toBe(true);
  });

  it('posts to the French SSO URL in French', async () => {
    const brand = { ...belair, sso: { loginUrl: { en: '/sso/en', fr: '/sso/fr' }, external: false } };
    fakeApi({
      'POST /api/v1/accounts/find': found('A'),
      'POST /api/v1/accounts/acc-1/authentication': { status: 200, body: { loginTicket: 't' } },
    });
    await renderApp(siteConfig({ brand, province: 'qc', language: 'fr' }), '/');
    await screen.findByRole('heading', { level: 1, name: 'Connectez-vous à votre compte' });
    fireEvent.change(screen.getByLabelText('Adresse courriel'), { target: { value: EMAIL } });
    fireEvent.change(screen.getByLabelText('Mot de passe'), { target: { value: 'x' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Se connecter' })));
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(new URL((submitted[0] as HTMLFormElement).action).pathname).toBe('/sso/fr');
  });

  it('a sign-in shed under load (429 BUSY) says so on the form, counts no failure, and the next submit goes through', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0); // a limit of 3 failures
    let busy = 3;
    const calls = await openLogin({
      'POST /api/v1/accounts/find': found('A'),
      'POST /api/v1/accounts/acc-1/authentication': () =>
        busy-- > 0 ? { status: 429, body: { errorCode: 'BUSY', messageKey: 'error.busy' } } : { status: 200, body: { loginTicket: 'ticket-1' } },
    });
    await refusedThrice('The service is busy. Try again in a few seconds.');
    await signIn(EMAIL, 'Guichet-Demo-2026!');
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(calls.filter((c) => c.path.endsWith('/authentication'))).toHaveLength(4);
  });

  it('status T: the temporary password is checked, held for /reset, and the visitor goes to /reset', async () => {
    const calls = await openLogin({
      'POST /api/v1/accounts/find': found('T'),
      'POST /api/v1/accounts/acc-1/temporary': { status: 200, body: {} },
    });
    await signIn(EMAIL, 'Temp-Pass-2026');
    await waitFor(() => expect(where()).toBe('/reset'));
    expect(calls[1]).toMatchObject({ path: '/api/v1/accounts/acc-1/temporary', body: { tempPassword: 'Temp-Pass-2026' } });
    expect(readFlow().resetPassword).toMatchObject({ id: 'acc-1', email: EMAIL, temp: 'Temp-Pass-2026', isTempPWD: true });
    expect(JSON.parse(sessionStorage.getItem('guichet.flow') ?? '{}').resetPassword.temp).toBe('Temp-Pass-2026');
    expect(submitted).toEqual([]);
  });

  it('status T: a wrong temporary password shows the login error; the server 409 shows the temporary roadblock', async () => {
    let tries = 0;
    await openLogin({
      'POST /api/v1/accounts/find': found('T'),
      'POST /api/v1/accounts/acc-1/temporary': () =>
        ++tries < 3 ? wrongPassword : { status: 409, body: { errorCode: 'TEMPORARY_PASSWORD_INVALID' } },
    });
    vi.spyOn(Math, 'random').mockReturnValue(0.99);
    await signIn(EMAIL, 'wrong-1');
    await screen.findByText('The email or password is incorrect. Please try again.');
    await signIn(EMAIL, 'wrong-2');
    await signIn(EMAIL, 'wrong-3');
    await waitFor(() => expect(where()).toBe('/roadblock/temporary'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Your temporary password no longer works' })).toBeTruthy();
  });

  it('checks the fields before any call', async () => {
    const calls = await openLogin({});
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Sign in' })));
    const summary = await screen.findByRole('alert', { name: 'Please correct the following errors' });
    expect(within(summary).getAllByRole('link').map((a) => a.textContent)).toEqual(['Enter your email address.', 'Enter your password.']);
    expect(calls).toEqual([]);
  });

  it('remember me: fills the email from the cookie, forgets it when unticked, keeps it when ticked', async () => {
    document.cookie = `email=${encodeURIComponent('kept@belair.example')}; Path=/`;
    await openLogin({
      'POST /api/v1/accounts/find': found('A'),
      'POST /api/v1/accounts/acc-1/authentication': wrongPassword,
    });
    expect((screen.getByLabelText('Email address') as HTMLInputElement).value).toBe('kept@belair.example');
    const remember = screen.getByRole('checkbox', { name: 'Remember me' }) as HTMLInputElement;
    expect(remember.checked).toBe(true);

    fireEvent.click(remember);
    expect(readCookies().email).toBeUndefined();

    await signIn(EMAIL, 'Wrong-1');
    await screen.findByText('The email or password is incorrect. Please try again.');
    expect(readCookies().email).toBeUndefined();

    fireEvent.click(remember);
    await signIn(EMAIL, 'Wrong-2');
    expect(readCookies().email).toBe(EMAIL);
  });

  it('without the cookie the email is empty and the box unticked', async () => {
    await openLogin({});
    expect((screen.getByLabelText('Email address') as HTMLInputElement).value).toBe('');
    expect((screen.getByRole('checkbox', { name: 'Remember me' }) as HTMLInputElement).checked).toBe(false);
  });

  it('create account: smart registration for the flag once it is built, legacy registration otherwise', () => {
    expect(createAccountPath(true, true)).toBe('/create-an-account/identification/account-type');
    expect(createAccountPath(false, true)).toBe('/registration/identification');
    expect(createAccountPath(false, false)).toBe('/registration/identification');
  });

  // Issue 15: the brands with the flag on go to smart registration's account type; the others to legacy registration.
  it.each([
    { registration: true, href: '/create-an-account/identification/account-type' },
    { registration: false, href: '/registration/identification' },
  ])('create account goes to $href when the registration flag is $registration', async ({ registration, href }) => {
    expect(createAccountPath(registration)).toBe(href);
    const brand = { ...belair, features: { ...belair.features, registration } };
    await openLogin({}, siteConfig({ brand }));
    expect(screen.getByRole('link', { name: 'Create an account' }).getAttribute('href')).toBe(href);
    expect(screen.getByRole('link', { name: 'Forgot your password?' }).getAttribute('href')).toBe('/forgot');
  });

  it('shows the login error /webseal.do asked for, once', async () => {
    updateFlow({ loginError: true });
    await openLogin({});
    await screen.findByText('The email or password is incorrect. Please try again.');
    expect(readFlow().loginError).toBe(false);
  });

  it('a back press pushes a history state and stays on the page', async () => {
    const before = window.history.length;
    await openLogin({});
    expect(window.history.length).toBe(before + 1);
    await act(async () => {
      window.history.replaceState(null, '', '/');
      window.dispatchEvent(new PopStateEvent('popstate', { state: null }));
    });
    expect(window.history.length).toBe(before + 2);
    expect(where()).toBe('/');
    expect(screen.getByRole('heading', { level: 1, name: 'Sign in to your account' })).toBeTruthy();
  });

  it('a server error code of spec §8 opens the soft roadblock, and closing it returns the focus', async () => {
    await openLogin({
      'POST /api/v1/accounts/find': found('A'),
      'POST /api/v1/accounts/acc-1/authentication': { status: 400, body: { errorCode: '5001' } },
    });
    fireEvent.change(screen.getByLabelText('Email address'), { target: { value: EMAIL } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'x' } });
    const button = screen.getByRole('button', { name: 'Sign in' });
    button.focus();
    await act(async () => fireEvent.click(button));
    const dialog = await screen.findByRole('dialog', { name: "It's not you, it's us" });
    expect(within(dialog).getByText('Error code: lnr500120')).toBeTruthy();
    expect(within(dialog).getByRole('link', { name: '1 833-000-0102' }).getAttribute('href')).toBe('tel:+18330000102');
    expect(within(dialog).getByText('Monday to Friday')).toBeTruthy();
    const close = within(dialog).getByRole('button', { name: 'Close' });
    expect(document.activeElement).toBe(close);
    await act(async () => fireEvent.click(close));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(button);
    expect(where()).toBe('/');
  });

  it.each(['POST /api/v1/accounts/find', 'POST /api/v1/accounts/acc-1/authentication'])(
    'maintenance (503 MAINTENANCE) from %s goes to the maintenance roadblock with the flag',
    async (call) => {
      const maintenance = { status: 503, body: { errorCode: 'MAINTENANCE', messageKey: 'error.maintenance' } };
      await openLogin({ 'POST /api/v1/accounts/find': found('A'), [call]: maintenance });
      await signIn(EMAIL, 'Correct-Horse-9!');
      await waitFor(() => expect(where()).toBe('/roadblock/maintenance'));
      expect(readFlow().roadblocked).toBe(true);
      expect(await screen.findByRole('heading', { level: 1, name: 'Our site is under maintenance' })).toBeTruthy();
    },
  );

  it('a call without an answer (network) goes to the technical roadblock', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('network'))));
    await renderApp(siteConfig(), '/');
    await signIn(EMAIL, 'x');
    await waitFor(() => expect(where()).toBe('/roadblock/technical'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Something went wrong' })).toBeTruthy();
  });
});

// Issue 12: the per-address limits of find and authentication are no outage.
describe('429 RATE_LIMITED on the login', () => {
  const limited = { status: 429, body: { errorCode: 'RATE_LIMITED', messageKey: 'error.rateLimited' }, headers: { 'Retry-After': '61' } };
  it.each<{ step: string; routes: FakeRoutes }>([
    { step: 'find', routes: { 'POST /api/v1/accounts/find': limited } },
    { step: 'authentication', routes: { 'POST /api/v1/accounts/find': found('A'), 'POST /api/v1/accounts/acc-1/authentication': limited } },
  ])('after $step: the form says how long to wait, counts no failure, and no roadblock shows', async ({ routes }) => {
    vi.spyOn(Math, 'random').mockReturnValue(0); // a limit of 3 failures
    await openLogin(routes);
    await refusedThrice('Too many tries from this connection. Try again in 2 minutes.');
    expect(submitted).toEqual([]);
  });
});
