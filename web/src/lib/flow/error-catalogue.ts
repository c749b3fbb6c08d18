import type { Message, MessageKey, MessageParams } from '@/i18n/catalog';
import { lookup } from '@/lib/lookup';
import type { RoadblockPage } from './roadblocks';

// Spec §8, the error catalogue: the one place that turns an API answer (or a
// web SSO error code) into what the visitor sees next. The functions here are
// pure; useFlowResponse (use-flow-response.tsx) applies their outcome.

/**
 * Which call answered: the same status means different things after
 * different calls (spec §8.3's contexts, §8.1's notification and smart
 * client rules).
 */
export type ApiCall =
  /** POST accounts/find of the login page. */
  | 'login-find'
  /** POST accounts/{id}/temporary. */
  | 'temporary'
  /** POST accounts/{id}/authentication. */
  | 'authentication'
  /** POST accounts/find of legacy registration (identification). */
  | 'identification'
  /** Email submission of legacy registration. */
  | 'registration-email'
  /** POST accounts/{id}/create (§8.3 Create). */
  | 'create'
  /** POST accounts/{id}/password (§8.3 Password set). */
  | 'password'
  /** POST accounts/{id}/notification with RESET_PSW. */
  | 'notification-reset'
  /** POST accounts/{id}/notification with LOCKED_ACCOUNT. */
  | 'notification-locked'
  /** A code check whose option is the 8-character PIN. */
  | 'pin'
  /** Any call of the smart (api/v2) client. */
  | 'smart'
  /** GET api/v1/me. */
  | 'me'
  | 'other';

export interface ApiAnswer {
  status: number;
  data?: unknown;
  /** The response's headers: a 429's Retry-After says how long to wait. */
  headers?: Headers;
}

export interface InterpretOptions {
  /** Spec §8.1 403 3004/3005: no token-expired roadblock in the UBI flow. */
  ubiFlow?: boolean;
  /** The brand's policy number length in the province (its brand file's; 9 for intact outside qc): POLICY_NUMBER_NOT_FOUND names it. */
  policyNumberLength?: number;
}

export type FlowOutcome =
  /** A success (2xx, 240): the caller reads the answer. */
  | { kind: 'continue'; roadblocked: false }
  /** The caller decides (404, 409, 417, a 400 code of the caller's own); roadblocked for 404 and 409. */
  | { kind: 'returned'; roadblocked: boolean; errorCode: string | null }
  /** Show this message on the page (with params when it names values). */
  | { kind: 'message'; key: MessageKey; params?: MessageParams; roadblocked: boolean; errorCode: string | null }
  /** Go to a /roadblock page with the roadblocked flag; errorCode is the reference to show (a 500's). */
  | { kind: 'roadblock'; page: RoadblockPage; roadblocked: true; errorCode: string | null }
  /** Go to another page of the app. */
  | { kind: 'navigate'; to: string; roadblocked: boolean; sessionExpired?: true }
  /** Spec §8.2 soft roadblock modal, with its reference code. */
  | { kind: 'soft-roadblock'; code: string; roadblocked: false };

/** The errorCode of an error body (always a string on Guichet; numbers are read as text). */
export function errorCodeOf(data: unknown): string | null {
  if (typeof data !== 'object' || data === null) return null;
  const code = (data as Record<string, unknown>).errorCode;
  if (typeof code === 'string' && code !== '') return code;
  if (typeof code === 'number') return String(code);
  return null;
}

function errorMessageOf(data: unknown): string {
  if (typeof data !== 'object' || data === null) return '';
  const { message, messageKey } = data as Record<string, unknown>;
  if (typeof message === 'string') return message;
  return typeof messageKey === 'string' ? messageKey : '';
}

/** What a 'message' outcome shows, for a form's alert. */
export function outcomeMessage(outcome: { key: MessageKey; params?: MessageParams }): Message {
  return outcome.params ? { key: outcome.key, params: outcome.params } : outcome.key;
}

/**
 * The whole minutes of a Retry-After header (seconds, or an HTTP date),
 * rounded up and at least 1; null when it is missing or unreadable.
 */
export function retryAfterMinutes(headers: Headers | undefined, now: number = Date.now()): number | null {
  const value = headers?.get('Retry-After')?.trim();
  if (!value) return null;
  const seconds = /^\d+$/.test(value) ? Number(value) : (Date.parse(value) - now) / 1000;
  if (!Number.isFinite(seconds)) return null;
  return Math.max(1, Math.ceil(seconds / 60));
}

/**
 * 429 RATE_LIMITED: too many tries from the client's address, which a
 * household or a mobile carrier shares. Not an outage: the form says how
 * long to wait (Retry-After), in the singular for one minute.
 */
