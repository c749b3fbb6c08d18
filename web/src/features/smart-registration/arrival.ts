import type { FlowOutcome } from '@/lib/flow/error-catalogue';
import type { RoadblockPage } from '@/lib/flow/roadblocks';
import { readFlow } from '@/lib/flow/state';
import type { SmartAnswer, StepField } from './api';
import { isFieldName, type FieldName } from './fields';

/** A field of the identification step this app can show and check. */
export type KnownField = StepField & { name: FieldName };

/**
 * The identification step's fields, kept for the session token their answer
 * left: the page reads them in its first render. `follow` asks for them
 * before it takes the visitor to identification, so that page's first paint
 * holds its whole form and nothing below it moves when the answer arrives
 * (issue 32: on a slow device the answer came after the 500 ms a layout
 * shift is forgiven after a click, and the promo panel was pushed down, CLS
 * 0.47). In memory only: a reload, or another token (Back, a new session),
 * asks again on the page.
 */
let kept: { token: string; fields: KnownField[] } | null = null;

/** The fields kept for this token, or null. */
export function keptFields(token: string | undefined): KnownField[] | null {
  return kept !== null && token !== undefined && kept.token === token ? kept.fields : null;
}

type FieldsAnswer = { answer: SmartAnswer<StepField[]>; outcome: FlowOutcome } | null;

/**
 * Asks for the fields (`ask` is the page's send of api.fields()); a list
 * this app can show is kept for the token now held and returned. Null when
 * the answer led elsewhere: spec §8's outcome was applied by the send, or a
 * field this app does not know (a contract broken) took the visitor to the
 * technical roadblock.
 */
export async function loadFields(ask: () => Promise<FieldsAnswer>, roadblock: (page: RoadblockPage) => void): Promise<KnownField[] | null> {
  const result = await ask();
  if (!result || result.outcome.kind !== 'continue') return null;
  const list = result.answer.value;
  if (!list || list.length === 0 || !list.every((f): f is KnownField => isFieldName(f.name))) {
    roadblock('technical');
    return null;
  }
  const token = readFlow().smartRegistration?.token;
  kept = token === undefined ? null : { token, fields: list };
  return list;
}

/** Forgets the fields kept (tests start each case afresh). */
export function forgetFields(): void {
  kept = null;
}
