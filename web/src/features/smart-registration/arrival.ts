import type { FlowOutcome } from '@/lib/flow/error-catalogue';
import type { RoadblockPage } from '@/lib/flow/roadblocks';
import { readFlow, type SmartOption } from '@/lib/flow/state';
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
 * Asks (`ask` is the page's send of its call) and keeps what `accept` makes
 * of a success's value for the token now held, and returns it. Null when
 * the answer led elsewhere: spec §8's outcome was applied by the send, or
 * a value accept refuses (a contract broken) took the visitor to the
 * technical roadblock.
 */
async function load<T, K>(
  ask: () => Promise<Asked<T>>,
  roadblock: (page: RoadblockPage) => void,
  slot: ReturnType<typeof keptAnswer<K>>,
  accept: (value: T | undefined) => K | null,
): Promise<K | null> {
  const result = await ask();
  if (!result || result.outcome.kind !== 'continue') return null;
  const value = accept(result.answer.value);
  if (value === null) {
    roadblock('technical');
    return null;
  }
  slot.keep(value);
  return value;
}

/** The identification fields (api.fields()), every one of a kind this app can show. */
export const loadFields = (ask: () => Promise<Asked<StepField[]>>, roadblock: (page: RoadblockPage) => void): Promise<KnownField[] | null> =>
  load(ask, roadblock, fields, (list) => (list && list.length > 0 && list.every((f): f is KnownField => isFieldName(f.name)) ? list : null));

/** The verification options (api.options()): those of a kind this app knows, perhaps none (the page's roadblock). */
export const loadOptions = (ask: () => Promise<Asked<SmartOption[]>>, roadblock: (page: RoadblockPage) => void): Promise<SmartOption[] | null> =>
  load(ask, roadblock, options, (list) => list ?? null);

/** Forgets the answers kept (tests start each case afresh). */
export function forgetArrivals(): void {
  fields.forget();
  options.forget();
}
