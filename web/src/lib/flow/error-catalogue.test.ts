import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { interpolate } from '@/i18n/catalog';
import en from '@/i18n/en.json';
import fr from '@/i18n/fr.json';
import { repoPath } from '@/test/repo';
import {
  ACCOUNT_TYPE_PATH,
  errorCodeOf,
  IDENTITY_VERIFICATION_PATH,
  interpretResponse,
  referenceCode,
  retryAfterMinutes,
  UNABLE_TO_IDENTIFY_PATH,
  websealOutcome,
  type ApiCall,
  type FlowOutcome,
  type InterpretOptions,
} from './error-catalogue';

interface Row {
  spec: string;
  status: number;
  code?: string | number;
  message?: string;
  call?: ApiCall;
  options?: InterpretOptions;
  expected: FlowOutcome;
}

const ok: FlowOutcome = { kind: 'continue', roadblocked: false };
const roadblock = (page: string, errorCode: string | null = null) => ({ kind: 'roadblock', page, roadblocked: true, errorCode }) as FlowOutcome;
const message = (key: string, errorCode: string | null, roadblocked = false) =>
  ({ kind: 'message', key, errorCode, roadblocked }) as FlowOutcome;
const returned = (roadblocked: boolean, errorCode: string | null = null): FlowOutcome => ({ kind: 'returned', roadblocked, errorCode });
const soft = (code: string): FlowOutcome => ({ kind: 'soft-roadblock', code, roadblocked: false });

// One row for every status and code of spec §8.1, §8.2, §8.3 and the
// status-driven messages of §8.4.
/** §8.2 POLICY_NUMBER_NOT_FOUND where the brand file's policy number has `length` characters: the message names it. */
const policyNotFound = (length: number, why: string): Row => ({
  spec: `8.2 POLICY_NUMBER_NOT_FOUND (${why})`,
  status: 400,
  code: 'POLICY_NUMBER_NOT_FOUND',
  call: 'smart',
  options: { policyNumberLength: length },
  expected: { ...message('moreInfo.error', 'POLICY_NUMBER_NOT_FOUND'), params: { length } } as FlowOutcome,
});

