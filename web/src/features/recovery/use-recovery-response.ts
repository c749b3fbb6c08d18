import { errorCodeOf, type ApiAnswer, type ApiCall } from '@/lib/flow/error-catalogue';
import type { RoadblockPage } from '@/lib/flow/roadblocks';
import { useFlowSend, type FlowSend } from '@/lib/flow/use-flow-send';

/** The recovery calls, for what their answers mean. */
export type RecoveryCall = 'reset-request' | 'reset-resend' | 'reset-code' | 'reset-link' | 'password';

/**
 * The roadblocks of the recovery calls that spec §8's catalogue gives no
 * call of its own (the brief of issue 6 and internal/recovery/handler.go):
 * a dead code (403 EXCEEDED_RETRIES_CODE_ACTIVATION or CODE_EXPIRED) is the
 * resend-code roadblock; a resend refused (404 RESET_NOT_FOUND, 409
 * RESEND_LIMIT_REACHED or RESET_CLOSED) the resend-reset-password one; a
 * temporary password no longer usable (409 TEMPORARY_PASSWORD_INVALID) the
 * temporary one. null: the catalogue decides.
 */
export function recoveryRoadblock(answer: ApiAnswer, call: RecoveryCall): RoadblockPage | null {
  const code = errorCodeOf(answer.data);
  switch (call) {
    case 'reset-code':
      if (answer.status === 403 && (code === 'EXCEEDED_RETRIES_CODE_ACTIVATION' || code === 'CODE_EXPIRED')) return 'resend-code';
      return null;
    case 'reset-resend':
      return answer.status === 404 || answer.status === 409 ? 'resend-reset-password' : null;
    case 'password':
      return answer.status === 409 && code === 'TEMPORARY_PASSWORD_INVALID' ? 'temporary' : null;
    default:
      return null;
  }
}

/** The catalogue's call for a recovery call: §8.3 "Password set" for the password, no context otherwise. */
function catalogueCall(call: RecoveryCall): ApiCall {
  return call === 'password' ? 'password' : 'other';
}

export type RecoveryResponse = FlowSend<RecoveryCall>;

/** The recovery calls' answers: recoveryRoadblock, then spec §8 (useFlowSend). */
export function useRecoveryResponse(): RecoveryResponse {
  return useFlowSend(recoveryRoadblock, catalogueCall);
}
