import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { readResetProgress, startReset, tokenReceived, updateResetProgress } from '@/lib/flow/reset-state';
import { holdTemporaryPassword, readFlow } from '@/lib/flow/state';
import { fakeApi, type FakeAnswer, type FakeCall, type FakeRoutes } from '@/lib/flow/testing';
import { renderApp } from '@/test/render';
import { submittedForms } from '@/test/flow-hooks';
import { click, type, where } from '@/test/page';
import { belair, siteConfig } from '@/test/site-fixture';
import { ssoFields } from '@/lib/flow/sso-form';
import { leavePage, postedEntries } from '@/test/sso-post';
import { MAX_RESENDS, MIN_SPINNER_MS } from './limits';
import { recoveryRoadblock, type RecoveryCall } from './use-recovery-response';
import { fullText } from '@/test/text';

const EMAIL = 'demo@belair.example';
const NEW_PASSWORD = 'Brand-New-Pass-77';
const REQUEST = 'POST /api/v1/accounts/password-reset';
const VALIDATE = 'POST /api/v1/accounts/acc-1/validations/v1/';
const PASSWORD = 'POST /api/v1/accounts/acc-1/password';
const LINK = 'POST /api/v1/accounts/password-reset/link';
const resendPath = (validationId: string) => `POST /api/v1/accounts/acc-1/password-reset/${validationId}/resend`;

const wrongCode: FakeAnswer = { status: 400, body: { errorCode: 'INVALID_ACTIVATION_CODE', messageKey: 'code.validation.wrong' } };
const verified = (ubiDriver = false): FakeAnswer => ({
  status: 200,
  body: { id: 'acc-1', action: 'reset-password-login', token: 'reset-token', ubiDriver },
});
const changed: FakeAnswer = { status: 200, body: { email: EMAIL } };

const submitted = submittedForms();

const categories = () => (window.dataLayer ?? []).map((e) => [(e as { path: string }).path, (e as { pageCategory: string }).pageCategory]);

/** The state /forgot leaves for /verify. */
function requested() {
  startReset({ id: 'acc-1', validationId: 'v1', email: EMAIL });
}

async function open(url: string, routes: FakeRoutes, heading: string) {
  const calls = fakeApi(routes);
  await renderApp(siteConfig({ brand: belair }), url);
  await screen.findByRole('heading', { level: 1, name: heading });
  return calls;
}

/** /verify's message after a wrong code: from the second one on, with the tries left (5 a code on the server). */
function wrongCodeText(attempt: number, left: number): string {
  if (attempt < 2 || left < 1) return 'The security code is incorrect. Try again.';
  return `The security code is incorrect. Try again. You have ${left} ${left === 1 ? 'try' : 'tries'} left.`;
}

async function submitCode(code: string) {
  type('Security code', code);
  await click('Continue');
}

describe('recoveryRoadblock', () => {
  const cases: { call: RecoveryCall; status: number; code?: string; page: string | null }[] = [
    { call: 'reset-code', status: 403, code: 'EXCEEDED_RETRIES_CODE_ACTIVATION', page: 'resend-code' },
    { call: 'reset-code', status: 403, code: 'CODE_EXPIRED', page: 'resend-code' },
    { call: 'reset-code', status: 403, code: '3001', page: null },
    { call: 'reset-code', status: 400, code: 'INVALID_ACTIVATION_CODE', page: null },
    { call: 'reset-resend', status: 409, code: 'RESEND_LIMIT_REACHED', page: 'resend-reset-password' },
    { call: 'reset-resend', status: 409, code: 'RESET_CLOSED', page: 'resend-reset-password' },
    { call: 'reset-resend', status: 404, code: 'RESET_NOT_FOUND', page: 'resend-reset-password' },
    { call: 'reset-resend', status: 429, code: 'RATE_LIMITED', page: null },
    { call: 'password', status: 409, code: 'TEMPORARY_PASSWORD_INVALID', page: 'temporary' },
    { call: 'password', status: 409, code: 'OTHER', page: null },
    { call: 'password', status: 403, code: '3004', page: null },
    { call: 'reset-link', status: 403, code: '3004', page: null },
    { call: 'reset-request', status: 409, code: 'RESEND_LIMIT_REACHED', page: null },
  ];
  it.each(cases)('$call $status $code -> $page', ({ call, status, code, page }) => {
    expect(recoveryRoadblock({ status, data: code ? { errorCode: code } : undefined }, call)).toBe(page);
  });
});