const rows: Row[] = [
  // §8.1 statuses known overall: 200, 201, 202, 240 continue.
  { spec: '8.1 200', status: 200, expected: ok },
  { spec: '8.1 201', status: 201, call: 'create', expected: ok },
  { spec: '8.1 202', status: 202, call: 'registration-email', expected: ok },
  { spec: '8.1 204', status: 204, call: 'other', expected: ok },
  { spec: '8.1 240 continue', status: 240, call: 'identification', expected: ok },

  // §8.1 400 with 1000 or 1001: technical, after any call.
  { spec: '8.1 400 1000', status: 400, code: '1000', call: 'authentication', expected: roadblock('technical') },
  { spec: '8.1 400 1001', status: 400, code: '1001', call: 'create', expected: roadblock('technical') },
  { spec: '8.1 400 1001 as a number', status: 400, code: 1001, expected: roadblock('technical') },
  { spec: '8.1 400 without a catalogue code goes back', status: 400, code: 'errorEmailFormat', call: 'login-find', expected: returned(false, 'errorEmailFormat') },
  { spec: '8.1 400 without a body goes back', status: 400, expected: returned(false) },

  // §8.1 403.
  { spec: '8.1 403 3001 block', status: 403, code: '3001', expected: roadblock('block') },
  { spec: '8.1 403 3004 token-expired', status: 403, code: '3004', expected: roadblock('token-expired') },
  { spec: '8.1 403 3005 token-expired', status: 403, code: '3005', expected: roadblock('token-expired') },
  { spec: '8.1 403 3004 in the UBI flow', status: 403, code: '3004', options: { ubiFlow: true }, expected: returned(false, '3004') },
  { spec: '8.1 403 3005 in the UBI flow', status: 403, code: '3005', options: { ubiFlow: true }, expected: returned(false, '3005') },
  { spec: '8.1 403 3006 two-factor', status: 403, code: '3006', expected: roadblock('two-factor') },
  { spec: '8.1 403 3007 forgot-password', status: 403, code: '3007', expected: roadblock('forgot-password') },
  { spec: '8.1 403 3008 technical', status: 403, code: '3008', expected: roadblock('technical') },
  { spec: '8.1 403 other code technical', status: 403, code: 'FORBIDDEN', expected: roadblock('technical') },

  // §8.1 404 and 409: roadblocked, back to the caller.
  { spec: '8.1 404', status: 404, code: 'ACCOUNT_NOT_FOUND', call: 'notification-locked', expected: returned(true, 'ACCOUNT_NOT_FOUND') },
  { spec: '8.1 409', status: 409, code: 'CONFLICT', call: 'other', expected: returned(true, 'CONFLICT') },
  { spec: '8.1 404 of the smart client', status: 404, call: 'smart', expected: roadblock('technical') },
  { spec: '8.4 login find 404: login.error', status: 404, code: 'ACCOUNT_NOT_FOUND', call: 'login-find', expected: message('login.error', 'ACCOUNT_NOT_FOUND', true) },
  { spec: '8.4 identification 404: identification.notFound', status: 404, call: 'identification', expected: message('identification.notFound', null, true) },
  {
    spec: '8.4 email submission 404: emailConfirmation.validation.alreadyExists',
    status: 404,
    call: 'registration-email',
    expected: message('emailConfirmation.validation.alreadyExists', null, true),
  },
  { spec: '4.3 temporary 409: temporary roadblock', status: 409, code: 'TEMPORARY_PASSWORD_INVALID', call: 'temporary', expected: roadblock('temporary') },

  // §8.1 412, 417.
  { spec: '8.1 412 inconsistency', status: 412, expected: roadblock('inconsistency') },
  { spec: '8.1 417 goes back', status: 417, code: 'X', call: 'notification-locked', expected: returned(false, 'X') },
  { spec: '8.1 417 after a reset-password notification', status: 417, call: 'notification-reset', expected: roadblock('login-difficulties') },

  // §8.1 500, 503, 530 and other statuses.
  { spec: '8.1 500 with errorCode stores it', status: 500, code: 'E42', expected: roadblock('login-difficulties', 'E42') },
  { spec: '8.1 500 without errorCode', status: 500, expected: roadblock('technical') },
  { spec: '8.1 503 maintenance', status: 503, expected: roadblock('maintenance') },
  { spec: '8.1 503 MAINTENANCE maintenance', status: 503, code: 'MAINTENANCE', expected: roadblock('maintenance') },
  // Issue 26: the database out of reach is a 503 UNAVAILABLE, the technical roadblock, not maintenance.
  ...(['authentication', 'login-find', 'other'] as const).map(
    (call): Row => ({ spec: `503 UNAVAILABLE after ${call}`, status: 503, code: 'UNAVAILABLE', call, expected: roadblock('technical') }),
  ),
  // Issue 34: past the requests under way (GUICHET_MAX_IN_FLIGHT) a 503 OVERLOADED is a message on the form, not maintenance.
  ...(['authentication', 'login-find', 'other'] as const).map(
    (call): Row => ({ spec: `503 OVERLOADED after ${call}`, status: 503, code: 'OVERLOADED', call, expected: message('error.busy', 'OVERLOADED') }),
  ),
  { spec: '8.1 530 maintenance', status: 530, expected: roadblock('maintenance') },
  { spec: '8.1 other status 401', status: 401, expected: roadblock('technical') },
  { spec: '8.1 other status 429', status: 429, code: 'OTHER', call: 'authentication', expected: roadblock('technical') },
  // Issue 12: a per-address limit is a message on the form with the wait, never the technical roadblock.
  ...(['login-find', 'authentication', 'temporary', 'password', 'other'] as const).map(
    (call): Row => ({ spec: `429 RATE_LIMITED after ${call}`, status: 429, code: 'RATE_LIMITED', call, expected: message('error.rateLimited.unknown', 'RATE_LIMITED') }),
  ),
  // Issue 11: a password check shed under load is a message on the form, not a roadblock.
  { spec: '429 BUSY after authentication', status: 429, code: 'BUSY', call: 'authentication', expected: message('error.busy', 'BUSY') },
  { spec: '429 BUSY after the temporary step', status: 429, code: 'BUSY', call: 'temporary', expected: message('error.busy', 'BUSY') },
  { spec: '429 BUSY after a password set', status: 429, code: 'BUSY', call: 'password', expected: message('error.busy', 'BUSY') },
  { spec: '8.1 other status 502', status: 502, expected: roadblock('technical') },
  { spec: '8.1 other status 302', status: 302, expected: roadblock('technical') },
  { spec: 'my-account: 401 of /me goes to login', status: 401, call: 'me', expected: { kind: 'navigate', to: '/', roadblocked: false } },

  // §8.1 smart client.
  {
    spec: '8.1 smart 400 invalid token, state not found in cache',
    status: 400,
    code: 'INVALID_TOKEN',
    message: 'state not found in cache',
    call: 'smart',
    expected: { kind: 'navigate', to: ACCOUNT_TYPE_PATH, roadblocked: false, sessionExpired: true },
  },
  {
    spec: '8.1 smart 400 invalid token, jwt expired',
    status: 400,
    code: 'INVALID_TOKEN',
    message: 'jwt expired',
    call: 'smart',
    expected: { kind: 'navigate', to: ACCOUNT_TYPE_PATH, roadblocked: false, sessionExpired: true },
  },
  { spec: '8.1 smart 400 invalid token, other message', status: 400, code: 'INVALID_TOKEN', message: 'bad signature', call: 'smart', expected: roadblock('technical') },
  { spec: '8.1 smart other 400', status: 400, code: 'SOMETHING', call: 'smart', expected: roadblock('technical') },
  { spec: '8.2 INVALID_TOKEN elsewhere goes back', status: 400, code: 'INVALID_TOKEN', call: 'other', expected: returned(false, 'INVALID_TOKEN') },

  // §8.2 server codes.
  { spec: '8.2 EXCEEDED_RETRIES_CODE_ACTIVATION', status: 400, code: 'EXCEEDED_RETRIES_CODE_ACTIVATION', call: 'smart', expected: { kind: 'navigate', to: IDENTITY_VERIFICATION_PATH, roadblocked: true } },
  { spec: '8.2 INVALID_ACTIVATION_CODE code', status: 400, code: 'INVALID_ACTIVATION_CODE', call: 'smart', expected: message('securityCode.wrong', 'INVALID_ACTIVATION_CODE') },
  { spec: '8.2 INVALID_ACTIVATION_CODE PIN', status: 400, code: 'INVALID_ACTIVATION_CODE', call: 'pin', expected: message('securityPin.wrong', 'INVALID_ACTIVATION_CODE') },
  { spec: '8.2 ACCOUNT_ALREADY_EXISTS', status: 400, code: 'ACCOUNT_ALREADY_EXISTS', call: 'smart', expected: message('accountAlreadyExists', 'ACCOUNT_ALREADY_EXISTS') },
  { spec: '8.2 PASSWORD_POLICY_VIOLATION', status: 400, code: 'PASSWORD_POLICY_VIOLATION', call: 'smart', expected: message('errorPasswordContainsEmail', 'PASSWORD_POLICY_VIOLATION') },
  policyNotFound(7, "the brand file's 7"),
  policyNotFound(9, '9, intact outside qc'),
  { spec: '8.2 UNABLE_TO_IDENTIFY, roadblocked (4.5)', status: 400, code: 'UNABLE_TO_IDENTIFY', call: 'smart', expected: { kind: 'navigate', to: UNABLE_TO_IDENTIFY_PATH, roadblocked: true } },
  { spec: '8.2 EMAIL_ALREADY_EXISTS', status: 400, code: 'EMAIL_ALREADY_EXISTS', call: 'smart', expected: message('chooseUsername.error', 'EMAIL_ALREADY_EXISTS') },
  { spec: '8.2 EMAIL_UPDATE_FAILED soft roadblock', status: 400, code: 'EMAIL_UPDATE_FAILED', call: 'smart', expected: soft('lnr500160') },

  // §8.3 Create.
  { spec: '8.3 create 1002', status: 400, code: '1002', call: 'create', expected: message('create.error.securityAnswers', '1002') },
  { spec: '8.3 create 1003', status: 400, code: '1003', call: 'create', expected: roadblock('login-difficulties') },
  { spec: '8.3 create 2002', status: 400, code: '2002', call: 'create', expected: message('password.error.content', '2002') },
  { spec: '8.3 create 2003', status: 400, code: '2003', call: 'create', expected: message('password.error.invalidCharacter', '2003') },
  { spec: '8.3 create 4001 -> lnr500160', status: 400, code: '4001', call: 'create', expected: soft('lnr500160') },
  // §8.3 Other.
  { spec: '8.3 other 5001 -> lnr500120', status: 400, code: '5001', call: 'other', expected: soft('lnr500120') },
  { spec: '8.3 other 5002 -> lnr500140', status: 400, code: '5002', call: 'create', expected: soft('lnr500140') },
  { spec: '8.3 other 5003 -> lnr500150', status: 400, code: '5003', call: 'password', expected: soft('lnr500150') },
  { spec: '8.3 5001 on a 500 is the stored code', status: 500, code: '5001', expected: roadblock('login-difficulties', 'lnr500120') },
  // §8.3 Authentication.
  { spec: '8.3 authentication 1002', status: 400, code: '1002', call: 'authentication', expected: message('login.securityQuestions', '1002') },
  { spec: '8.3 authentication 1003', status: 400, code: '1003', call: 'authentication', expected: roadblock('login-difficulties') },
  { spec: '8.3 authentication 3005', status: 400, code: '3005', call: 'authentication', expected: message('login.error', '3005') },
  { spec: '4.3 temporary 3005 (wrong temporary password)', status: 400, code: '3005', call: 'temporary', expected: message('login.error', '3005') },
  // §8.3 Password set.
  { spec: '8.3 password 1002', status: 400, code: '1002', call: 'password', expected: message('password.error.securityAnswers', '1002') },
  { spec: '8.3 password 2002', status: 400, code: '2002', call: 'password', expected: message('password.error.content', '2002') },
  { spec: '8.3 password 2001', status: 400, code: '2001', call: 'password', expected: message('password.error.violation', '2001') },
  { spec: '8.3 a context code means nothing after another call', status: 400, code: '2001', call: 'create', expected: returned(false, '2001') },
];

