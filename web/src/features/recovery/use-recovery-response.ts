import { useCallback, useMemo, type ReactNode } from 'react';
import { errorCodeOf, type ApiAnswer, type ApiCall, type FlowOutcome } from '@/lib/flow/error-catalogue';
import type { RoadblockPage } from '@/lib/flow/roadblocks';
import { useFlowResponse } from '@/lib/flow/use-flow-response';

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

export interface RecoveryResponse {
  /**
   * Sends a request and acts on its answer (recoveryRoadblock, then spec §8
   * through useFlowResponse); a request that fails without an answer goes
   * to the technical roadblock and resolves null.
   */
  send<A extends ApiAnswer>(request: () => Promise<A>, call: RecoveryCall): Promise<{ answer: A; outcome: FlowOutcome } | null>;
  roadblock(page: RoadblockPage): void;
  /** The soft roadblock dialog while it is open. */
  dialog: ReactNode;
}

export function useRecoveryResponse(): RecoveryResponse {
  const { apply, roadblock, dialog } = useFlowResponse();
  const send = useCallback(
    async <A extends ApiAnswer,>(request: () => Promise<A>, call: RecoveryCall) => {
      let answer: A;
      try {
        answer = await request();
      } catch {
        roadblock('technical');
        return null;
      }
      const page = recoveryRoadblock(answer, call);
      if (page) {
        roadblock(page);
        const outcome: FlowOutcome = { kind: 'roadblock', page, roadblocked: true, errorCode: errorCodeOf(answer.data) };
        return { answer, outcome };
      }
      return { answer, outcome: apply(answer, catalogueCall(call)) };
    },
    [apply, roadblock],
  );
  return useMemo(() => ({ send, roadblock: (page: RoadblockPage) => roadblock(page), dialog }), [send, roadblock, dialog]);
}