function rateLimited(answer: ApiAnswer): FlowOutcome {
  const minutes = retryAfterMinutes(answer.headers);
  if (minutes === null) return say('error.rateLimited.unknown', 'RATE_LIMITED');
  const key = minutes === 1 ? 'error.rateLimited.one' : 'error.rateLimited.other';
  return { kind: 'message', key, params: { minutes }, roadblocked: false, errorCode: 'RATE_LIMITED' };
}

/** Spec §8.2 EMAIL_UPDATE_FAILED's code. */
export const SOFT_ROADBLOCK_CODE = 'lnr500160';

const referenceCodes: Record<string, string> = {
  '5001': 'lnr500120',
  '5002': 'lnr500140',
  '5003': 'lnr500150',
  '4001': SOFT_ROADBLOCK_CODE,
  EMAIL_UPDATE_FAILED: SOFT_ROADBLOCK_CODE,
};

/** Spec §8.3 "Other" and §8.2: codes shown to the visitor as a reference (lnr…). */
export function referenceCode(code: string): string {
  return lookup(referenceCodes, code) ?? code;
}

/** Spec §8.1 smart client: these messages of an invalid token mean the session ended. */
const EXPIRED_TOKEN_MESSAGES = new Set(['state not found in cache', 'jwt expired']);

export const ACCOUNT_TYPE_PATH = '/create-an-account/identification/account-type';
export const IDENTITY_VERIFICATION_PATH = '/create-an-account/identity-verification';
export const UNABLE_TO_IDENTIFY_PATH = '/create-an-account/roadblock/unable-to-identify';

const go = (page: RoadblockPage, errorCode: string | null = null): FlowOutcome => ({
  kind: 'roadblock',
  page,
  roadblocked: true,
  errorCode,
});
const say = (key: MessageKey, errorCode: string | null, roadblocked = false): FlowOutcome => ({
  kind: 'message',
  key,
  roadblocked,
  errorCode,
});
const returned = (roadblocked: boolean, errorCode: string | null): FlowOutcome => ({
  kind: 'returned',
  roadblocked,
  errorCode,
});

/** Spec §8.3: a 400's code after a given call, or null when the call gives it no meaning. */
function callCode(call: ApiCall, code: string, options: InterpretOptions): FlowOutcome | null {
  switch (`${call} ${code}`) {
    case 'authentication 3005':
    case 'temporary 3005':
      return say('login.error', code);
    case 'authentication 1002':
      return say('login.securityQuestions', code);
    case 'authentication 1003':
    case 'create 1003':
      return go('login-difficulties');
    case 'create 1002':
      return say('create.error.securityAnswers', code);
    case 'create 2002':
    case 'password 2002':
      return say('password.error.content', code);
    case 'create 2003':
      return say('password.error.invalidCharacter', code);
    case 'create 4001':
      return { kind: 'soft-roadblock', code: referenceCode(code), roadblocked: false };
    case 'password 1002':
      return say('password.error.securityAnswers', code);
    case 'password 2001':
      return say('password.error.violation', code);
  }
  // Spec §8.2: server codes that mean the same after any call.
  switch (code) {
    case '5001':
    case '5002':
    case '5003':
    case 'EMAIL_UPDATE_FAILED':
      return { kind: 'soft-roadblock', code: referenceCode(code), roadblocked: false };
    case 'EXCEEDED_RETRIES_CODE_ACTIVATION':
      return { kind: 'navigate', to: IDENTITY_VERIFICATION_PATH, roadblocked: true };
    case 'UNABLE_TO_IDENTIFY':
      // Spec §4.5: unable-to-identify sets the roadblocked flag.
      return { kind: 'navigate', to: UNABLE_TO_IDENTIFY_PATH, roadblocked: true };
    case 'INVALID_ACTIVATION_CODE':
      return say(call === 'pin' ? 'securityPin.wrong' : 'securityCode.wrong', code);
    case 'ACCOUNT_ALREADY_EXISTS':
      return say('accountAlreadyExists', code);
    case 'PASSWORD_POLICY_VIOLATION':
      return say('errorPasswordContainsEmail', code);
    case 'POLICY_NUMBER_NOT_FOUND':
      // Spec §5 records two readings (7 or 8); the message names the length the brand file enforces, as the field's hint does.
      return options.policyNumberLength
        ? { kind: 'message', key: 'moreInfo.error', params: { length: options.policyNumberLength }, roadblocked: false, errorCode: code }
        : say('errorPolicyNumberFormat', code);
    case 'EMAIL_ALREADY_EXISTS':
      return say('chooseUsername.error', code);
  }
  return null;
}

/**
 * Spec §8.1 (with §8.2 and §8.3): what an answer of `call` means. Network
 * failures are not answers: useFlowResponse sends them to the technical
 * roadblock.
 */
