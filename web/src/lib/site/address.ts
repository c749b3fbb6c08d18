import type { Resolution } from './resolve';

/**
 * The address after a choice in the header: a ?province= or ?lang= it still
 * has takes the chosen value, since the server reads the query before the
 * cookies and a reload would undo the choice. The path, the other
 * parameters and the fragment stay; a parameter the address lacks is not
 * added (the cookie carries the choice). null when nothing changes.
 */
export function addressAfterChoice(href: string, choice: Resolution): string | null {
  const url = new URL(href);
  let changed = false;
  for (const [name, value] of [
    ['province', choice.province],
    ['lang', choice.language],
  ] as const) {
    if (url.searchParams.has(name) && url.searchParams.getAll(name).join() !== value) {
      url.searchParams.set(name, value);
      changed = true;
    }
  }
  return changed ? `${url.pathname}${url.search}${url.hash}` : null;
}

/** Applies addressAfterChoice to the current address, as a replacement (no history entry). */
export function replaceAddressAfterChoice(choice: Resolution): void {
  const next = addressAfterChoice(window.location.href, choice);
  if (next !== null) window.history.replaceState(window.history.state, '', next);
}
