import type { ApiClients } from '@/lib/api/use-api';
import type { ApiAnswer } from './error-catalogue';
import { registrationPath } from './registration-guard';
import { finishReset, tokenReceived } from './reset-state';
import { roadblockPath } from './roadblocks';
import { updateFlow, type RegistrationState, type TwoFactorOption } from './state';

// Spec §4.2 "Token routing by action": an emailed magic link's token (edoc,
// BA, mrkt), read with GET api/v1/tokens/{token}, takes the visitor straight
// to the step the server chose from the person's state. Shared by the link's
// entry page (/registration/link) and /webseal.do (SSO error 0x00000000 with
// a token held, read without src).

/** The actions of spec §4.2's table; the server may answer another one (it goes to /). */
export const TOKEN_ACTIONS = ['ask-password', 'ask-username', 'default-password-register', 'reset-password-login', 'token-expired'] as const;
export type TokenAction = (typeof TOKEN_ACTIONS)[number];

/** Spec §3 email token response (api/openapi.yaml EmailTokenResponse). */
export interface EmailTokenAnswer {
  /** A registration id (ask-password, ask-username, default-password-register) or an account id ('' when none). */
  id: string;
  twoFactorValidations: TwoFactorOption[];
  email: string;
  ubiMatchPH: boolean;
  action: string;
  startDate: string;
  /** The person is a UBI driver: the cell phone is asked instead of the postal code. */
  ubiDriver: boolean;
}

const isObject = (d: unknown): d is Record<string, unknown> => typeof d === 'object' && d !== null && !Array.isArray(d);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The token response of a 2xx body, or null when it is not one (missing id or action). */
export function readTokenAnswer(data: unknown): EmailTokenAnswer | null {
  if (!isObject(data) || typeof data.id !== 'string' || typeof data.action !== 'string') return null;
  const options = Array.isArray(data.twoFactorValidations) ? data.twoFactorValidations : [];
  return {
    id: data.id,
    twoFactorValidations: options.filter(isObject).map((o) => ({ id: text(o.id), method: text(o.method), maskedValue: text(o.maskedValue) })),
    email: text(data.email),
    ubiMatchPH: data.ubiMatchPH === true,
    action: data.action,
    startDate: text(data.startDate),
    ubiDriver: data.ubiDriver === true,
  };
}

/** Where a token's answer leads, and what the flow keeps for the page it opens. */
export type TokenNext =
  /** A registration page, with the registration it continues. */
  | { kind: 'registration'; to: string; registration: RegistrationState; startDate: string }
  /** /reset: the email token is the proof a new password may be set for the account. */
  | { kind: 'reset'; to: '/reset'; id: string; ubiDriver: boolean; startDate: string }
  /** The token-expired roadblock; id is the account its button emails a new link to ('' when none). */
  | { kind: 'expired'; to: string; id: string }
  /** Spec §4.2 "anything else goes to /": unknown or malformed token (404), an unknown action, another 4xx. */
  | { kind: 'home'; to: '/' }
  /** 429: too many links read from this address; the link works once the wait is over. */
  | { kind: 'wait' }
  /** 412 and 500 and above: spec §8.1's catalogue (inconsistency, technical, login-difficulties or maintenance roadblock). */
  | { kind: 'failure' };

/** Spec §4.2 token routing, for an answer of GET api/v1/tokens/{token}. */
export function tokenNext(answer: ApiAnswer): TokenNext {
  if (answer.status === 429) return { kind: 'wait' };
  // 412: the person's account and the token's email disagree; the catalogue opened the inconsistency roadblock.
  if (answer.status >= 500 || answer.status === 412) return { kind: 'failure' };
  const value = answer.status >= 200 && answer.status < 300 ? readTokenAnswer(answer.data) : null;
  if (!value) return { kind: 'home', to: '/' };
  const base: RegistrationState = { id: value.id, email: value.email, ubiMatchPH: value.ubiMatchPH, ubiDriver: value.ubiDriver };
  const option = (method: string) => value.twoFactorValidations.find((o) => o.method === method);
  switch (value.action) {
    case 'ask-password': {
      // Spec §4.2: the UBI flow; the driver links to the policyholder account by its password.
      const next = option('ask-password');
      if (!value.id) break;
      return {
        kind: 'registration',
        to: registrationPath('password-validation'),
        registration: { ...base, isUbiFlow: true, twoFactorValidations: value.twoFactorValidations, nextOption: next },
        startDate: value.startDate,
      };
    }
    case 'ask-username': {
      // new-email submits the other email with this option.
      const next = option('ask-username');
      if (!value.id || !next?.id) break;
      return {
        kind: 'registration',
        to: registrationPath('account-creation/new-email'),
        registration: { ...base, twoFactorValidations: value.twoFactorValidations, nextOption: next },
        startDate: value.startDate,
      };
    }
    case 'default-password-register':
      if (!value.id) break;
      return { kind: 'registration', to: registrationPath('account-creation/password'), registration: base, startDate: value.startDate };
    case 'reset-password-login':
      if (!value.id) break;
      return { kind: 'reset', to: '/reset', id: value.id, ubiDriver: value.ubiDriver, startDate: value.startDate };
    case 'token-expired':
      return { kind: 'expired', to: roadblockPath('token-expired'), id: value.id };
  }
  return { kind: 'home', to: '/' };
}

/**
 * Puts in the flow what the page `next` opens needs, and returns its path
 * (null for wait and failure, which the caller shows). `token` is the raw
 * token and `emailSource` the link's src ('' for a read without src: the
 * password page then asks no date of birth).
 */
export function holdTokenNext(next: TokenNext, token: string, emailSource: string): string | null {
  switch (next.kind) {
    case 'registration':
      updateFlow({ registration: next.registration, emailToken: { token, emailSource, startDate: next.startDate }, roadblocked: false });
      return next.to;
    case 'reset':
      // The existing /reset: the email token stands for the reset token (POST accounts/{id}/password {token, postalCode | cellPhone}).
      finishReset();
      updateFlow({ registration: null, emailToken: { token, emailSource, startDate: next.startDate }, roadblocked: false });
      tokenReceived({ id: next.id, token, ubiDriver: next.ubiDriver });
      return next.to;
    case 'expired':
      // The roadblock's button sends RESET_PSW to this account (token-expired-action reads resetPassword.id).
      updateFlow({
        roadblocked: true,
        errorCode: null,
        registration: null,
        emailToken: null,
        resetPassword: next.id
          ? { id: next.id, email: null, emailResetPWD: null, temp: null, isTempPWD: false, validationId: null, resetPasswordId: null }
          : null,
      });
      return next.to;
    case 'home':
      updateFlow({ registration: null, emailToken: null });
      return next.to;
  }
  return null;
}

/** The token calls of spec §7 on the second client (api/v1). */
export function tokenApi(clients: ApiClients) {
  const v1 = clients.second;
  return {
    /** GET tokens/{token}?src=…; without src (a web SSO 0x00000000) the source is not checked. */
    read: (token: string, src: string): Promise<ApiAnswer> =>
      v1.request('get', '/tokens/{token}', { params: { token }, ...(src ? { query: { src } } : {}) }),
    /** DELETE tokens/{token}: after an account is created or linked (the server has consumed it already; the answer changes nothing). */
    remove: (token: string): Promise<ApiAnswer> => v1.request('delete', '/tokens/{token}', { params: { token } }),
  };
}