export function interpretResponse(answer: ApiAnswer, call: ApiCall, options: InterpretOptions = {}): FlowOutcome {
  const { status } = answer;
  const code = errorCodeOf(answer.data);
  if (status >= 200 && status < 300) return { kind: 'continue', roadblocked: false };

  if (status === 400) {
    if (code === '1000' || code === '1001') return go('technical');
    if (call === 'smart' && code === 'INVALID_TOKEN' && EXPIRED_TOKEN_MESSAGES.has(errorMessageOf(answer.data))) {
      return { kind: 'navigate', to: ACCOUNT_TYPE_PATH, roadblocked: false, sessionExpired: true };
    }
    const meaning = code === null ? null : callCode(call, code, options);
    if (meaning) return meaning;
    // Smart client: other errors go to the technical roadblock. Elsewhere a
    // 400 without a catalogue meaning (a field rule) is the caller's to show.
    return call === 'smart' ? go('technical') : returned(false, code);
  }

  if (status === 401 && call === 'me') return { kind: 'navigate', to: '/', roadblocked: false };

  if (status === 403) {
    switch (code) {
      case '3001':
        return go('block');
      case '3004':
      case '3005':
        return options.ubiFlow ? returned(false, code) : go('token-expired');
      case '3006':
        return go('two-factor');
      case '3007':
        return go('forgot-password');
      case 'WRONG_CELLPHONE':
        // Spec §9: a UBI driver's wrong cell phone locks the account 24 hours.
        return go('wrong-cellphone');
    }
    return go('technical'); // 3008 and any other
  }

  if (status === 404 || status === 409) {
    // Spec §8.1: any 404 or 409 marks the flow roadblocked and goes back to the caller.
    if (call === 'temporary' && status === 409) return go('temporary'); // §4.3: three failures
    if (call === 'login-find' && status === 404) return say('login.error', code, true);
    if (call === 'identification' && status === 404) return say('identification.notFound', code, true);
    if (call === 'registration-email' && status === 404) {
      return say('emailConfirmation.validation.alreadyExists', code, true);
    }
    return call === 'smart' ? go('technical') : returned(true, code);
  }

  if (status === 412) return go('inconsistency');
  if (status === 417) return call === 'notification-reset' ? go('login-difficulties') : returned(false, code);
  if (status === 500) return code === null ? go('technical') : go('login-difficulties', referenceCode(code));
  // A 503 UNAVAILABLE is the database out of reach (an outage, with
  // Retry-After), not maintenance: the technical roadblock.
  if (status === 503 && code === 'UNAVAILABLE') return go('technical');
  // Issue 34: a 503 OVERLOADED is the server past its requests under way,
  // refused before any work (Retry-After): like BUSY, the visitor submits again.
  if (status === 503 && code === 'OVERLOADED') return say('error.busy', code);
  if (status === 503 || status === 530) return go('maintenance');
  // Not in spec §8: the server was too busy to check a password and counted
  // nothing (429 BUSY, unlike RATE_LIMITED); the visitor submits again.
  if (status === 429 && code === 'BUSY') return say('error.busy', code);
  if (status === 429 && code === 'RATE_LIMITED') return rateLimited(answer);
  return go('technical');
}

/** What /webseal.do?error=CODE does (spec §8.5). */
export type WebsealOutcome =
  | { kind: 'login' }
  | { kind: 'login-error' }
  | { kind: 'roadblock'; page: 'forgot-password' | 'technical' }
  | { kind: 'other-application' };

const websealCodes = new Map<string, WebsealOutcome>([
  ['0x00000000', { kind: 'login' }],
  ...['0x132120ea', '0x132120e9', '0x13212135', '0x13212132', '0x1321213c'].map(
    (code): [string, WebsealOutcome] => [code, { kind: 'roadblock', page: 'forgot-password' }],
  ),
  ...['0x38cf04d7', '0x132120cc', '0x1321213d'].map(
    (code): [string, WebsealOutcome] => [code, { kind: 'roadblock', page: 'technical' }],
  ),
  ...['0x132120c8', '0x132120c9', '0x132120ca', 'hpdia0300w', '0x1321212c'].map(
    (code): [string, WebsealOutcome] => [code, { kind: 'login-error' }],
  ),
  ['0x38cf05e7', { kind: 'other-application' }],
  ['0x13212079', { kind: 'other-application' }],
]);

/** Spec §8.5; codes compare without case, and an unknown or missing code is technical. */
export function websealOutcome(code: string | null): WebsealOutcome {
  return websealCodes.get((code ?? '').trim().toLowerCase()) ?? { kind: 'roadblock', page: 'technical' };
}