describe('/forgot', () => {
  it('asks for a code and moves on to /verify with the request ids', async () => {
    const calls = await open('/forgot', { [REQUEST]: { status: 200, body: { id: 'acc-1', validationId: 'v1' } } }, 'Forgot your password?');
    type('Email address', `  ${EMAIL} `);
    await click('Send me a code');
    await screen.findByRole('heading', { level: 1, name: 'Enter your security code' });
    expect(where()).toBe('/verify');
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([REQUEST]);
    expect(calls[0]?.body).toEqual({ email: EMAIL });
    expect(calls[0]?.headers).toMatchObject({ 'X-API-KEY': 'belair-test-key', province: 'ON', language: 'en' });
    expect(readFlow().resetPassword).toMatchObject({ id: 'acc-1', validationId: 'v1', emailResetPWD: EMAIL });
    expect(readResetProgress().verifyFrom).toBe('/forgot');
    expect(screen.getByText(fullText(`If an online account uses ${EMAIL}, we’ve sent it an email with a 6-digit code. The code expires in 10 minutes.`))).toBeTruthy();
    // The page view is pushed by an effect, which may run just after the heading shows.
    await waitFor(() =>
      expect(categories()).toEqual([
        ['/forgot', 'forgot-password'],
        ['/verify', 'forgot-password'],
      ]),
    );
  });

  it('checks the email before any call, and shows the server rule on the field', async () => {
    const calls = await open('/forgot', { [REQUEST]: { status: 400, body: { errorCode: 'errorEmailFormat', fields: { email: 'errorEmailFormat' } } } }, 'Forgot your password?');
    await click('Send me a code');
    expect(await screen.findByRole('alert', { name: 'Please correct the following errors' })).toBeTruthy();
    expect(calls).toEqual([]);
    type('Email address', 'someone@belair.example');
    await click('Send me a code');
    await waitFor(() => expect(screen.getByLabelText('Email address').getAttribute('aria-invalid')).toBe('true'));
    expect(screen.getAllByText('Enter a valid email address, for example name@example.com.').length).toBeGreaterThan(0);
    expect(where()).toBe('/forgot');
  });

  it('has a link back to the login', async () => {
    await open('/forgot', {}, 'Forgot your password?');
    expect(screen.getByRole('link', { name: 'Back to login' }).getAttribute('href')).toBe('/');
  });
});

