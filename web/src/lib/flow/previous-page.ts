// The page the visitor came from, for the flow guards of spec §2.4 ("if the
// user did not arrive from an allowed previous page"). Kept in memory only:
// a page opened by its address, reloaded or reached from another site has
// no previous page of the portal.

let current: string | null = null;
let previous: string | null = null;

/** Records the path of the page being shown (AppRoutes calls it on every render; a repeat changes nothing). */
export function notePage(path: string): void {
  if (path === current) return;
  previous = current;
  current = path;
}

/** The path of the page shown before the current one, or null. */
export function previousPage(): string | null {
  return previous;
}

/** Forgets the pages seen (tests start each case afresh). */
export function forgetPages(): void {
  current = null;
  previous = null;
}
