import { useCallback, useMemo, type ReactNode } from 'react';
import { errorCodeOf, type ApiAnswer, type ApiCall, type FlowOutcome } from '@/lib/flow/error-catalogue';
import type { RoadblockPage } from '@/lib/flow/roadblocks';
import { useFlowResponse } from '@/lib/flow/use-flow-response';

/**
 * The roadblocks of registration answers that spec §8's catalogue gives no
 * call of its own (the contract of issue 13): no resend left (403
 * EXCEEDED_RESENDS) is the resend-code roadblock; a dead code or PIN (403
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
      case 'EXCEEDED_RETRIES_CODE_ACTIVATION':
        return 'pin-difficulties';
      case 'WRONG_CELLPHONE':
        return 'wrong-cellphone';
    }
  }
  if (answer.status === 409 && code === 'REGISTRATION_STATE') return 'technical';
  return null;
}

export interface RegistrationResponse {
  /** Sends a request and acts on its answer (registrationRoadblock, then spec §8); null when it failed without an answer. */
  send<A extends ApiAnswer>(request: () => Promise<A>, call: ApiCall): Promise<{ answer: A; outcome: FlowOutcome } | null>;
  roadblock(page: RoadblockPage): void;
  dialog: ReactNode;
}

export function useRegistrationResponse(): RegistrationResponse {
  const { apply, roadblock, dialog } = useFlowResponse();
  const send = useCallback(
    async <A extends ApiAnswer,>(request: () => Promise<A>, call: ApiCall) => {
      let answer: A;
      try {
        answer = await request();
      } catch {
        roadblock('technical');
        return null;
      }
      const page = registrationRoadblock(answer);
      if (page) {
        roadblock(page);
        const outcome: FlowOutcome = { kind: 'roadblock', page, roadblocked: true, errorCode: null };
        return { answer, outcome };
      }
      return { answer, outcome: apply(answer, call) };
    },
    [apply, roadblock],
  );
  return useMemo(() => ({ send, roadblock: (page: RoadblockPage) => roadblock(page), dialog }), [send, roadblock, dialog]);
}
