import { errorCodeOf, type ApiAnswer, type ApiCall } from '@/lib/flow/error-catalogue';
import type { RoadblockPage } from '@/lib/flow/roadblocks';
import { useFlowSend, type FlowSend } from '@/lib/flow/use-flow-send';

/**
 * The roadblocks of registration answers that spec §8's catalogue gives no
 * call of its own (the contract of issue 13): no resend left (403
 * EXCEEDED_RESENDS) is the resend-code roadblock, or resend-email when the
 * code goes by email (403 EXCEEDED_EMAIL_RESENDS: too many emails); a dead code or PIN (403
 * EXCEEDED_RETRIES_CODE_ACTIVATION: 5 wrong guesses, or expired) the
 * pin-difficulties one ("PIN and security-code difficulties"); a wrong cell
 * phone lock (403 WRONG_CELLPHONE) wrong-cellphone; a call out of order or
 * after the registration closed or expired (409 REGISTRATION_STATE) the
 * technical one, whose button starts the registration again. null: the
 * catalogue decides.
 */
export function registrationRoadblock(answer: ApiAnswer): RoadblockPage | null {
  const code = errorCodeOf(answer.data);
  if (answer.status === 403) {
    switch (code) {
      case 'EXCEEDED_RESENDS':
        return 'resend-code';
      case 'EXCEEDED_EMAIL_RESENDS':
        return 'resend-email';
      case 'EXCEEDED_RETRIES_CODE_ACTIVATION':
        return 'pin-difficulties';
      case 'WRONG_CELLPHONE':
        return 'wrong-cellphone';
    }
  }
  if (answer.status === 409 && code === 'REGISTRATION_STATE') return 'technical';
  return null;
}

const sameCall = (call: ApiCall): ApiCall => call;

export type RegistrationResponse = FlowSend<ApiCall>;

/** The registration calls' answers: registrationRoadblock, then spec §8 for the call given (useFlowSend). */
export function useRegistrationResponse(): RegistrationResponse {
  return useFlowSend(registrationRoadblock, sameCall);
}
