import { useCallback, useMemo, type ReactNode } from 'react';
import { errorCodeOf, type ApiAnswer, type ApiCall, type FlowOutcome } from './error-catalogue';
import type { RoadblockPage } from './roadblocks';
import { useFlowResponse } from './use-flow-response';

// Its own module, so the login route (useFlowResponse only) does not carry it.

export interface FlowSend<C> {
  /**
   * Sends a request and acts on its answer: the feature's own roadblock
   * when it names one, else spec §8 through apply; a request that fails
   * without an answer goes to the technical roadblock and resolves null.
   */
  send<A extends ApiAnswer>(request: () => Promise<A>, call: C): Promise<{ answer: A; outcome: FlowOutcome } | null>;
  roadblock(page: RoadblockPage): void;
  /** The soft roadblock dialog while it is open. */
  dialog: ReactNode;
}

/**
 * useFlowResponse for a feature whose calls have roadblocks spec §8's
 * catalogue gives no call of its own: `roadblockOf` names them (null: the
 * catalogue decides, for the call `catalogueCall` gives). Both are
 * module-level functions (stable).
 */
export function useFlowSend<C>(
  roadblockOf: (answer: ApiAnswer, call: C) => RoadblockPage | null,
  catalogueCall: (call: C) => ApiCall,
): FlowSend<C> {
  const { apply, roadblock, dialog } = useFlowResponse();
  const send = useCallback(
    async <A extends ApiAnswer,>(request: () => Promise<A>, call: C) => {
      let answer: A;
      try {
        answer = await request();
      } catch {
        roadblock('technical');
        return null;
      }
      const page = roadblockOf(answer, call);
      if (page) {
        roadblock(page);
        const outcome: FlowOutcome = { kind: 'roadblock', page, roadblocked: true, errorCode: errorCodeOf(answer.data) };
        return { answer, outcome };
      }
      return { answer, outcome: apply(answer, catalogueCall(call)) };
    },
    [apply, roadblock, roadblockOf, catalogueCall],
  );
  return useMemo(() => ({ send, roadblock: (page: RoadblockPage) => roadblock(page), dialog }), [send, roadblock, dialog]);
}
