import type { components } from '@/lib/api/schema';
import { sessionStore, storedObject, useSessionStore } from './session-store';

// The flow state the features share (spec §3), kept in sessionStorage so a
// reload of the tab keeps it and closing the tab forgets it. Features read it
// with useFlow() and change it only through the functions below.

/** Spec §3 two-factor option. */
export interface TwoFactorOption {
  id: string;
  method: string;
  maskedValue: string;
}

/**
 * Spec §3 reset-password state, read by the recovery screens. `temp` holds
 * the temporary password of a login with status T (the /reset variant with
 * new password and confirmation sends it again).
 */
export interface ResetPasswordState {
  /** Account id. */
  id: string | null;
  email: string | null;
  /** The email a reset was asked for on /forgot. */
  emailResetPWD: string | null;
  /** The temporary password, held between the login and /reset. */
  temp: string | null;
  isTempPWD: boolean;
  validationId: string | null;
  resetPasswordId: string | null;
}

/** What the identification form sent (POST registration accounts/find), kept to fill the form again. */
type Identification = Partial<
  Pick<components['schemas']['RegistrationFindRequest'], 'policyNumber' | 'firstName' | 'lastName' | 'dateOfBirth' | 'postalCode' | 'driverLicence'>
>;

/** Spec §3 registration state (the legacy registration screens fill it). */
export interface RegistrationState extends Identification {
  id?: string;
  isConfirmed?: boolean;
  error?: string;
  selectedTwoFactor?: string;
  preferredLanguage?: string;
  twoFactorValidations?: TwoFactorOption[];
  resendTwoFactor?: number;
  ubiMatchPH?: boolean;
  email?: string;
  isUbiFlow?: boolean;
  /** An email token's person is a UBI driver: the token variant asks the cell phone instead of the postal code. */
  ubiDriver?: boolean;
  province?: string;
  /** Spec §4.2 counts (3 each lead to a roadblock): 404 not found, 200 already registered, an email taken. */
  notFound?: number;
  alreadyRegistered?: number;
  emailTaken?: number;
  /** The option a 240 asked for next (ask-email, ask-username, ask-password, ask-email-code). */
  nextOption?: TwoFactorOption;
}

/** A smart registration verification option (spec §4.1), as GET /api/v2/verify/options lists it. */
export type SmartOption = components['schemas']['SmartOption'];

/**
 * Spec §4.1 smart registration: the session token of the last answer (its
 * step and page are decoded from it), and what the pages show across steps.
 */
export interface SmartRegistrationState {
  token: string;
  /** The option the code went to (the PIN page when PIN). */
  option?: SmartOption;
  /** CONFIRM_USERNAME: the email on file the visitor may keep as username. */
  email?: string;
  /** Resends asked for the current code (spec §9: 3). */
  resends?: number;
  /** An email found taken (EMAIL_ALREADY_EXISTS) on the way to the choose-username page, which says so. */
  taken?: string;
}

/** Spec §3 email token (a magic link's token). */
export interface EmailToken {
  token: string;
  emailSource: string;
  startDate: string;
}

export interface FlowState {
  /** Spec §2.6: roadblock pages are reachable only while this is set. */
  roadblocked: boolean;
  /** Spec §8.1: the error code a 500 carried, shown on the roadblock as a reference. */
  errorCode: string | null;
  /** Spec §3 login state loginErrorState: /webseal.do asks the login page to show login.error. */
  loginError: boolean;
  /** Spec §8.1 smart client: the account-type page says the session ended. */
  sessionExpired: boolean;
  resetPassword: ResetPasswordState | null;
  registration: RegistrationState | null;
  emailToken: EmailToken | null;
  smartRegistration: SmartRegistrationState | null;
}

export const STORAGE_KEY = 'guichet.flow';

export const initialFlow: FlowState = Object.freeze({
  roadblocked: false,
  errorCode: null,
  loginError: false,
  sessionExpired: false,
  resetPassword: null,
  registration: null,
  emailToken: null,
  smartRegistration: null,
});

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function parseResetPassword(value: unknown): ResetPasswordState | null {
  if (!isObject(value)) return null;
  return {
    id: text(value.id),
    email: text(value.email),
    emailResetPWD: text(value.emailResetPWD),
    temp: text(value.temp),
    isTempPWD: value.isTempPWD === true,
    validationId: text(value.validationId),
    resetPasswordId: text(value.resetPasswordId),
  };
}

function parseSmartRegistration(value: unknown): SmartRegistrationState | null {
  if (!isObject(value) || typeof value.token !== 'string' || value.token === '') return null;
  return value as unknown as SmartRegistrationState;
}

function parseEmailToken(value: unknown): EmailToken | null {
  if (!isObject(value) || typeof value.token !== 'string' || value.token === '') return null;
  return { token: value.token, emailSource: text(value.emailSource) ?? '', startDate: text(value.startDate) ?? '' };
}

/** Reads stored JSON defensively: anything malformed reads as the initial state. */
export function parseFlow(raw: string | null): FlowState {
  const value = storedObject(raw);
  if (!value) return initialFlow;
  return {
    roadblocked: value.roadblocked === true,
    errorCode: text(value.errorCode),
    loginError: value.loginError === true,
    sessionExpired: value.sessionExpired === true,
    resetPassword: parseResetPassword(value.resetPassword),
    registration: isObject(value.registration) ? (value.registration as RegistrationState) : null,
    emailToken: parseEmailToken(value.emailToken),
    smartRegistration: parseSmartRegistration(value.smartRegistration),
  };
}

const flowStore = sessionStore(STORAGE_KEY, parseFlow);

/** The current flow state. */
export function readFlow(): FlowState {
  return flowStore.read();
}

/** Changes the flow state and tells the pages showing it. */
export function updateFlow(change: Partial<FlowState> | ((state: FlowState) => Partial<FlowState>)): FlowState {
  const current = readFlow();
  return flowStore.write({ ...current, ...(typeof change === 'function' ? change(current) : change) });
}

/** The flow state, re-rendering when it changes. */
export function useFlow(): FlowState {
  return useSessionStore(flowStore);
}

/** Spec §2.6 call-us card and PIN roadblock: the roadblock flag, the registration data and the email token go. */
export function resetAfterRoadblock(): FlowState {
  return updateFlow({ roadblocked: false, errorCode: null, registration: null, emailToken: null, smartRegistration: null });
}

/** Spec §2.6 inconsistency and technical roadblocks: the registration state goes. */
export function resetRegistration(): FlowState {
  return updateFlow({ roadblocked: false, errorCode: null, registration: null });
}

/**
 * Spec §4.3: a login with status T whose temporary password was right. The
 * recovery screen /reset reads resetPassword (isTempPWD, temp, id, email).
 */
export function holdTemporaryPassword(account: { id: string; email: string }, temp: string): FlowState {
  return updateFlow({
    resetPassword: {
      id: account.id,
      email: account.email,
      emailResetPWD: null,
      temp,
      isTempPWD: true,
      validationId: null,
      resetPasswordId: null,
    },
  });
}
