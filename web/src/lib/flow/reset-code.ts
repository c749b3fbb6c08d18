import type { ApiResponse } from '@/lib/api/client';
import type { ApiClients } from '@/lib/api/use-api';

// The reset code's resend (spec §7, §9), shared by /verify's resend link and
// the resend-code roadblock's 'Send me a new code'. internal/recovery keeps
// the same limits: 4 resends a request, 5 guesses a code.

/** Spec §9 "Resend: 4 (forgot resend)": the fifth ask goes to the resend-reset-password roadblock. */
export const MAX_RESENDS = 4;

/** internal/recovery CodeGuesses: the fifth wrong guess kills the code, whatever the browser counts. */
export const CODE_GUESSES = 5;

/** A resend's success body: the request's ids, the validation id a new one. */
export interface CodeResent {
  id: string;
  validationId: string;
}

export const isCodeResent = (d: unknown): d is CodeResent =>
  typeof d === 'object' &&
  d !== null &&
  typeof (d as Record<string, unknown>).id === 'string' &&
  (d as Record<string, unknown>).id !== '' &&
  typeof (d as Record<string, unknown>).validationId === 'string' &&
  (d as Record<string, unknown>).validationId !== '';

/** POST accounts/{id}/password-reset/{validationId}/resend: a new code by email, the old one dies. */
export function resendResetCode({ second: v1 }: ApiClients, id: string, validationId: string): Promise<ApiResponse<unknown>> {
  return v1.request('post', '/accounts/{id}/password-reset/{validationId}/resend', { params: { id, validationId } });
}

/**
 * The history state key /verify is opened with once the resend-code
 * roadblock sent a new code: /verify says a new code went out.
 */
export const NEW_CODE_SENT = 'newCodeSent';
