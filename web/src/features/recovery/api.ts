import type { ApiResponse } from '@/lib/api/client';
import type { components } from '@/lib/api/schema';
import type { ApiClients } from '@/lib/api/use-api';
import { resendResetCode } from '@/lib/flow/reset-code';

// The recovery calls of spec §7 on the second client (api/v1), as
// internal/recovery/handler.go answers them and api/openapi.yaml documents
// them. `value` is the success body when it has the expected shape; `data`
// is the body as it came (an error's errorCode for spec §8).

export type ResetStarted = components['schemas']['ResetStarted'];
export type Verified = components['schemas']['ValidationResponse'];
export type PasswordRequest = components['schemas']['PasswordRequest'];
export type PasswordChanged = components['schemas']['PasswordResponse'];

export interface RecoveryAnswer<T> {
  status: number;
  data: unknown;
  /** A 429's Retry-After is read from here. */
  headers?: Headers;
  value: T | undefined;
}

const isObject = (d: unknown): d is Record<string, unknown> => typeof d === 'object' && d !== null;
const isStarted = (d: unknown): d is ResetStarted =>
  isObject(d) && typeof d.id === 'string' && d.id !== '' && typeof d.validationId === 'string' && d.validationId !== '';
const isVerified = (d: unknown): d is Verified =>
  isObject(d) && typeof d.id === 'string' && typeof d.action === 'string' && typeof d.token === 'string' && typeof d.ubiDriver === 'boolean';
const isChanged = (d: unknown): d is PasswordChanged => isObject(d) && typeof d.email === 'string' && d.email !== '';

function typed<T>(answer: ApiResponse<unknown>, guard: (d: unknown) => d is T): RecoveryAnswer<T> {
  const ok = answer.status >= 200 && answer.status < 300;
  return { status: answer.status, data: answer.data, headers: answer.headers, value: ok && guard(answer.data) ? answer.data : undefined };
}

export interface RecoveryApi {
  /** POST accounts/password-reset: emails a code; the same answer for an unknown email. */
  requestReset(email: string): Promise<RecoveryAnswer<ResetStarted>>;
  /** POST accounts/{id}/password-reset/{validationId}/resend: a new code, the old one dies. */
  resend(id: string, validationId: string): Promise<RecoveryAnswer<ResetStarted>>;
  /** POST accounts/{id}/validations/{validationId}/ with the code. */
  validate(id: string, validationId: string, code: string): Promise<RecoveryAnswer<Verified>>;
  /** POST accounts/password-reset/link with the token of a /reset?token= link. */
  exchangeLink(token: string): Promise<RecoveryAnswer<Verified>>;
  /** POST accounts/{id}/password. */
  setPassword(id: string, body: PasswordRequest): Promise<RecoveryAnswer<PasswordChanged>>;
}

export function recoveryApi(clients: ApiClients): RecoveryApi {
  const v1 = clients.second;
  return {
    requestReset: async (email) => typed(await v1.request('post', '/accounts/password-reset', { body: { email } }), isStarted),
    resend: async (id, validationId) => typed(await resendResetCode(clients, id, validationId), isStarted),
    validate: async (id, validationId, code) =>
      typed(
        await v1.request('post', '/accounts/{id}/validations/{validationId}/', {
          params: { id, validationId },
          body: { validationValue: code },
        }),
        isVerified,
      ),
    exchangeLink: async (token) => typed(await v1.request('post', '/accounts/password-reset/link', { body: { token } }), isVerified),
    setPassword: async (id, body) => typed(await v1.request('post', '/accounts/{id}/password', { params: { id }, body }), isChanged),
  };
}
