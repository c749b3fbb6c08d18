import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadSection } from '@/i18n/section';
import { forgetPages } from '@/lib/flow/previous-page';
import { readFlow, updateFlow, type SmartOption, type SmartRegistrationState } from '@/lib/flow/state';
import { ssoFields } from '@/lib/flow/sso-form';
import { leavePage, postedEntries } from '@/test/sso-post';
import { fakeApi, type FakeAnswer, type FakeCall, type FakeRoutes } from '@/lib/flow/testing';
import { renderApp } from '@/test/render';
import { submittedForms } from '@/test/flow-hooks';
import { alertText, click, heading, type, where } from '@/test/page';
import type { PublicBrand } from '@/lib/site/types';
import { belair, siteConfig } from '@/test/site-fixture';
import { invalidFields, smartErrorCode } from './api';
import { forgetArrivals } from './arrival';
import { holdCredentials } from './credentials';
import { accountTypeTarget, decodeSession, GUARDED, mayShow, nextPath, SESSION_HEADER, SMART_PATHS, smartPageOf, type SmartPage, type Step } from './session';
import { fullText } from '@/test/text';

const base64url = (value: unknown) => btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** A session token as the server signs it (the browser reads the payload only). */
const token = (step: Step, page: string) =>
  `${base64url({ alg: 'HS256', kid: 'k1', typ: 'JWT' })}.${base64url({ sid: 's1', brand: 'belair', step, page, iat: 1, exp: 2 })}.c2lnbmF0dXJl`;

/** A 2xx of api/v2: the step's body and its token in the header. */
const step = (name: Step, page: string, data?: Record<string, unknown>, status = 200): FakeAnswer => ({
  status,
  body: { step: name, page, ...(data ? { data } : {}) },
  headers: { [SESSION_HEADER]: token(name, page) },
});
const refused = (error: string, extra: Record<string, unknown> = {}, message = error): FakeAnswer => ({
  status: 400,
  body: { error, errorCode: error, message, ...extra },
});

const FIELDS = [
  { name: 'policyNumber', type: 'text', required: true, labelKey: 'smartRegistration.field.policyNumber', mask: 'AAA-9999', rules: { minLength: 7, maxLength: 8 } },
  { name: 'firstName', type: 'text', required: true, labelKey: 'smartRegistration.field.firstName', mask: '', rules: { minLength: 1, maxLength: 30 } },
  { name: 'lastName', type: 'text', required: true, labelKey: 'smartRegistration.field.lastName', mask: '', rules: { minLength: 1, maxLength: 30 } },
  { name: 'postalCode', type: 'text', required: true, labelKey: 'smartRegistration.field.postalCode', mask: 'A9A 9A9', rules: { minLength: 6, maxLength: 7 } },
  { name: 'phone', type: 'tel', required: false, labelKey: 'smartRegistration.field.phone', mask: '999-999-9999', rules: { minLength: 10, maxLength: 12 } },
];

const START = 'GET /api/v2/registration';
const GET_FIELDS = 'GET /api/v2/registration/fields';
const IDENTIFY = 'POST /api/v2/registration/identify';
const OPTIONS = 'GET /api/v2/verify/options';
const SEND = 'POST /api/v2/verify/send';
const RESEND = 'GET /api/v2/verify/resend';
const VERIFY = 'POST /api/v2/registration/verify';
const CONFIRM_EMAIL = 'POST /api/v2/verify/email';
const CHOOSE = 'POST /api/v2/choose-username';
const CREATE = 'POST /api/v2/create';
const INFO = 'GET /api/v2/account-info';
const BACK = 'GET /api/v2/back';

/** The identification step's fields (FIELDS) as the server gives them. */
const fieldsAnswer = { ...step('IDENTIFY', SMART_PATHS.identification), body: { step: 'IDENTIFY', page: SMART_PATHS.identification, fields: FIELDS } };

/** A session that starts at the identification step and gets FIELDS. */
const startToIdentification: FakeRoutes = { [START]: step('IDENTIFY', SMART_PATHS.identification), [GET_FIELDS]: fieldsAnswer };

const EMAIL_OPTION: SmartOption = { id: 'o1', optionName: 'EMAIL', data: 'e***@example.com' };
const SMS_OPTION: SmartOption = { id: 'o2', optionName: 'SMS', data: '***-***-0101' };
const PIN_OPTION: SmartOption = { id: 'o3', optionName: 'PIN', data: '' };

