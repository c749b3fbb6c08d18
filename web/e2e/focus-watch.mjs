// Issue 32: after an action, the focus never falls to <body>. Every context
// launchBrowser opens runs this watch in its pages' top frame: when the
// visitor acts (a key or a pointer pressed) while the focus is on <body> and
// the element that last had it has gone (removed, disabled, hidden or made
// inert), the action before dropped the focus, and a keyboard user's next
// Tab would start again at the top of the page. The test during which that
// happened is reported (an afterEach hook of every file importing the
// harness; watch-verdict.mjs: failed, or listed in a survey).
// A click on plain text, which also leaves the focus on <body>, is not
// reported: the element that had the focus is still there.
import { afterEach } from 'node:test';
import { verdict } from './watch-verdict.mjs';

/** @typedef {{ url: string; lost: string; on: string }} Drop */

/** Drops seen since the last check. @type {Drop[]} */
const drops = [];

/** Runs in the page (addInitScript). */
function watch() {
  if (window.top !== window) return;
  /** @type {Element | null} */
  let last = null;
  let lastName = '';
  const name = (/** @type {Element} */ el) => {
    const label = (el.getAttribute('aria-label') || el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 40);
    return `${el.nodeName.toLowerCase()}${el.id ? `#${el.id}` : ''}${label ? ` "${label}"` : ''}`;
  };
  document.addEventListener('focusin', (e) => {
    if (e.target instanceof Element) {
      last = e.target;
      lastName = name(e.target);
    }
  }, true);
  const gone = (/** @type {Element} */ el) =>
    !el.isConnected || /** @type {any} */ (el).disabled === true || el.closest('[inert]') !== null ||
    (typeof el.checkVisibility === 'function' && !el.checkVisibility());
  const act = (/** @type {Event} */ e) => {
    if (!last || document.activeElement !== document.body || !gone(last)) return;
    const report = /** @type {any} */ (window).__guichetFocusDrop;
    const on = e instanceof KeyboardEvent ? `key ${e.key}` : 'pointer';
    if (typeof report === 'function') report({ url: location.href, lost: lastName, on });
    last = null;
  };
  document.addEventListener('keydown', act, true);
  document.addEventListener('pointerdown', act, true);
}

/**
 * Sets the watch up in a new context (launchBrowser calls it).
 * @param {import('playwright-core').BrowserContext} context
 */
export async function watchFocus(context) {
  await context.exposeBinding('__guichetFocusDrop', (_source, /** @type {Drop} */ drop) => {
    drops.push(drop);
  });
  await context.addInitScript(watch);
}

/** The drops since the last call, and forgets them. */
export function takeFocusDrops() {
  return drops.splice(0);
}

afterEach((t) => {
  const seen = takeFocusDrops();
  if (seen.length === 0) return;
  const lines = seen.map((d) => `${d.url}: ${d.lost} was gone and the focus on <body> at the next ${d.on}`);
  verdict('FOCUS', t.name, lines, 'the focus fell to <body> (issue 32)');
});
