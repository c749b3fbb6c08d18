// Issue 32: no page the browser tests open may shift its layout. Every
// context launchBrowser opens runs this observer in its pages' top frame; it
// computes the page's cumulative layout shift as Chromium defines it (shifts
// less than 1 s apart make a session window of at most 5 s; the page's CLS
// is its largest window) and reports each window that passes the limit.
// Chromium leaves out shifts within 500 ms of the visitor's input; so that
// no verdict depends on how fast the machine answers, this leaves out every
// shift after an input until the address changes (a client-side page change
// starts a new page, whose loading counts again). The test during which a
// window passed the limit is reported (an afterEach hook of every file that
// imports the harness; watch-verdict.mjs: failed, or listed in a survey),
// naming the page and the elements that moved.
import { afterEach } from 'node:test';
import { verdict } from './watch-verdict.mjs';

/** Google's "good" CLS is 0.1; the bar is 0.02. */
export const CLS_LIMIT = 0.02;

/** @typedef {{ url: string; value: number; sources: string[] }} Shift */

/** Windows over the limit since the last check. @type {Shift[]} */
const over = [];

/** Runs in the page (addInitScript): reports windows over the limit. */
function observe(/** @type {number} */ limit) {
  if (window.top !== window || !('PerformanceObserver' in window)) return;
  let value = 0;
  let start = -Infinity;
  let last = -Infinity;
  /** @type {string[]} */
  let sources = [];
  const describe = (/** @type {Node | null | undefined} */ node) => {
    if (!node || !(node instanceof Element)) return node?.nodeName ?? '?';
    const id = node.id ? `#${node.id}` : '';
    const cls = typeof node.className === 'string' && node.className ? `.${node.className.trim().split(/\s+/).join('.')}` : '';
    return `${node.nodeName.toLowerCase()}${id}${cls}`;
  };
  // Where the visitor last pressed a key or a pointer: what moves after that
  // on the same address answers the visitor (a form that opens once the
  // server has answered), however long the answer took; a new address is a
  // new page, whose own loading must not shift.
  let actedOn = '';
  let windowOf = '';
  const acted = () => {
    actedOn = location.href;
  };
  document.addEventListener('keydown', acted, true);
  document.addEventListener('pointerdown', acted, true);
  new PerformanceObserver((list) => {
    for (const entry of /** @type {any[]} */ (list.getEntries())) {
      if (entry.hadRecentInput || actedOn === location.href) continue;
      if (entry.startTime - last > 1000 || entry.startTime - start > 5000 || windowOf !== location.href) {
        windowOf = location.href;
        start = entry.startTime;
        value = 0;
        sources = [];
      }
      last = entry.startTime;
      value += entry.value;
      for (const s of entry.sources ?? []) sources.push(describe(s.node));
      const report = /** @type {any} */ (window).__guichetLayoutShift;
      if (value > limit && typeof report === 'function') report({ url: location.href, value, sources: [...new Set(sources)] });
    }
  }).observe({ type: 'layout-shift', buffered: true });
}

/**
 * Sets the observer up in a new context (launchBrowser calls it).
 * @param {import('playwright-core').BrowserContext} context
 */
export async function watchLayoutShifts(context) {
  await context.exposeBinding('__guichetLayoutShift', (_source, /** @type {Shift} */ shift) => {
    const known = over.find((s) => s.url === shift.url);
    if (known) Object.assign(known, shift);
    else over.push(shift);
  });
  await context.addInitScript(observe, CLS_LIMIT);
}

/** The windows over the limit since the last call, and forgets them. */
export function takeLayoutShifts() {
  return over.splice(0);
}

afterEach((t) => {
  const shifts = takeLayoutShifts();
  if (shifts.length === 0) return;
  const lines = shifts.map((s) => `${s.url}: ${s.value.toFixed(3)} (${s.sources.join(', ') || 'no source named'})`);
  verdict('CLS', t.name, lines, `layout shift over ${CLS_LIMIT} (issue 32)`);
});