const submitted = submittedForms();

beforeAll(async () => {
  await Promise.all([loadSection('smartRegistration', 'en'), loadSection('smartRegistration', 'fr')]);
});

beforeEach(() => {
  forgetPages();
  forgetArrivals();
  holdCredentials(null);
});

const sessionOf = (call: FakeCall | undefined) => call?.headers[SESSION_HEADER];

/** Opens a smart registration page with a session whose token is at (step, page). */
async function openAt(url: string, routes: FakeRoutes, session: (Partial<SmartRegistrationState> & { at: [Step, string] }) | null, brand: PublicBrand = belair) {
  const calls = fakeApi(routes);
  if (session) {
    const { at, ...rest } = session;
    updateFlow({ smartRegistration: { ...rest, token: token(...at) } });
  }
  await renderApp(siteConfig({ brand }), url);
  return calls;
}

describe('the session token (spec §4.1)', () => {
  it('decodes step and page from the payload; anything else is no session', () => {
    expect(decodeSession(token('VERIFY', SMART_PATHS.verifyCode))).toEqual({ step: 'VERIFY', page: SMART_PATHS.verifyCode });
    for (const bad of [null, '', 'abc', 'a.b', 'a.!!!.c', `x.${base64url({ step: 'NOPE', page: '/' })}.y`, `x.${base64url({ step: 'VERIFY' })}.y`, `x.${base64url([1])}.y`]) {
      expect(decodeSession(bad), String(bad)).toBeNull();
    }
  });

  it.each<[Step, string, string | null]>([
    ['IDENTIFY', SMART_PATHS.identification, SMART_PATHS.identification],
    ['VERIFY', SMART_PATHS.verifyOptions, SMART_PATHS.verifyOptions],
    ['VERIFY', SMART_PATHS.verifyCode, SMART_PATHS.verifyCode],
    ['VERIFY', '/elsewhere', SMART_PATHS.verifyOptions],
    ['CONFIRM_USERNAME', SMART_PATHS.verifyEmail, SMART_PATHS.verifyEmail],
    ['ASK_NEW_USERNAME', SMART_PATHS.verifyEmail, SMART_PATHS.verifyEmail],
    ['CREATE', SMART_PATHS.create, SMART_PATHS.create],
    ['REDIRECT', '/registration/identification', '/registration/identification'],
    ['DONE', SMART_PATHS.confirmation, SMART_PATHS.confirmation],
    ['ACCOUNT_TYPE_SELECTION', SMART_PATHS.accountType, SMART_PATHS.accountType],
    ['CREATE', '/somewhere/else', null],
  ])('%s at %s leads to %s', (name, page, expected) => {
    expect(nextPath({ step: name, page })).toBe(expected);
  });

  it('the guard: a step page opens at its token page only, the code page during VERIFY, the create page under both addresses', () => {
    const allowed = (page: SmartPage, name: Step, at: string) => mayShow(page, { step: name, page: at });
    for (const page of GUARDED) expect(mayShow(page, null), page).toBe(false);
    expect(allowed('identification', 'IDENTIFY', SMART_PATHS.identification)).toBe(true);
    expect(allowed('verifyOptions', 'IDENTIFY', SMART_PATHS.identification)).toBe(false);
    expect(allowed('verifyCode', 'VERIFY', SMART_PATHS.verifyOptions)).toBe(true);
    expect(allowed('verifyOptions', 'VERIFY', SMART_PATHS.verifyCode)).toBe(false);
    expect(allowed('verifyCode', 'CONFIRM_USERNAME', SMART_PATHS.verifyEmail)).toBe(false);
    expect(allowed('create', 'CREATE', SMART_PATHS.create)).toBe(true);
    expect(allowed('createShort', 'CREATE', SMART_PATHS.create)).toBe(true);
    expect(allowed('create', 'VERIFY', SMART_PATHS.verifyCode)).toBe(false);
    expect(mayShow('accountType', null)).toBe(true);
    expect(mayShow('confirmation', null)).toBe(true);
    expect(accountTypeTarget('?a=1')).toBe(`${SMART_PATHS.accountType}?a=1`);
    expect(accountTypeTarget('')).toBe(SMART_PATHS.accountType);
    expect(smartPageOf('/create-an-account/create/')).toBe('createShort');
    expect(smartPageOf('/create-an-account/nope')).toBeNull();
  });

  it('reads a refusal: invalid-token as INVALID_TOKEN, the other codes as they are, VALIDATION fields', () => {
    expect(smartErrorCode({ error: 'invalid-token', errorCode: 'invalid-token', message: 'jwt expired' })).toBe('INVALID_TOKEN');
    expect(smartErrorCode({ error: 'STEP_NOT_ALLOWED', message: '' })).toBe('STEP_NOT_ALLOWED');
    expect(smartErrorCode({ errorCode: 'EMAIL_ALREADY_EXISTS' })).toBe('EMAIL_ALREADY_EXISTS');
    expect(smartErrorCode('nope')).toBeNull();
    expect(invalidFields({ error: 'VALIDATION', fields: { firstName: 'errorFirstNameFormat', x: 3 } })).toEqual({ firstName: 'errorFirstNameFormat' });
  });
});