describe('/verify', () => {
  it.each([
    { name: 'no reset under way', setup: () => undefined },
    { name: 'a request, but not entered from /forgot, / or /reset', setup: () => (requested(), updateResetProgress({ verifyFrom: null })) },
  ])('opened with $name, redirects to /', async ({ setup }) => {
    setup();
    await open('/verify', {}, 'Sign in to your account');
    expect(where()).toBe('/');
  });

  it.each(['/', '/reset'] as const)('is reachable from %s', async (from) => {
    requested();
    updateResetProgress({ verifyFrom: from });
    await open('/verify', {}, 'Enter your security code');
    expect(where()).toBe('/verify');
  });

  it.each([
    { random: 0, limit: 3 },
    { random: 0.99, limit: 6 },
  ])('counts wrong codes up to the drawn limit ($limit), then the resend-code roadblock', async ({ random, limit }) => {
    vi.spyOn(Math, 'random').mockReturnValue(random);
    requested();
    const calls = await open('/verify', { [VALIDATE]: wrongCode }, 'Enter your security code');
    for (let attempt = 1; attempt < limit; attempt++) {
      await submitCode(`00000${attempt}`);
      await screen.findByText(wrongCodeText(attempt, Math.min(limit, 5) - attempt));
      expect(where()).toBe('/verify');
      expect((screen.getByLabelText('Security code') as HTMLInputElement).value).toBe('');
      expect(document.activeElement).toBe(screen.getByLabelText('Security code'));
    }
    await submitCode('999999');
    await screen.findByRole('heading', { level: 1, name: 'Too many attempts' });
    expect(where()).toBe('/roadblock/resend-code');
    expect(readFlow().roadblocked).toBe(true);
    expect(calls).toHaveLength(limit);
    expect(calls[0]?.body).toEqual({ validationValue: '000001' });
    expect(readResetProgress().verifyFrom).toBeNull();
  });

  // Issue 12 defect 8: the roadblock came without warning after the last wrong code.
  it.each([
    { random: 0, limit: 3, messages: ['The security code is incorrect. Try again.', 'The security code is incorrect. Try again. You have 1 try left.'] },
    {
      random: 0.99,
      limit: 6,
      messages: [
        'The security code is incorrect. Try again.',
        'The security code is incorrect. Try again. You have 3 tries left.',
        'The security code is incorrect. Try again. You have 2 tries left.',
        'The security code is incorrect. Try again. You have 1 try left.',
      ],
    },
  ])('from the second wrong code on, says how many tries are left (limit $limit, the server’s 5 guesses)', async ({ random, messages }) => {
    vi.spyOn(Math, 'random').mockReturnValue(random);
    requested();
    await open('/verify', { [VALIDATE]: wrongCode }, 'Enter your security code');
    for (const [i, message] of messages.entries()) {
      await submitCode(`00000${i + 1}`);
      await screen.findByText(message);
    }
    expect(where()).toBe('/verify');
  });

  it('says the tries left in French, singular and plural', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.99);
    requested();
    fakeApi({ [VALIDATE]: wrongCode });
    await renderApp(siteConfig({ brand: belair, province: 'qc', language: 'fr' }), '/verify');
    await screen.findByRole('heading', { level: 1, name: 'Entrez votre code de sécurité' });
    const codeField = () => screen.getByLabelText('Code de sécurité');
    const expected = [
      'Le code de sécurité est incorrect. Réessayez.',
      'Le code de sécurité est incorrect. Réessayez. Il vous reste 3\u00a0essais.',
      'Le code de sécurité est incorrect. Réessayez. Il vous reste 2\u00a0essais.',
      'Le code de sécurité est incorrect. Réessayez. Il vous reste 1\u00a0essai.',
    ];
    for (const [i, message] of expected.entries()) {
      fireEvent.change(codeField(), { target: { value: `00000${i + 1}` } });
      await click('Continuer');
      // textContent: the query's matcher would fold the non-breaking space the typography needs.
      await waitFor(() => expect(document.querySelector('form .form-alert')?.textContent).toBe(message));
    }
  });

  // Issue 12 defect 9: the emptied field said 'Enter the 6-digit security code' when tabbed away, and kept it after a resend.
  it('after a wrong code, shows the server’s message only: leaving the emptied field adds none, and a resend clears them', async () => {
    requested();
    await open('/verify', { [VALIDATE]: wrongCode, [resendPath('v1')]: { status: 200, body: { id: 'acc-1', validationId: 'v2' } } }, 'Enter your security code');
    await submitCode('000001');
    await screen.findByText('The security code is incorrect. Try again.');
    const field = screen.getByLabelText('Security code');
    act(() => fireEvent.blur(field));
    expect(screen.queryByText('Enter the 6-digit security code.')).toBeNull();
    expect(field.getAttribute('aria-invalid')).toBeNull();
    expect(screen.getByText('The security code is incorrect. Try again.')).toBeTruthy();

    // A submit of the empty field says it is required; a new code clears every message.
    await click('Continue');
    expect(field.getAttribute('aria-invalid')).toBe('true');
    await click('Send a new code');
    await screen.findByText('We’ve sent you a new code. Only the newest code works.');
    expect(screen.queryByText('Enter the 6-digit security code.')).toBeNull();
    expect(screen.queryByText('The security code is incorrect. Try again.')).toBeNull();
    expect(field.getAttribute('aria-invalid')).toBeNull();
    act(() => fireEvent.blur(field));
    expect(field.getAttribute('aria-invalid')).toBeNull();
  });

  it.each(['EXCEEDED_RETRIES_CODE_ACTIVATION', 'CODE_EXPIRED'])('the server refusing the code (403 %s) is the resend-code roadblock', async (code) => {
    requested();
    await open('/verify', { [VALIDATE]: { status: 403, body: { errorCode: code } } }, 'Enter your security code');
    await submitCode('123456');
    await screen.findByRole('heading', { level: 1, name: 'Too many attempts' });
    expect(where()).toBe('/roadblock/resend-code');
  });

  it.each([
    { ubiDriver: false, proof: 'Postal code' },
    { ubiDriver: true, proof: 'Cell phone number' },
  ])('the right code goes to /reset asking for the $proof', async ({ ubiDriver, proof }) => {
    requested();
    await open('/verify', { [VALIDATE]: verified(ubiDriver) }, 'Enter your security code');
    await submitCode('123456');
    await screen.findByRole('heading', { level: 1, name: 'Choose a new password' });
    expect(where()).toBe('/reset');
    expect(screen.getByLabelText(proof)).toBeTruthy();
    expect(screen.queryByLabelText(ubiDriver ? 'Postal code' : 'Cell phone number')).toBeNull();
    expect(readResetProgress()).toMatchObject({ token: 'reset-token', ubiDriver });
    // The page view is pushed by an effect, which may run just after the heading shows.
    await waitFor(() =>
      expect(categories()).toEqual([
        ['/verify', 'forgot-password'],
        ['/reset', 'forgot-password'],
      ]),
    );
  });

  it('resends up to 4 codes, each with a spinner of at least a second, then the resend-reset-password roadblock', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    requested();
    let n = 1;
    const resend = () => ({ status: 200, body: { id: 'acc-1', validationId: `v${++n}` } });
    const routes: FakeRoutes = {};
    for (let i = 1; i <= MAX_RESENDS; i++) routes[resendPath(`v${i}`)] = resend;
    routes['POST /api/v1/accounts/acc-1/validations/v5/'] = wrongCode;
    const calls = await open('/verify', routes, 'Enter your security code');

    for (let i = 1; i <= MAX_RESENDS; i++) {
      type('Security code', '12');
      const link = screen.getByRole('button', { name: 'Send a new code' });
      await act(async () => fireEvent.click(link));
      const busy = screen.getByRole('button', { name: 'Sending a new code…' });
      expect(busy.getAttribute('aria-busy')).toBe('true');
      // The answer came at once; the spinner stays until the second is over.
      await act(async () => vi.advanceTimersByTimeAsync(MIN_SPINNER_MS - 100));
      expect(screen.getByRole('button', { name: 'Sending a new code…' })).toBeTruthy();
      await act(async () => vi.advanceTimersByTimeAsync(100));
      await screen.findByRole('button', { name: 'Send a new code' });
      expect(screen.getByRole('status').textContent).toBe('We’ve sent you a new code. Only the newest code works.');
      expect((screen.getByLabelText('Security code') as HTMLInputElement).value).toBe('');
      expect(readFlow().resetPassword?.validationId).toBe(`v${i + 1}`);
      expect(readResetProgress().resends).toBe(i);
    }
    // The newest validation id is the one checked.
    await submitCode('123456');
    await screen.findByText('The security code is incorrect. Try again.');
    expect(calls.at(-1)?.path).toBe('/api/v1/accounts/acc-1/validations/v5/');

    await click('Send a new code');
    await screen.findByRole('heading', { level: 1, name: "We can't send another code" });
    expect(where()).toBe('/roadblock/resend-reset-password');
    expect(calls.filter((c: FakeCall) => c.path.endsWith('/resend'))).toHaveLength(MAX_RESENDS);
  });

  it.each([
    { status: 409, code: 'RESEND_LIMIT_REACHED' },
    { status: 409, code: 'RESET_CLOSED' },
    { status: 404, code: 'RESET_NOT_FOUND' },
  ])('a resend the server refuses ($status $code) is the resend-reset-password roadblock', async ({ status, code }) => {
    requested();
    await open('/verify', { [resendPath('v1')]: { status, body: { errorCode: code } } }, 'Enter your security code');
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await click('Send a new code');
    await screen.findByRole('heading', { level: 1, name: "We can't send another code" });
    expect(readFlow().roadblocked).toBe(true);
    expect(readResetProgress().verifyFrom).toBeNull(); // back from the roadblock, /verify redirects to /
    // The spinner's second ends after the page was left: it must not touch a
    // recovery started since (it closed the next test's /verify, issue 12).
    requested();
    await act(async () => vi.advanceTimersByTimeAsync(MIN_SPINNER_MS));
    expect(readResetProgress().verifyFrom).toBe('/forgot');
  });

  it('the back link returns to /forgot with the email, and /verify is closed behind it', async () => {
    requested();
    await open('/verify', {}, 'Enter your security code');
    await act(async () => fireEvent.click(screen.getByRole('link', { name: 'Use another email address' })));
    await screen.findByRole('heading', { level: 1, name: 'Forgot your password?' });
    expect((screen.getByLabelText('Email address') as HTMLInputElement).value).toBe(EMAIL);
    await act(async () => window.history.back());
    await waitFor(() => expect(where()).toBe('/'));
  });
});