describe('interpretResponse (spec §8)', () => {
  it.each(rows)('$spec', ({ status, code, message: text, call = 'other', options, expected }) => {
    const data = code === undefined && text === undefined ? undefined : { errorCode: code, messageKey: text ?? 'x' };
    expect(interpretResponse({ status, data }, call, options)).toEqual(expected);
  });
});

describe('429 RATE_LIMITED says how many minutes to wait (Retry-After, rounded up)', () => {
  const limited = (retryAfter: string) =>
    interpretResponse({ status: 429, data: { errorCode: 'RATE_LIMITED' }, headers: new Headers({ 'Retry-After': retryAfter }) }, 'other');
  it.each([
    { retryAfter: '1', key: 'error.rateLimited.one', minutes: 1 },
    { retryAfter: '60', key: 'error.rateLimited.one', minutes: 1 },
    { retryAfter: '61', key: 'error.rateLimited.other', minutes: 2 },
    { retryAfter: '540', key: 'error.rateLimited.other', minutes: 9 },
    { retryAfter: '541', key: 'error.rateLimited.other', minutes: 10 },
  ])('Retry-After $retryAfter: $minutes', ({ retryAfter, key, minutes }) => {
    expect(limited(retryAfter)).toEqual({ kind: 'message', key, params: { minutes }, roadblocked: false, errorCode: 'RATE_LIMITED' });
  });
  it('reads an HTTP date too, and no number without a readable header', () => {
    const now = Date.parse('2026-11-24T06:00:00Z');
    expect(retryAfterMinutes(new Headers({ 'Retry-After': 'Tue, 24 Nov 2026 06:04:30 GMT' }), now)).toBe(5);
    expect(retryAfterMinutes(new Headers({ 'Retry-After': 'soon' }), now)).toBeNull();
    expect(retryAfterMinutes(new Headers(), now)).toBeNull();
    expect(limited('soon')).toEqual(message('error.rateLimited.unknown', 'RATE_LIMITED'));
  });
  it('the texts: singular, plural, a non-breaking space between the number and « minutes »', () => {
    const text = (catalogue: Record<string, string>, key: string, minutes: number) => interpolate(catalogue[key] ?? key, { minutes });
    expect(text(en, 'error.rateLimited.one', 1)).toBe('Too many tries from this connection. Try again in 1 minute.');
    expect(text(en, 'error.rateLimited.other', 4)).toBe('Too many tries from this connection. Try again in 4 minutes.');
    expect(text(fr, 'error.rateLimited.one', 1)).toBe('Trop de tentatives ont été faites à partir de votre connexion. Réessayez dans 1\u00a0minute.');
    expect(text(fr, 'error.rateLimited.other', 4)).toBe('Trop de tentatives ont été faites à partir de votre connexion. Réessayez dans 4\u00a0minutes.');
  });
});

