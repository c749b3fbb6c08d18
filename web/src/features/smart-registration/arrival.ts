import type { FlowOutcome } from '@/lib/flow/error-catalogue';
import type { RoadblockPage } from '@/lib/flow/roadblocks';
import { readFlow } from '@/lib/flow/state';
import type { SmartOption } from '@/lib/flow/state';
import type { SmartAnswer, StepField } from './api';
import { isFieldName, type FieldName } from './field-names';

/** A field of the identification step this app can show and check. */
export type KnownField = StepField & { name: FieldName };

/**
 * What a step page shows on arrival, kept for the session token its answer
 * left: the page reads it in its first render. `follow` asks for it before
 * it takes the visitor to the page, so the page's first paint holds its
 * whole form and nothing below it moves when the answer arrives (issue 32:
 * on a slow device identification's fields came after the 500 ms a layout
 * shift is forgiven after a click, and the promo panel was pushed down, CLS
 * 0.47). In memory only: a reload, or another token (Back, a new session),
 * asks again on the page.
 */
function keptAnswer<T>() {
  let kept: { token: string; value: T } | null = null;
  return {
    get: (token: string | undefined): T | null => (kept !== null && token !== undefined && kept.token === token ? kept.value : null),
    keep(value: T) {
      const token = readFlow().smartRegistration?.token;
      kept = token === undefined ? null : { token, value };
    },
    forget() {
      kept = null;
    },
  };
}

const fields = keptAnswer<KnownField[]>();
const options = keptAnswer<SmartOption[]>();

/** The identification fields kept for this token, or null. */
export const keptFields = fields.get;

/** The verification options kept for this token, or null. */
export const keptOptions = options.get;

type Asked<T> = { answer: SmartAnswer<T>; outcome: FlowOutcome } | null;

/**
 * Asks for the fields (`ask` is the page's send of api.fields()); a list
 * this app can show is kept for the token now held and returned. Null when
 * the answer led elsewhere: spec §8's outcome was applied by the send, or a
 * field this app does not know (a contract broken) took the visitor to the
 * technical roadblock.
 */
export async function loadFields(ask: () => Promise<Asked<StepField[]>>, roadblock: (page: RoadblockPage) => void): Promise<KnownField[] | null> {
  const result = await ask();
  if (!result || result.outcome.kind !== 'continue') return null;
  const list = result.answer.value;
  if (!list || list.length === 0 || !list.every((f): f is KnownField => isFieldName(f.name))) {
    roadblock('technical');
    return null;
  }
  fields.keep(list);
  return list;
}

/**
 * Asks for the verification options, as loadFields the fields: the list
 * (those of a kind this app knows; perhaps none, which the page answers
 * with its roadblock) kept and returned, or null when the answer led
 * elsewhere.
 */
export async function loadOptions(ask: () => Promise<Asked<SmartOption[]>>, roadblock: (page: RoadblockPage) => void): Promise<SmartOption[] | null> {
  const result = await ask();
  if (!result || result.outcome.kind !== 'continue') return null;
  if (!result.answer.value) {
    roadblock('technical');
    return null;
  }
  options.keep(result.answer.value);
  return result.answer.value;
}

/** Forgets the answers kept (tests start each case afresh). */
export function forgetArrivals(): void {
  fields.forget();
  options.forget();
}