describe('/reset', () => {
  /** The state a right code leaves. */
  function codeAccepted(ubiDriver: boolean) {
    requested();
    tokenReceived({ id: 'acc-1', token: 'reset-token', ubiDriver });
  }

  async function choose(password: string, confirmation = password) {
    type('New password', password);
    type('Confirm your new password', confirmation);
    await click('Save my new password');
  }

  it('without a reset under way, redirects to /', async () => {
    await open('/reset', {}, 'Sign in to your account');
    expect(where()).toBe('/');
  });

  it('temporary variant: the new password only; sends it with the temporary password, then signs in through the SSO', async () => {
    holdTemporaryPassword({ id: 'acc-1', email: EMAIL }, 'Temp-Pass-2026');
    const calls = await open('/reset', { [PASSWORD]: changed }, 'Choose a new password');
    expect(screen.getByText('You used a temporary password. Choose a new password to protect your account.')).toBeTruthy();
    expect(screen.queryByLabelText('Postal code')).toBeNull();
    expect(screen.queryByLabelText('Cell phone number')).toBeNull();
    await choose(NEW_PASSWORD);
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(calls[0]?.body).toEqual({ password: NEW_PASSWORD, tempPassword: 'Temp-Pass-2026' });
    const form = submitted[0] as HTMLFormElement;
    expect(form.method).toBe('post');
    expect(new URL(form.action).pathname).toBe('/pkmslogin.form');
    expect(postedEntries(form)).toEqual(ssoFields({ username: EMAIL, password: NEW_PASSWORD }));
    // Kept until the page goes (forgetOnLeaving).
    expect(readFlow().resetPassword).not.toBeNull();
    leavePage();
    expect(readFlow().resetPassword).toBeNull();
    expect(screen.getByRole('button', { name: 'Save my new password' }).hasAttribute('disabled')).toBe(true);
  });

  it.each([
    { ubiDriver: false, label: 'Postal code', typed: 'h2x1y4', sent: { postalCode: 'H2X 1Y4' } },
    { ubiDriver: true, label: 'Cell phone number', typed: '514-555-0123', sent: { cellPhone: '5145550123' } },
  ])('token variant ($label): sends the token, the proof and the password', async ({ ubiDriver, label, typed, sent }) => {
    codeAccepted(ubiDriver);
    const calls = await open('/reset', { [PASSWORD]: changed }, 'Choose a new password');
    type(label, typed);
    await choose(NEW_PASSWORD);
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(calls[0]?.body).toEqual({ password: NEW_PASSWORD, token: 'reset-token', ...sent });
    leavePage();
    expect(readResetProgress().token).toBeNull();
  });

  it('checks the rules of spec §5 before any call, the email part included', async () => {
    codeAccepted(false);
    const calls = await open('/reset', {}, 'Choose a new password');
    type('Postal code', 'H2X1Y4');
    await choose('short', 'other');
    const summary = await screen.findByRole('alert', { name: 'Please correct the following errors' });
    expect(within(summary).getAllByRole('link').map((a) => a.textContent)).toEqual([
      'Your password must have 10 to 64 characters, with at least one uppercase letter, one lowercase letter, one digit and one special character.',
      'The passwords do not match.',
    ]);
    await choose('Demo-Belair-2026!');
    await within(await screen.findByRole('alert', { name: 'Please correct the following errors' })).findByText(
      'Your password must not contain part of your email address.',
    );
    expect(calls).toEqual([]);
  });

  it.each([
    { answer: { errorCode: '1002', fields: { postalCode: 'resetPassword.wrongPostalCode' } }, field: 'Postal code', message: 'This postal code doesn’t match our records.' },
    { answer: { errorCode: '1002' }, field: 'Postal code', message: "The postal code or phone number doesn't match our records." },
    { answer: { errorCode: '2001', fields: { password: 'errorPasswordCommon' } }, field: 'New password', message: 'This password is too common. Choose another one.' },
    { answer: { errorCode: '2001' }, field: 'New password', message: "This password doesn't meet the password rules." },
    { answer: { errorCode: '2002', fields: { password: 'errorPasswordContainsEmail' } }, field: 'New password', message: 'Your password must not contain part of your email address.' },
    { answer: { errorCode: 'errorPostalCodeFormat', fields: { postalCode: 'errorPostalCodeFormat' } }, field: 'Postal code', message: 'Enter a valid postal code, for example H2X 1Y4.' },
  ])('400 $answer.errorCode shows on the $field field', async ({ answer, field, message }) => {
    codeAccepted(false);
    await open('/reset', { [PASSWORD]: { status: 400, body: answer } }, 'Choose a new password');
    type('Postal code', 'H2X 1Y4');
    await choose(NEW_PASSWORD);
    const input = screen.getByLabelText(field);
    await waitFor(() => expect(input.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById(input.getAttribute('aria-describedby')?.split(' ').at(-1) ?? '')?.textContent).toContain(message);
    expect(document.activeElement).toBe(input);
    expect(submitted).toEqual([]);
    expect(where()).toBe('/reset');
  });

  it.each([
    { variant: 'token', start: () => codeAccepted(false) },
    { variant: 'temporary', start: () => holdTemporaryPassword({ id: 'acc-1', email: EMAIL }, 'Temp-Pass-2026') },
  ])('$variant variant: 429 BUSY (shed under load) says so on the form, and the next submit goes through', async ({ variant, start }) => {
    start();
    let busy = true;
    const calls = await open(
      '/reset',
      { [PASSWORD]: () => (busy ? ((busy = false), { status: 429, body: { errorCode: 'BUSY', messageKey: 'error.busy' } }) : changed) },
      'Choose a new password',
    );
    if (variant === 'token') type('Postal code', 'H2X 1Y4');
    await choose(NEW_PASSWORD);
    await within(screen.getByRole('form')).findByText('The service is busy. Try again in a few seconds.');
    expect(screen.getByText('The service is busy. Try again in a few seconds.').closest('[role="alert"]')).toBeTruthy();
    expect(where()).toBe('/reset');
    expect(submitted).toEqual([]);
    await click('Save my new password');
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(calls).toHaveLength(2);
  });

  it('403 3004 (the reset token died) is the token-expired roadblock', async () => {
    codeAccepted(false);
    await open('/reset', { [PASSWORD]: { status: 403, body: { errorCode: '3004' } } }, 'Choose a new password');
    type('Postal code', 'H2X 1Y4');
    await choose(NEW_PASSWORD);
    await screen.findByRole('heading', { level: 1, name: 'This link has expired' });
    expect(where()).toBe('/roadblock/token-expired');
  });

  it('temporary variant: 409 TEMPORARY_PASSWORD_INVALID is the temporary roadblock; 3005 returns to the login with its error', async () => {
    holdTemporaryPassword({ id: 'acc-1', email: EMAIL }, 'Temp-Pass-2026');
    await open('/reset', { [PASSWORD]: { status: 409, body: { errorCode: 'TEMPORARY_PASSWORD_INVALID' } } }, 'Choose a new password');
    await choose(NEW_PASSWORD);
    await screen.findByRole('heading', { level: 1, name: 'Your temporary password no longer works' });
  });

  it('temporary variant: a temporary password the server no longer takes (400 3005) returns to the login with its error', async () => {
    holdTemporaryPassword({ id: 'acc-1', email: EMAIL }, 'Temp-Pass-2026');
    await open('/reset', { [PASSWORD]: { status: 400, body: { errorCode: '3005' } } }, 'Choose a new password');
    await choose(NEW_PASSWORD);
    await screen.findByRole('heading', { level: 1, name: 'Sign in to your account' });
    await screen.findByText('The email or password is incorrect. Please try again.');
    expect(readFlow().resetPassword).toBeNull();
  });

  it('/reset?token= trades the link for a reset token once, drops it from the address, and asks for the proof', async () => {
    const calls = await open('/reset?token=link-token', { [LINK]: verified(true), [PASSWORD]: changed }, 'Choose a new password');
    expect(where()).toBe('/reset');
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([LINK]);
    expect(calls[0]?.body).toEqual({ token: 'link-token' });
    type('Cell phone number', '5145550123');
    await choose(NEW_PASSWORD);
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(calls[1]?.body).toEqual({ password: NEW_PASSWORD, token: 'reset-token', cellPhone: '5145550123' });
  });

  it('/reset?token= with a dead link (403 3004) is the token-expired roadblock', async () => {
    await open('/reset?token=dead', { [LINK]: { status: 403, body: { errorCode: '3004' } } }, 'This link has expired');
    expect(where()).toBe('/roadblock/token-expired');
  });
});

// Issue 12: a per-address limit (a household, a mobile carrier) is no outage:
// every recovery form says how long to wait, in an alert, and stays put.
describe('429 RATE_LIMITED', () => {
  const limited = (retryAfter: string): FakeAnswer => ({
    status: 429,
    body: { errorCode: 'RATE_LIMITED', messageKey: 'error.rateLimited' },
    headers: { 'Retry-After': retryAfter },
  });
  const expectMessage = async (text: string, path: string) => {
    // Exact text: the default matcher would read a non-breaking space as a space.
    const alert = await screen.findByText(text, { normalizer: (s) => s });
    expect(alert.closest('[role="alert"]')).toBeTruthy();
    expect(where()).toBe(path);
    expect(readFlow().roadblocked).not.toBe(true);
  };

  it('/forgot', async () => {
    await open('/forgot', { [REQUEST]: limited('541') }, 'Forgot your password?');
    type('Email address', EMAIL);
    await click('Send me a code');
    await expectMessage('Too many tries from this connection. Try again in 10 minutes.', '/forgot');
  });

  it('/verify: the code and the resend', async () => {
    requested();
    await open('/verify', { [VALIDATE]: limited('60'), [resendPath('v1')]: limited('120') }, 'Enter your security code');
    await submitCode('123456');
    await expectMessage('Too many tries from this connection. Try again in 1 minute.', '/verify');
    // Fake timers only for the resend's spinner: installed before the page's
    // lazy route had rendered, they sometimes held its first render back.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await click('Send a new code');
    // The resend's spinner shows for MIN_SPINNER_MS whatever the answer.
    await act(async () => vi.advanceTimersByTimeAsync(MIN_SPINNER_MS));
    await expectMessage('Too many tries from this connection. Try again in 2 minutes.', '/verify');
  });

  it('/reset', async () => {
    requested();
    tokenReceived({ id: 'acc-1', token: 'reset-token', ubiDriver: false });
    await open('/reset', { [PASSWORD]: limited('300') }, 'Choose a new password');
    type('Postal code', 'H2X 1Y4');
    type('New password', NEW_PASSWORD);
    type('Confirm your new password', NEW_PASSWORD);
    await click('Save my new password');
    await expectMessage('Too many tries from this connection. Try again in 5 minutes.', '/reset');
    expect(submitted).toEqual([]);
  });

  it('/reset?token=: the link is not used, the page says how long to wait', async () => {
    const calls = await open('/reset?token=link-token', { [LINK]: limited('600') }, 'Checking your link…');
    await expectMessage('Too many tries from this connection. Try again in 10 minutes.', '/reset?token=link-token');
    expect(calls).toHaveLength(1);
  });

  it('in French, with a non-breaking space before « minutes »', async () => {
    fakeApi({ [REQUEST]: limited('180') });
    await renderApp(siteConfig({ brand: belair, province: 'qc', language: 'fr' }), '/forgot');
    await screen.findByRole('heading', { level: 1, name: 'Mot de passe oublié\u00a0?' });
    fireEvent.change(screen.getByLabelText('Adresse courriel'), { target: { value: EMAIL } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'M’envoyer un code' })));
    await expectMessage('Trop de tentatives ont été faites à partir de votre connexion. Réessayez dans 3\u00a0minutes.', '/forgot');
  });
});