describe('errorCodeOf and referenceCode', () => {
  it.each([
    { data: { errorCode: '3005' }, code: '3005' },
    { data: { errorCode: 1000 }, code: '1000' },
    { data: { errorCode: '' }, code: null },
    { data: { other: 1 }, code: null },
    { data: 'text', code: null },
    { data: null, code: null },
    { data: undefined, code: null },
  ])('errorCodeOf($data) = $code', ({ data, code }) => {
    expect(errorCodeOf(data)).toBe(code);
  });

  it.each([
    ['5001', 'lnr500120'],
    ['5002', 'lnr500140'],
    ['5003', 'lnr500150'],
    ['4001', 'lnr500160'],
    ['EMAIL_UPDATE_FAILED', 'lnr500160'],
    ['E42', 'E42'],
  ])('referenceCode(%s) = %s', (code, reference) => {
    expect(referenceCode(code)).toBe(reference);
  });
});

describe('websealOutcome (spec §8.5)', () => {
  const cases: { code: string | null; expected: ReturnType<typeof websealOutcome> }[] = [
    { code: '0x00000000', expected: { kind: 'login' } },
    ...['0x132120ea', '0x132120e9', '0x13212135', '0x13212132', '0x1321213c'].map((code) => ({
      code,
      expected: { kind: 'roadblock', page: 'forgot-password' } as const,
    })),
    ...['0x38cf04d7', '0x132120cc', '0x1321213d', '0xdeadbeef', '', null].map((code) => ({
      code,
      expected: { kind: 'roadblock', page: 'technical' } as const,
    })),
    ...['0x132120c8', '0x132120c9', '0x132120ca', 'HPDIA0300W', '0x1321212c'].map((code) => ({
      code,
      expected: { kind: 'login-error' } as const,
    })),
    { code: '0x38cf05e7', expected: { kind: 'other-application' } },
    { code: '0x13212079', expected: { kind: 'other-application' } },
    { code: '0X132120C8', expected: { kind: 'login-error' } },
    { code: 'hpdia0300w', expected: { kind: 'login-error' } },
  ];
  it.each(cases)('$code', ({ code, expected }) => {
    expect(websealOutcome(code)).toEqual(expected);
  });
});

