// The co-browse recorder (issues 18, 26): rrweb's record(), in a chunk of its
// own that cobrowse.tsx imports only after the visitor accepted and the server
// asked for a first snapshot (a viewer joined). What leaves the browser is
// what lib/cobrowse/privacy.ts (the one list, the consent dialog's source)
// allows, in two layers:
// - rrweb's options: every input, textarea and select of every type (hidden
//   included) masked by a fixed mask, never the real length; every element
//   marked data-private (the customer's values, the secret fields) blocked:
//   an empty placeholder of its size, no value, attribute or text, its input
//   and mutations ignored. The selector names the secret autocomplete kinds
//   too, for a field that forgot the mark;
// - scrubEvent, on every event before it is sent, whatever rrweb did: every
//   value attribute of a recorded element and every input event's text
//   become the mask, the page address loses its query and fragment (the
//   invitation link's token). The server refuses a frame that breaks these
//   rules (internal/cobrowse privacy.go), so a regression shows as refusals;
// - no canvas, network or console capture; mouse moves and scrolls sampled.

import { record } from '@rrweb/record';
import { INPUT_MASK, PRIVATE_ATTRIBUTE } from '@/lib/cobrowse/privacy';

export { INPUT_MASK };

/** Elements never recorded, not even masked. */
export const BLOCK_SELECTOR = [
  `[${PRIVATE_ATTRIBUTE}]`,
  'input[type=password]',
  '[autocomplete=one-time-code]',
  '[autocomplete=bday]',
  '[autocomplete=bday-day]',
  '[autocomplete=bday-month]',
  '[autocomplete=bday-year]',
  '[autocomplete=postal-code]',
  '[autocomplete=tel]',
  '[autocomplete=tel-national]',
].join(', ');

/** Every input type, and textarea and select: all masked (rrweb's maskAllInputs leaves hidden out). */
const MASKED_INPUTS = [
  'color', 'date', 'datetime-local', 'email', 'hidden', 'month', 'number', 'password', 'range', 'search', 'tel', 'text',
  'time', 'url', 'week', 'textarea', 'select',
] as const;

type RecordOptions = NonNullable<Parameters<typeof record>[0]>;

/** record()'s options but emit: exported for the test that proves them on a real DOM. */
export const recordOptions = {
  maskAllInputs: true,
  // rrweb's type names no hidden input; its lookup is by the input's type, so the key works.
  maskInputOptions: Object.fromEntries(MASKED_INPUTS.map((type) => [type, true])) as RecordOptions['maskInputOptions'],
  maskInputFn: () => INPUT_MASK,
  blockSelector: BLOCK_SELECTOR,
  recordCanvas: false,
  recordCrossOriginIframes: false,
  collectFonts: false,
  inlineImages: false,
  plugins: [],
  sampling: { mousemove: 100, scroll: 150, input: 'last', media: 800 },
  slimDOMOptions: { script: true, comment: true, headFavicon: true, headWhitespace: true, headMetaSocial: true, headMetaRobots: true, headMetaHttpEquiv: true, headMetaVerification: true, headMetaAuthorship: true, headMetaDescKeywords: true },
} satisfies Omit<RecordOptions, 'emit'>;

export interface Recorder {
  /** A fresh full snapshot (another viewer joined). */
  snapshot(): void;
  stop(): void;
}

/** Starts recording this document; every rrweb event goes to send. */
export function startRecorder(send: (event: unknown) => void): Recorder {
  const stop = record({ ...recordOptions, emit: (event) => send(scrubEvent(event)) });
  return {
    snapshot: () => record.takeFullSnapshot(true),
    stop: () => stop?.(),
  };
}

interface SerializedNode {
  tagName?: string;
  attributes?: Record<string, unknown>;
  childNodes?: SerializedNode[];
}

/** A value that may leave: nothing, or the mask. */
export function isMasked(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (typeof value === 'string' && /^•+$/u.test(value));
}

function scrubNode(node: SerializedNode | undefined) {
  if (!node) return;
  if (node.attributes && Object.hasOwn(node.attributes, 'value') && !isMasked(node.attributes.value)) node.attributes.value = INPUT_MASK;
  node.childNodes?.forEach(scrubNode);
}

function scrubHref(href: unknown): unknown {
  if (typeof href !== 'string') return href;
  try {
    const url = new URL(href);
    return url.origin + url.pathname;
  } catch {
    return '';
  }
}

const FULL_SNAPSHOT = 2;
const INCREMENTAL = 3;
const META = 4;
const MUTATION = 0;
const INPUT = 5;

/**
 * The last layer before the socket, the rule the server checks: every value
 * attribute masked (a full snapshot, the nodes a mutation adds, an attribute
 * change), every input event's text masked, the page's address without its
 * query or fragment. Changes the event in place and returns it.
 */
export function scrubEvent<E>(event: E): E {
  const e = event as { type?: number; data?: Record<string, unknown> };
  const data = e.data;
  if (!data || typeof data !== 'object') return event;
  if (e.type === META) data.href = scrubHref(data.href);
  if (e.type === FULL_SNAPSHOT) scrubNode(data.node as SerializedNode);
  if (e.type === INCREMENTAL && data.source === MUTATION) {
    for (const add of (data.adds as { node?: SerializedNode }[] | undefined) ?? []) scrubNode(add.node);
    for (const change of (data.attributes as { attributes?: Record<string, unknown> }[] | undefined) ?? []) {
      if (change.attributes && Object.hasOwn(change.attributes, 'value') && !isMasked(change.attributes.value)) change.attributes.value = INPUT_MASK;
    }
  }
  if (e.type === INCREMENTAL && data.source === INPUT && !isMasked(data.text)) data.text = INPUT_MASK;
  return event;
}
