import { useCallback, useMemo, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import { useApiClients } from '@/lib/api/use-api';
import { useSite } from '@/lib/site/site-context';
import { errorCodeOf, type FlowOutcome } from '@/lib/flow/error-catalogue';
import type { RoadblockPage } from '@/lib/flow/roadblocks';
import { readFlow, updateFlow } from '@/lib/flow/state';
import { useFlowResponse } from '@/lib/flow/use-flow-response';
import { smartApi, type SmartAnswer, type SmartApi } from './api';
import { loadFields, loadOptions } from './arrival';
import { decodeSession, nextPath, SMART_PATHS } from './session';

/**
 * Refusals a page answers itself rather than spec §8's catalogue, which
 * sends the smart client's unknown codes to the technical roadblock: a field
 * breaking its rule (VALIDATION) is said at the field; no resend left
 * (EXCEEDED_RESENDS) beside the resend link.
 */
const PAGE_CODES = new Set(['VALIDATION', 'EXCEEDED_RESENDS']);

export interface SmartSend {
  /**
   * Sends a call with the session token, keeps the token of the answer, and
   * applies spec §8 (the smart client): an ended session goes to the account
   * type flagged expired; a dead PIN to pin-identification where the brand file says so; a request
   * without an answer to the technical roadblock (null).
   */
  send<T>(call: (api: SmartApi) => Promise<SmartAnswer<T>>): Promise<{ answer: SmartAnswer<T>; outcome: FlowOutcome } | null>;
  /**
   * Goes where a success's session leads (spec §4.1); REDIRECT hands the policy number and postal code to legacy
   * registration. Identification's fields and the verification options are asked for first (arrival.ts), so that page opens whole; should that
   * answer lead elsewhere, the visitor goes there instead (and nowhere when they left meanwhile).
   */
  follow(handover?: { policyNumber?: string; postalCode?: string }): Promise<void>;
  roadblock(page: RoadblockPage): void;
  dialog: ReactNode;
}

export function useSmartSend(): SmartSend {
  const clients = useApiClients();
  const [, navigate] = useLocation();
  const { apply, roadblock, dialog } = useFlowResponse();
  const { brand } = useSite();

  const send = useCallback(
    async <T,>(call: (api: SmartApi) => Promise<SmartAnswer<T>>) => {
      let answer: SmartAnswer<T>;
      try {
        answer = await call(smartApi(clients, readFlow().smartRegistration?.token ?? null));
      } catch {
        roadblock('technical');
        return null;
      }
      const { token } = answer;
      if (token) updateFlow((s) => ({ smartRegistration: { ...s.smartRegistration, token } }));
      const code = errorCodeOf(answer.data);
      if (answer.status === 400 && code !== null && PAGE_CODES.has(code)) {
        return { answer, outcome: { kind: 'returned', roadblocked: false, errorCode: code } satisfies FlowOutcome };
      }
      if (
        answer.status === 400 &&
        code === 'EXCEEDED_RETRIES_CODE_ACTIVATION' &&
        readFlow().smartRegistration?.option?.optionName === 'PIN' &&
        brand.smartPinRoadblock === 'pin-identification'
      ) {
        // Spec §4.1: one brand (its brand file says so) has its own roadblock for a PIN used up; the others' is identity-verification, as for a code.
        updateFlow({ roadblocked: true, smartRegistration: null });
        navigate(SMART_PATHS.pinIdentification);
        const outcome: FlowOutcome = { kind: 'navigate', to: SMART_PATHS.pinIdentification, roadblocked: true };
        return { answer, outcome };
      }
      const outcome = apply(answer, 'smart');
      // A session that ended, or a roadblock, leaves nothing to go on with.
      if (outcome.kind === 'roadblock' || (outcome.kind === 'navigate' && (outcome.sessionExpired || outcome.roadblocked))) {
        updateFlow({ smartRegistration: null });
      }
      return { answer, outcome };
    },
    [apply, brand.smartPinRoadblock, clients, navigate, roadblock],
  );

  const follow = useCallback(
    async (handover: { policyNumber?: string; postalCode?: string } = {}) => {
      const session = decodeSession(readFlow().smartRegistration?.token);
      const to = session ? nextPath(session) : null;
      if (!session || to === null) return roadblock('technical');
      if (session.step === 'REDIRECT') {
        updateFlow((s) => ({ smartRegistration: null, registration: { ...s.registration, ...handover } }));
      }
      // The next page's answer first (arrival.ts). Whatever it was, the visitor goes on unless they are elsewhere by
      // now: the answer took them there (a roadblock, an ended session), or they left meanwhile (Back, a link). A
      // refusal that took them nowhere (busy, a message) leaves the page to ask again, as it does after a reload.
      const from = window.location.pathname + window.location.search;
      if (to === SMART_PATHS.identification) await loadFields(() => send((api) => api.fields()), roadblock);
      if (to === SMART_PATHS.verifyOptions) await loadOptions(() => send((api) => api.options()), roadblock);
      if (window.location.pathname + window.location.search !== from) return;
      navigate(to);
    },
    [navigate, roadblock, send],
  );

  return useMemo(() => ({ send, follow, roadblock: (page: RoadblockPage) => roadblock(page), dialog }), [send, follow, roadblock, dialog]);
}