// testdata/api/answers.json holds answers the Go tests make the server give
// (an unexpected error, a panic, the database gone, a disabled account): the
// server's real bodies land on the roadblocks spec §8.1 gives them.
describe('answers the server gives (testdata/api/answers.json)', () => {
  interface Answer {
    status: number;
    call: ApiCall;
    body: unknown;
    roadblock: string;
  }
  const { answers } = JSON.parse(readFileSync(repoPath('testdata/api/answers.json'), 'utf8')) as {
    answers: Record<string, Answer>;
  };
  it.each(Object.entries(answers))('%s', (_, answer) => {
    const outcome = interpretResponse({ status: answer.status, data: answer.body }, answer.call);
    expect(outcome).toMatchObject({ kind: 'roadblock', page: answer.roadblock });
  });
  it('the technical answer is a 500 without errorCode', () => {
    expect(answers.technical).toMatchObject({ status: 500 });
    expect(errorCodeOf(answers.technical?.body)).toBeNull();
  });
});

describe('policy number messages agree with the rule the brand file enforces (spec §5 records 7 versus 8)', () => {
  const catalogues = { en: en as Record<string, string>, fr: fr as Record<string, string> };
  it.each(['en', 'fr'] as const)('%s: no message names a fixed length; the hint and not-found name the brand file\'s', (language) => {
    const messages = catalogues[language];
    const policyKeys = Object.keys(messages).filter((key) => /policyNumber|moreInfo/i.test(key));
    expect(policyKeys).toEqual(expect.arrayContaining(['form.policyNumberHint', 'moreInfo.error', 'errorPolicyNumberFormat']));
    for (const key of policyKeys) expect(messages[key], key).not.toMatch(/\d/);
    for (const length of [7, 9]) {
      const hint = interpolate(messages['form.policyNumberHint'] ?? '', { length });
      const notFound = interpolate(messages['moreInfo.error'] ?? '', { length });
      const unit = language === 'en' ? 'letters or digits' : 'lettres ou chiffres';
      expect(hint).toMatch(new RegExp(`${length}\\s${unit}`));
      expect(notFound).toMatch(new RegExp(`${length}\\s${unit}`));
    }
  });

  it('not found without a known format: the general policy number message', () => {
    expect(interpretResponse({ status: 400, data: { errorCode: 'POLICY_NUMBER_NOT_FOUND' } }, 'smart')).toEqual(message('errorPolicyNumberFormat', 'POLICY_NUMBER_NOT_FOUND'));
  });
});
