// The co-browse recorder (issue 18): rrweb's record(), in a chunk of its own
// that cobrowse.tsx imports only after the visitor accepted and the server
// asked for a first snapshot (a viewer joined). What leaves the browser:
// - every input, textarea and select masked by a fixed mask, never the real
//   length;
// - private fields blocked outright: rrweb puts an empty placeholder of the
//   same size in their place, with no value, attribute or text, and ignores
//   their input and mutations. The form components mark them data-private
//   (password, security code, PIN, date of birth, postal code, phone, driver
//   licence, policy number); the selector names the autocomplete kinds too,
//   for a field that forgot the mark;
// - no canvas, network or console capture; mouse moves and scrolls sampled.

import { record } from '@rrweb/record';

/** What a masked input shows the agent, whatever was typed. */
export const INPUT_MASK = '••••••';

/** Elements never recorded, not even masked. */
export const BLOCK_SELECTOR = [
  '[data-private]',
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

type RecordOptions = NonNullable<Parameters<typeof record>[0]>;

/** record()'s options but emit: exported for the test that proves them on a real DOM. */
export const recordOptions = {
  maskAllInputs: true,
  maskInputOptions: { password: true, textarea: true, select: true, text: true, email: true, tel: true, number: true },
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
  const stop = record({ ...recordOptions, emit: (event) => send(event) });
  return {
    snapshot: () => record.takeFullSnapshot(true),
    stop: () => stop?.(),
  };
}