describe('account type (spec §2.5)', () => {
  it('policyholder by default: Next opens a session without a token and goes to the identification form built from the fields', async () => {
    const calls = await openAt(SMART_PATHS.accountType, startToIdentification, null);
    expect(calls).toEqual([]);
    expect((screen.getByRole('radio', { name: 'Policyholder' }) as HTMLInputElement).checked).toBe(true);
    await click('Next');
    await heading('Tell us who you are');
    expect(where()).toBe(SMART_PATHS.identification);
    expect(calls[0]).toMatchObject({ method: 'GET', path: '/api/v2/registration' });
    // The form follows the fields' answer, which the page asks for once its chunk (lazy: routes.tsx) has run.
    await screen.findByLabelText('Policy number');
    for (const label of ['Policy number', 'First name', 'Last name', 'Postal code', 'Phone number']) expect(screen.getByLabelText(label)).toBeTruthy();
    expect(screen.queryByLabelText('Driver’s licence number')).toBeNull();
    // The optional field says so (its hint describes it).
    expect(screen.getByLabelText('Phone number').getAttribute('aria-describedby')).toBeTruthy();
    expect(screen.getByText('Optional')).toBeTruthy();
  });

  it('sends no token to start, then the token of each answer', async () => {
    const calls = await openAt(SMART_PATHS.accountType, startToIdentification, null);
    await click('Next');
    await heading('Tell us who you are');
    expect(sessionOf(calls[0])).toBeUndefined();
    expect(calls.find((c) => c.path === '/api/v2/registration/fields')?.headers[SESSION_HEADER]).toBe(token('IDENTIFY', SMART_PATHS.identification));
  });

  it('an additional driver is handed to legacy registration (REDIRECT)', async () => {
    const calls = await openAt(SMART_PATHS.accountType, { [START]: step('REDIRECT', '/registration/identification') }, null);
    fireEvent.click(screen.getByRole('radio', { name: 'Additional driver' }));
    await click('Next');
    await heading('Create your online account');
    await waitFor(() => expect(where()).toBe('/registration/identification'));
    expect(calls[0]?.path).toBe('/api/v2/registration');
    expect(readFlow().smartRegistration).toBeNull();
  });

  it('says the session ended when it did; Next starts again and the message goes', async () => {
    const fields = { ...step('IDENTIFY', SMART_PATHS.identification), body: { step: 'IDENTIFY', page: SMART_PATHS.identification, fields: FIELDS } };
    const calls = await openAt(SMART_PATHS.accountType, { [START]: step('IDENTIFY', SMART_PATHS.identification), [GET_FIELDS]: fields }, null);
    expect(alertText()).not.toContain('Your session has ended');
    act(() => void updateFlow({ sessionExpired: true, smartRegistration: { token: 'old.token.x' } }));
    expect(alertText()).toContain('Your session has ended. Please try again.');
    await click('Next');
    await heading('Tell us who you are');
    expect(readFlow().sessionExpired).toBe(false);
    // The new session starts without the old token.
    expect(sessionOf(calls[0])).toBeUndefined();
  });

  it('Next asks for the identification fields before it goes there, so that page opens with its whole form', async () => {
    // Issue 32: the page once showed a loading line and then the form, pushing the promo panel down (CLS 0.47 on a slow device).
    const askedOn: string[] = [];
    await openAt(SMART_PATHS.accountType, { [START]: step('IDENTIFY', SMART_PATHS.identification), [GET_FIELDS]: () => (askedOn.push(where()), fieldsAnswer) }, null);
    await click('Next');
    await heading('Tell us who you are');
    expect(askedOn).toEqual([SMART_PATHS.accountType]);
    // No await: the first render on arrival held the form.
    expect(screen.getByLabelText('Policy number')).toBeTruthy();
    expect(screen.queryByText('Loading…')).toBeNull();
  });

  it('fields this app cannot show stop Next at the technical roadblock, without opening identification', async () => {
    const unknown = { ...fieldsAnswer, body: { ...fieldsAnswer.body, fields: [...FIELDS, { ...FIELDS[0], name: 'favouriteColour' }] } };
    const askedOn: string[] = [];
    await openAt(SMART_PATHS.accountType, { [START]: step('IDENTIFY', SMART_PATHS.identification), [GET_FIELDS]: () => (askedOn.push(where()), unknown) }, null);
    await click('Next');
    await waitFor(() => expect(where()).toBe('/roadblock/technical'));
    expect(askedOn).toEqual([SMART_PATHS.accountType]);
    expect(readFlow().roadblocked).toBe(true);
  });

  it('the help page closes back to the account type; Back to login goes to /', async () => {
    await openAt(SMART_PATHS.accountType, {}, null);
    await act(async () => fireEvent.click(screen.getByRole('link', { name: 'Not sure which one you are?' })));
    await heading('Policyholder or additional driver?');
    await click('Close');
    await heading('Create your online account');
    await click('Back to login');
    await waitFor(() => expect(where()).toBe('/'));
  });
});

