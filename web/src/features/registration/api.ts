import type { ApiResponse } from '@/lib/api/client';
import type { components } from '@/lib/api/schema';
import type { ApiClients } from '@/lib/api/use-api';
import type { TwoFactorOption } from '@/lib/flow/state';

// The legacy registration calls of spec §7 and §4.2 on the second client
// (api/v1), as api/openapi.yaml documents them. `value` is the success body
// when it has the expected shape; `data` the body as it came (an error's
// errorCode for spec §8).

export interface RegistrationAnswer<T> {
  status: number;
  data: unknown;
  headers?: Headers;
  value: T | undefined;
}

type Schemas = components['schemas'];

/** The identification payload (spec §2.4); driverLicence only where the province has UBI. */
export type Identification = Schemas['RegistrationFindRequest'];

/** 240: a registration under way, with the ways to verify the person. */
export type Found = Schemas['RegistrationFound'];

/** 200 after identification: the person already has an account. */
export type AlreadyRegistered = Schemas['AlreadyRegistered'];

/** A validation call's success: 200 {id, email} (verified), or 240 {id, twoFactorValidations} (next method, or a code sent). */
export interface Validated {
  id: string;
  email?: string;
  twoFactorValidations?: TwoFactorOption[];
  resendsLeft?: number;
}

/** 201 of the account creation, 200 of the UBI link, 202 of an emailed link: the email signed in with. */
export interface EmailBody {
  email: string;
}

/**
 * The token variant's proof of identity (spec §3 create-account payload,
 * token flow): cellPhone (digits only) for a UBI driver, else postalCode,
 * with dateOfBirth unless the token was read without src (web SSO).
 */
export interface TokenProof {
  postalCode?: string;
  cellPhone?: string;
  dateOfBirth?: string;
}

const isObject = (d: unknown): d is Record<string, unknown> => typeof d === 'object' && d !== null;
const isOption = (d: unknown): d is TwoFactorOption =>
  isObject(d) && typeof d.id === 'string' && typeof d.method === 'string' && (d.maskedValue === undefined || typeof d.maskedValue === 'string');
const isOptions = (d: unknown): d is TwoFactorOption[] => Array.isArray(d) && d.every(isOption);

const isFoundOrRegistered = (d: unknown): d is Found | AlreadyRegistered =>
  isObject(d) &&
  (d.status === 'REGISTERED' || (d.status === 'REGISTRATION' && typeof d.id === 'string' && isOptions(d.twoFactorValidations)));
const isValidated = (d: unknown): d is Validated =>
  isObject(d) && typeof d.id === 'string' && (d.twoFactorValidations === undefined || isOptions(d.twoFactorValidations));
const isEmailBody = (d: unknown): d is EmailBody => isObject(d) && typeof d.email === 'string' && d.email !== '';

function typed<T>(answer: ApiResponse<unknown>, guard: (d: unknown) => d is T): RegistrationAnswer<T> {
  const ok = answer.status >= 200 && answer.status < 300;
  return { status: answer.status, data: answer.data, headers: answer.headers, value: ok && guard(answer.data) ? answer.data : undefined };
}

/** The options of a 240, with maskedValue always a string. */
export function optionsOf(options: TwoFactorOption[] | undefined): TwoFactorOption[] {
  return (options ?? []).map((o) => ({ id: o.id, method: o.method, maskedValue: o.maskedValue ?? '' }));
}

export interface RegistrationApi {
  /** POST accounts/find, registration variant. */
  identify(body: Identification): Promise<RegistrationAnswer<Found | AlreadyRegistered>>;
  /** POST registrations/{id}/validations/{validationId}/ without a value: sends (or resends) a code. */
  sendCode(id: string, validationId: string): Promise<RegistrationAnswer<Validated>>;
  /** The same call with a value: a code, a PIN or an email address. */
  validate(id: string, validationId: string, validationValue: string): Promise<RegistrationAnswer<Validated | EmailBody>>;
  /**
   * POST accounts/{id}/authentication (spec §7) with the registration id: the
   * UBI link with the existing account's password (the server tells it from
   * a sign-in by the id, a registration's rather than an account's).
   */
  authenticate(id: string, password: string): Promise<RegistrationAnswer<EmailBody>>;
  /** The same call with an email token held: the UBI link, with the driver's postal code and date of birth. */
  authenticateWithToken(id: string, body: { password: string; postalCode: string; dateOfBirth: string }): Promise<RegistrationAnswer<EmailBody>>;
  /** POST accounts/{id}/create; with an email token held, its proof of identity as well. */
  create(id: string, password: string, passwordConfirmation: string, proof?: TokenProof): Promise<RegistrationAnswer<EmailBody>>;
}

export function registrationApi(clients: ApiClients): RegistrationApi {
  const v1 = clients.second;
  const validation = (id: string, validationId: string, body: Record<string, string>) =>
    v1.request('post', '/registrations/{id}/validations/{validationId}/', { params: { id, validationId }, body });
  return {
    identify: async (body) => typed(await v1.request('post', '/accounts/find', { body }), isFoundOrRegistered),
    sendCode: async (id, validationId) => typed(await validation(id, validationId, {}), isValidated),
    validate: async (id, validationId, validationValue) =>
      typed(await validation(id, validationId, { validationValue }), (d): d is Validated | EmailBody => isValidated(d) || isEmailBody(d)),
    authenticate: async (id, password) =>
      typed(await v1.request('post', '/accounts/{id}/authentication', { params: { id }, body: { password } }), isEmailBody),
    authenticateWithToken: async (id, body) =>
      typed(await v1.request('post', '/accounts/{id}/authentication', { params: { id }, body }), isEmailBody),
    create: async (id, password, passwordConfirmation, proof = {}) =>
      typed(
        await v1.request('post', '/accounts/{id}/create', {
          params: { id },
          body: { password, passwordConfirmation, termsAccepted: true, ...proof },
        }),
        isEmailBody,
      ),
  };
}
