import { useCallback, useMemo, useRef, useState, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import { useSite } from '@/lib/site/site-context';
import { interpretResponse, type ApiAnswer, type ApiCall, type FlowOutcome } from './error-catalogue';
import { roadblockPath, type RoadblockPage } from './roadblocks';
import { readFlow, updateFlow } from './state';
import { SoftRoadblockDialog } from './soft-roadblock';

export interface FlowResponse {
  /**
   * Applies spec §8 to an answer of `call`: sets the roadblocked flag and
   * the reference code, navigates, or opens the soft roadblock; returns the
   * outcome so the page shows a message or reads a success.
   */
  apply(answer: ApiAnswer, call: ApiCall): FlowOutcome;
  /**
   * Sends a request and applies its answer; a request that fails without an
   * answer (network) goes to the technical roadblock and resolves null.
   */
  run<A extends ApiAnswer>(request: () => Promise<A>, call: ApiCall): Promise<{ answer: A; outcome: FlowOutcome } | null>;
  /** Goes to a roadblock page with the roadblocked flag set. */
  roadblock(page: RoadblockPage, errorCode?: string | null): void;
  /** The soft roadblock dialog while it is open: render it in the page. */
  dialog: ReactNode;
}

/** The hook through which pages act on API answers (spec §8.1-§8.4). */
export function useFlowResponse(): FlowResponse {
  const [, navigate] = useLocation();
  const { brand, province } = useSite();
  const [soft, setSoft] = useState<{ code: string; returnFocus: HTMLElement | null } | null>(null);
  // The control that sent the request (a submit button is disabled while it
  // runs, so it is no longer focused when the answer opens the dialog).
  const origin = useRef<HTMLElement | null>(null);
  const policyNumberLength = (brand.policyNumber.byProvince[province] ?? brand.policyNumber).length;

  const roadblock = useCallback(
    (page: RoadblockPage, errorCode: string | null = null) => {
      updateFlow({ roadblocked: true, errorCode });
      navigate(roadblockPath(page));
    },
    [navigate],
  );

  const apply = useCallback(
    (answer: ApiAnswer, call: ApiCall): FlowOutcome => {
      const ubiFlow = readFlow().registration?.isUbiFlow === true;
      const outcome = interpretResponse(answer, call, { ubiFlow, policyNumberLength });
      switch (outcome.kind) {
        case 'roadblock':
          roadblock(outcome.page, outcome.errorCode);
          break;
        case 'navigate':
          updateFlow((s) => ({
            roadblocked: s.roadblocked || outcome.roadblocked,
            sessionExpired: outcome.sessionExpired === true,
          }));
          navigate(outcome.to);
          break;
        case 'soft-roadblock':
          setSoft({ code: outcome.code, returnFocus: origin.current });
          break;
        default:
          if (outcome.roadblocked) updateFlow({ roadblocked: true });
      }
      return outcome;
    },
    [navigate, policyNumberLength, roadblock],
  );

  const run = useCallback(
    async <A extends ApiAnswer,>(request: () => Promise<A>, call: ApiCall) => {
      let answer: A;
      // A sequence of calls keeps the first control: later ones start with the button disabled and the body focused.
      const active = document.activeElement;
      if (active instanceof HTMLElement && active !== document.body) origin.current = active;
      try {
        answer = await request();
      } catch {
        roadblock('technical');
        return null;
      }
      return { answer, outcome: apply(answer, call) };
    },
    [apply, roadblock],
  );

  const dialog = useMemo(
    () =>
      soft ? <SoftRoadblockDialog code={soft.code} returnFocus={soft.returnFocus} onClose={() => setSoft(null)} /> : null,
    [soft],
  );

  return useMemo(() => ({ apply, run, roadblock, dialog }), [apply, run, roadblock, dialog]);
}