describe('identification', () => {
  const fill = () => {
    type('Policy number', 'reg0001');
    type('First name', 'Emma');
    type('Last name', 'Courriel');
    type('Postal code', 'm5v2t6');
  };

  it('sends the rules’ values, then VERIFY goes to the options', async () => {
    const askedOptionsOn: string[] = [];
    const calls = await openAt(
      SMART_PATHS.identification,
      {
        [GET_FIELDS]: fieldsAnswer,
        [IDENTIFY]: step('VERIFY', SMART_PATHS.verifyOptions),
        [OPTIONS]: () => (askedOptionsOn.push(where()), { ...step('VERIFY', SMART_PATHS.verifyOptions), body: { step: 'VERIFY', page: SMART_PATHS.verifyOptions, options: [EMAIL_OPTION, SMS_OPTION] } }),
      },
      { at: ['IDENTIFY', SMART_PATHS.identification] },
    );
    await screen.findByLabelText('Policy number');
    fill();
    await click('Next');
    await heading('Verify your identity');
    expect(calls.find((c) => c.path.endsWith('/identify'))?.body).toEqual({ policyNumber: 'REG0001', firstName: 'Emma', lastName: 'Courriel', postalCode: 'M5V 2T6', phone: '' });
    expect(screen.getByRole('radio', { name: 'By email at e***@example.com' })).toBeTruthy();
    // Asked for before the options page opened, once (issue 32: that page's first paint holds them).
    expect(calls.filter((c) => c.path === '/api/v2/verify/options')).toHaveLength(1);
    expect(askedOptionsOn).toEqual([SMART_PATHS.identification]);
    expect(screen.queryByText('Loading…')).toBeNull();
  });

  it('options refused busy on the way: the options page asks again itself (the visitor is not left behind)', async () => {
    const answers: FakeAnswer[] = [{ status: 429, body: { error: 'BUSY', errorCode: 'BUSY', message: 'busy' } }, { ...step('VERIFY', SMART_PATHS.verifyOptions), body: { step: 'VERIFY', page: SMART_PATHS.verifyOptions, options: [EMAIL_OPTION, SMS_OPTION] } }];
    const calls = await openAt(
      SMART_PATHS.identification,
      { [GET_FIELDS]: fieldsAnswer, [IDENTIFY]: step('VERIFY', SMART_PATHS.verifyOptions), [OPTIONS]: () => answers.shift() ?? refused('STEP_NOT_ALLOWED') },
      { at: ['IDENTIFY', SMART_PATHS.identification] },
    );
    await screen.findByLabelText('Policy number');
    fill();
    await click('Next');
    await heading('Verify your identity');
    await screen.findByRole('radio', { name: 'By email at e***@example.com' });
    expect(calls.filter((c) => c.path === '/api/v2/verify/options')).toHaveLength(2);
  });

  it('a visitor who left while the options were asked for stays where they went', async () => {
    await openAt(
      SMART_PATHS.identification,
      {
        [GET_FIELDS]: fieldsAnswer,
        [IDENTIFY]: step('VERIFY', SMART_PATHS.verifyOptions),
        [OPTIONS]: () => {
          window.history.pushState(null, '', '/'); // Back to login, pressed meanwhile
          return { ...step('VERIFY', SMART_PATHS.verifyOptions), body: { step: 'VERIFY', page: SMART_PATHS.verifyOptions, options: [EMAIL_OPTION, SMS_OPTION] } };
        },
      },
      { at: ['IDENTIFY', SMART_PATHS.identification] },
    );
    await screen.findByLabelText('Policy number');
    fill();
    await click('Next');
    await heading('Sign in to your account');
    expect(where()).toBe('/');
  });

  it('checks the rules before any call', async () => {
    const calls = await openAt(SMART_PATHS.identification, { [GET_FIELDS]: fieldsAnswer }, { at: ['IDENTIFY', SMART_PATHS.identification] });
    await screen.findByLabelText('Policy number');
    await click('Next');
    expect(calls.filter((c) => c.path.endsWith('/identify'))).toEqual([]);
    expect(screen.getByLabelText('Policy number').getAttribute('aria-invalid')).toBe('true');
  });

  it('POLICY_NUMBER_NOT_FOUND says so; VALIDATION marks the field; ACCOUNT_ALREADY_EXISTS links to sign in', async () => {
    const answers = [refused('POLICY_NUMBER_NOT_FOUND'), refused('VALIDATION', { fields: { firstName: 'errorFirstNameFormat' } }), refused('ACCOUNT_ALREADY_EXISTS')];
    await openAt(SMART_PATHS.identification, { [GET_FIELDS]: fieldsAnswer, [IDENTIFY]: () => answers.shift() ?? refused('STEP_NOT_ALLOWED') }, { at: ['IDENTIFY', SMART_PATHS.identification] });
    await screen.findByLabelText('Policy number');
    fill();
    await click('Next');
    await waitFor(() => expect(alertText()).toContain('We couldn\'t find this policy'));
    await click('Next');
    await waitFor(() => expect(screen.getByLabelText('First name').getAttribute('aria-invalid')).toBe('true'));
    await click('Next');
    await waitFor(() => expect(alertText()).toContain('An online account already exists for this policy.'));
    expect(screen.getByRole('link', { name: 'Sign in to your account' }).getAttribute('href')).toBe('/');
    expect(where()).toBe(SMART_PATHS.identification);
  });

  it('UNABLE_TO_IDENTIFY goes to its roadblock with the flag', async () => {
    await openAt(SMART_PATHS.identification, { [GET_FIELDS]: fieldsAnswer, [IDENTIFY]: refused('UNABLE_TO_IDENTIFY') }, { at: ['IDENTIFY', SMART_PATHS.identification] });
    await screen.findByLabelText('Policy number');
    fill();
    await click('Next');
    await heading('We couldn’t identify you');
    expect(where()).toBe(SMART_PATHS.unableToIdentifyRoadblock);
    expect(readFlow().roadblocked).toBe(true);
    expect(readFlow().smartRegistration).toBeNull();
  });

  it('an ended session (jwt expired, state not found in cache) goes to the account type flagged expired', async () => {
    for (const message of ['jwt expired', 'state not found in cache']) {
      sessionStorage.clear();
      const { unmount } = await (async () => {
        fakeApi({ [GET_FIELDS]: refused('invalid-token', {}, message) });
        updateFlow({ smartRegistration: { token: token('IDENTIFY', SMART_PATHS.identification) } });
        return renderApp(siteConfig(), `${SMART_PATHS.identification}?x=1`);
      })();
      await waitFor(() => expect(alertText()).toContain('Your session has ended. Please try again.'));
      expect(where()).toBe(SMART_PATHS.accountType);
      expect(readFlow()).toMatchObject({ sessionExpired: true, smartRegistration: null, roadblocked: false });
      unmount();
    }
  });

  it('another invalid token (a tampered one) and STEP_NOT_ALLOWED are technical', async () => {
    await openAt(SMART_PATHS.identification, { [GET_FIELDS]: refused('invalid-token', {}, 'invalid token') }, { at: ['IDENTIFY', SMART_PATHS.identification] });
    await waitFor(() => expect(where()).toBe('/roadblock/technical'));
  });

  it('Back calls back and goes where its session leads', async () => {
    const calls = await openAt(
      SMART_PATHS.identification,
      { [GET_FIELDS]: fieldsAnswer, [BACK]: step('ACCOUNT_TYPE_SELECTION', SMART_PATHS.accountType) },
      { at: ['IDENTIFY', SMART_PATHS.identification] },
    );
    await screen.findByLabelText('Policy number');
    await click('Back');
    await heading('Create your online account');
    expect(calls.some((c) => c.path === '/api/v2/back')).toBe(true);
  });
});

describe('verification', () => {
  const options = (list: unknown[]): FakeAnswer => ({ ...step('VERIFY', SMART_PATHS.verifyOptions), body: { step: 'VERIFY', page: SMART_PATHS.verifyOptions, options: list } });
  const sent = (optionName: string, maskedValue: string) => step('VERIFY', SMART_PATHS.verifyCode, { optionName, maskedValue, resendsLeft: 3 });

  it('no option (or none of a known kind): the unavailable-option roadblock', async () => {
    await openAt(SMART_PATHS.verifyOptions, { [OPTIONS]: options([{ id: 'o9', optionName: 'FAX', data: '' }]) }, { at: ['VERIFY', SMART_PATHS.verifyOptions] });
    await heading('We can’t send you a security code');
    expect(where()).toBe(SMART_PATHS.unavailableOption);
    expect(readFlow().roadblocked).toBe(true);
  });

  it('one option is chosen and its code sent at once (once)', async () => {
    const calls = await openAt(SMART_PATHS.verifyOptions, { [OPTIONS]: options([SMS_OPTION]), [SEND]: sent('SMS', '***-***-0101') }, { at: ['VERIFY', SMART_PATHS.verifyOptions] });
    await heading('Enter your security code');
    expect(calls.filter((c) => c.path === '/api/v2/verify/send').map((c) => c.body)).toEqual([{ optionId: 'o2' }]);
    expect(screen.getByText(fullText(/by text message to \*\*\*-\*\*\*-0101/))).toBeTruthy();
  });

  it('a single PIN (issue 28) is chosen at once: the PIN page, whose PIN goes with it', async () => {
    const calls = await openAt(
      SMART_PATHS.verifyOptions,
      { [OPTIONS]: options([PIN_OPTION]), [SEND]: sent('PIN', ''), [VERIFY]: step('ASK_NEW_USERNAME', SMART_PATHS.verifyEmail) },
      { at: ['VERIFY', SMART_PATHS.verifyOptions] },
    );
    await heading('Enter your PIN');
    expect(calls.filter((c) => c.path === '/api/v2/verify/send').map((c) => c.body)).toEqual([{ optionId: 'o3' }]);
    expect(readFlow().smartRegistration?.option).toEqual(PIN_OPTION);
    type('PIN', 'ab12cd34');
    await click('Next');
    await waitFor(() => expect(calls.filter((c) => c.path === '/api/v2/registration/verify')).toHaveLength(1));
  });

  it('back from the code page: a single option is offered, not sent again, and Back goes on to identification', async () => {
    const calls = await openAt(
      SMART_PATHS.verifyCode,
      { [BACK]: () => (calls.some((c) => c.path === '/api/v2/verify/options') ? step('IDENTIFY', SMART_PATHS.identification) : step('VERIFY', SMART_PATHS.verifyOptions)), [OPTIONS]: options([EMAIL_OPTION]), [GET_FIELDS]: refused('STEP_NOT_ALLOWED') },
      { at: ['VERIFY', SMART_PATHS.verifyCode], option: EMAIL_OPTION },
    );
    await click('Back');
    await heading('Verify your identity');
    await screen.findByRole('radio', { name: 'By email at e***@example.com' });
    expect(calls.filter((c) => c.path === '/api/v2/verify/send')).toEqual([]);
    await click('Back');
    await waitFor(() => expect(calls.filter((c) => c.path === '/api/v2/back')).toHaveLength(2));
  });

  it('several: the visitor chooses; a wrong code says the tries left, then CONFIRM_USERNAME', async () => {
    const verify = [refused('INVALID_ACTIVATION_CODE', { triesLeft: 4 }), step('CONFIRM_USERNAME', SMART_PATHS.verifyEmail, { email: 'emma@example.com' })];
    const calls = await openAt(
      SMART_PATHS.verifyOptions,
      { [OPTIONS]: options([EMAIL_OPTION, SMS_OPTION, PIN_OPTION]), [SEND]: sent('EMAIL', 'e***@example.com'), [VERIFY]: () => verify.shift() ?? refused('STEP_NOT_ALLOWED') },
      { at: ['VERIFY', SMART_PATHS.verifyOptions] },
    );
    await screen.findByRole('radio', { name: 'By email at e***@example.com' });
    expect(calls.filter((c) => c.path === '/api/v2/verify/send')).toEqual([]);
    await click('Next');
    await heading('Enter your security code');
    type('Security code', '111111');
    await click('Next');
    await waitFor(() => expect(alertText()).toContain('The security code is incorrect. You have 4 tries left.'));
    type('Security code', '222222');
    await click('Next');
    await heading('Choose your username');
    expect(screen.getByText(fullText(/We have emma@example.com on file/))).toBeTruthy();
  });

  it('the PIN page shows the letter; exceeded retries with a PIN go to pin-identification where the brand file says so (belair)', async () => {
    await openAt(SMART_PATHS.verifyCode, { [VERIFY]: refused('EXCEEDED_RETRIES_CODE_ACTIVATION') }, { at: ['VERIFY', SMART_PATHS.verifyCode], option: PIN_OPTION });
    expect(screen.getByRole('img', { name: 'Where to find your PIN in the letter' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Send me a new code' })).toBeNull();
    type('PIN', 'ab12cd34');
    await click('Next');
    await heading('We couldn’t verify your PIN');
    expect(where()).toBe(SMART_PATHS.pinIdentification);
  });

  it('exceeded retries with a PIN, on a brand whose file says identity-verification (the spec default), go there', async () => {
    await openAt(SMART_PATHS.verifyCode, { [VERIFY]: refused('EXCEEDED_RETRIES_CODE_ACTIVATION') }, { at: ['VERIFY', SMART_PATHS.verifyCode], option: PIN_OPTION }, { ...belair, smartPinRoadblock: 'identity-verification' });
    type('PIN', 'ab12cd34');
    await click('Next');
    await heading('We couldn’t verify your identity');
    expect(where()).toBe(SMART_PATHS.identityVerification);
  });

  it('exceeded retries with a code go to identity-verification, whose button goes back to login', async () => {
    await openAt(SMART_PATHS.verifyCode, { [VERIFY]: refused('EXCEEDED_RETRIES_CODE_ACTIVATION') }, { at: ['VERIFY', SMART_PATHS.verifyCode], option: EMAIL_OPTION });
    type('Security code', '123456');
    await click('Next');
    await heading('We couldn’t verify your identity');
    expect(where()).toBe(SMART_PATHS.identityVerification);
    await click('Back to login');
    await waitFor(() => expect(where()).toBe('/'));
    expect(readFlow().roadblocked).toBe(false);
  });

  it('resend: a spinner for at least a second, a status; EXCEEDED_RESENDS says so beside the link', async () => {
    const answers = [step('VERIFY', SMART_PATHS.verifyCode), refused('EXCEEDED_RESENDS')];
    await openAt(SMART_PATHS.verifyCode, { [RESEND]: () => answers.shift() ?? refused('STEP_NOT_ALLOWED') }, { at: ['VERIFY', SMART_PATHS.verifyCode], option: EMAIL_OPTION });
    vi.useFakeTimers();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Send me a new code' })));
    expect(screen.getByRole('button', { name: 'Sending a new code…' })).toBeTruthy();
    await act(async () => vi.advanceTimersByTime(999));
    expect(screen.getByRole('button', { name: 'Sending a new code…' })).toBeTruthy();
    await act(async () => vi.advanceTimersByTime(1));
    expect(screen.getByRole('status').textContent).toBe('We sent you a new code.');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Send me a new code' })));
    await act(async () => vi.advanceTimersByTime(1000));
    expect(alertText()).toContain('You have asked for a new code 3 times.');
  });
});

describe('username, creation, confirmation', () => {
  it('confirming the email on file: CREATE; the account is created, account-info names it, the confirmation signs in', async () => {
    const calls = await openAt(
      SMART_PATHS.verifyEmail,
      {
        [CONFIRM_EMAIL]: step('CREATE', SMART_PATHS.create),
        [CREATE]: step('DONE', SMART_PATHS.confirmation, undefined, 201),
        [INFO]: step('DONE', SMART_PATHS.confirmation, { username: 'emma@example.com' }),
      },
      { at: ['CONFIRM_USERNAME', SMART_PATHS.verifyEmail], email: 'Emma@example.com' },
    );
    await click('Use this email address');
    await heading('Create your password');
    type('Password', 'Green#Lamp42x');
    type('Confirm your password', 'Green#Lamp42x');
    fireEvent.click(screen.getByRole('checkbox'));
    await click('Create my account');
    await heading('Your account is created');
    expect(where()).toBe(SMART_PATHS.confirmation);
    expect(calls.find((c) => c.path === '/api/v2/create')?.body).toEqual({ password: 'Green#Lamp42x', passwordConfirmation: 'Green#Lamp42x', termsAccepted: true });
    await click('Go to my profile');
    expect(submitted).toHaveLength(1);
    expect(postedEntries(submitted[0]!)).toEqual(ssoFields({ username: 'emma@example.com', password: 'Green#Lamp42x' }));
    leavePage();
    expect(readFlow().smartRegistration).toBeNull();
  });

  it('another email: EMAIL_ALREADY_EXISTS says so and another may be typed; its code page says where the code went', async () => {
    const answers = [refused('EMAIL_ALREADY_EXISTS'), step('VERIFY', SMART_PATHS.verifyCode, { email: 'new@example.com' })];
    await openAt(SMART_PATHS.verifyEmail, { [CHOOSE]: () => answers.shift() ?? refused('STEP_NOT_ALLOWED') }, { at: ['CONFIRM_USERNAME', SMART_PATHS.verifyEmail], email: 'emma@example.com' });
    await click('Use another email address');
    // Back returns to the email on file (the server has no step before a verified code), and the choice opens again.
    await click('Back');
    await click('Use another email address');
    type('Email address', 'demo@belair.example');
    type('Confirm your email address', 'demo@belair.example');
    await click('Next');
    await waitFor(() => expect(alertText()).toContain('demo@belair.example is already being used. Try again with a new email address.'));
    expect(where()).toBe(SMART_PATHS.verifyEmail);
    type('Email address', 'new@example.com');
    type('Confirm your email address', 'new@example.com');
    await click('Next');
    await heading('Enter your security code');
    expect(screen.getByText(fullText(/by email to new@example.com/))).toBeTruthy();
  });

  it('PASSWORD_POLICY_VIOLATION marks the password', async () => {
    await openAt(SMART_PATHS.createShort, { [CREATE]: refused('PASSWORD_POLICY_VIOLATION', { fields: { password: 'errorPasswordContainsEmail' } }) }, { at: ['CREATE', SMART_PATHS.create], email: 'x@example.com' });
    type('Password', 'Green#Lamp42x');
    type('Confirm your password', 'Green#Lamp42x');
    fireEvent.click(screen.getByRole('checkbox'));
    await click('Create my account');
    await waitFor(() => expect(screen.getByLabelText('Password', { exact: false, selector: 'input[autocomplete="new-password"]:not([name="passwordConfirmation"])' }).getAttribute('aria-invalid')).toBe('true'));
  });

  it('the confirmation opens only with the credentials held, else /', async () => {
    await openAt(SMART_PATHS.confirmation, {}, null);
    await waitFor(() => expect(where()).toBe('/'));
  });
});

describe('the guarded route', () => {
  it.each([
    [SMART_PATHS.verifyEmail, null],
    [SMART_PATHS.verifyEmail, ['IDENTIFY', SMART_PATHS.identification]],
    [SMART_PATHS.create, ['VERIFY', SMART_PATHS.verifyCode]],
    [SMART_PATHS.verifyOptions, ['VERIFY', SMART_PATHS.verifyCode]],
  ] as [string, [Step, string] | null][])('%s with the token at %j goes to the account type with the query string', async (path, at) => {
    await openAt(`${path}?lang=en&from=x`, {}, at ? { at } : null);
    await heading('Create your online account');
    expect(where()).toBe(`${SMART_PATHS.accountType}?lang=en&from=x`);
  });

  it('the code page opens while the step is VERIFY', async () => {
    await openAt(SMART_PATHS.verifyCode, {}, { at: ['VERIFY', SMART_PATHS.verifyOptions], option: SMS_OPTION });
    await heading('Enter your security code');
  });

  it('a roadblock page opens only with the roadblocked flag, else / with the query string', async () => {
    await openAt(`${SMART_PATHS.unableToIdentify}?a=1`, {}, null);
    await waitFor(() => expect(where()).toBe('/?a=1'));
  });
});
