import { createContext, use, useEffect, useState, useTransition, type ReactNode } from 'react';
import { Redirect as WouterRedirect, Router, type RedirectProps } from 'wouter';
import { navigate } from 'wouter/use-browser-location';
import { pageKey } from './page-key';

// Issue 32: a page change was an urgent update (wouter reads the address
// with useSyncExternalStore), so a page whose chunk or messages had not
// arrived yet left an empty frame (the routes' Suspense fallback is
// empty) and then pushed the footer and the promo panel down when it came:
// a layout shift whenever that took more than the 500 ms a shift is
// forgiven after a click (a slow phone, a loaded machine). Here the
// address the app shows follows the browser's in a transition: React
// renders the new page beside the old one and keeps the old one on screen
// until the new one is whole, then swaps them in one frame. Every reader
// of wouter's location (the routes, page focus, the flow guards, the
// pages) sees the page shown, never an address the screen does not show
// yet; window.location is the browser's, already the next address.

interface Shown {
  path: string;
  search: string;
}

const read = (): Shown => ({ path: location.pathname, search: location.search });

const same = (a: Shown, b: Shown): boolean => a.path === b.path && a.search === b.search;

const keyOf = (at: Shown): string => pageKey(at.path, at.search);

/**
 * A new page starts at its top, as a browser's own navigation does, and
 * here the view goes there when the address changes, on the page being
 * left. Done at the swap, it came too late: a page scrolled down to a link
 * near its end (the login page's "Create an account" on a laptop) shows the
 * footer, and a swap more than 500 ms after the click (a slow phone, a
 * loaded machine) moved that footer in view, which Chrome counts as a
 * layout shift (CI, session 24: 0.070). A scroll is not a shift; from the
 * top, the shell's main (at least the window's height, shell.css) keeps the
 * footer below the fold before and after the swap. The header's language
 * and province choices stay where they are (pageKey).
 */
function startAtTop(): void {
  window.scrollTo(0, 0);
}

const ShownContext = createContext<Shown | null>(null);

// The events wouter's browser location listens to (it patches pushState
// and replaceState to send theirs: importing it above makes sure of that).
const EVENTS = ['popstate', 'pushState', 'replaceState', 'hashchange'] as const;

function useShown(): Shown {
  const shown = use(ShownContext);
  if (!shown) throw new Error('ShownLocation is missing above the router');
  return shown;
}

/** wouter's location hook: the path shown, and the browser's navigate. */
const useShownLocation = (): [string, typeof navigate] => [useShown().path, navigate];

/** wouter's search hook: the query shown. */
const useShownSearch = (): string => useShown().search;

/**
 * The router of the portal, over the location shown: a page change is a
 * transition, so the page on screen stays until the next one has rendered
 * whole (its chunk, its messages, what it suspends on).
 */
export function ShownLocationRouter({ children }: { children: ReactNode }) {
  const [shown, setShown] = useState(read);
  const [pending, startLeaving] = useTransition();
  useEffect(() => {
    let at = keyOf(read());
    const follow = () => {
      const next = read();
      const key = keyOf(next);
      if (key !== at) {
        at = key;
        startAtTop();
      }
      startLeaving(() => setShown((was) => (same(was, next) ? was : next)));
    };
    for (const event of EVENTS) addEventListener(event, follow);
    // An address changed between the first render and now (a redirect's layout effect) is followed too.
    follow();
    return () => {
      for (const event of EVENTS) removeEventListener(event, follow);
    };
  }, []);
  // A transition of the same address (a history entry pushed over the page's own) leaves nothing.
  useHeldWhileLeaving(pending && !same(shown, read()));
  return (
    <ShownContext value={shown}>
      <Router hook={useShownLocation} searchHook={useShownSearch}>
        {children}
      </Router>
    </ShownContext>
  );
}

/**
 * While a page change is under way the page being left is still on
 * screen, its forms' buttons enabled again once their answer came: a
 * second press would send the form again (a second code, a second
 * session). Until the next page shows, clicks and submits inside the
 * shell's main (id "main", as page-focus.ts) do nothing and main is
 * aria-busy; focus stays where it was (inert would drop it to <body>).
 * The header and footer stay live: a link there starts another change.
 */
function useHeldWhileLeaving(leaving: boolean): void {
  useEffect(() => {
    const main = leaving ? document.getElementById('main') : null;
    if (!main) return;
    const hold = (event: Event) => {
      if (!(event.target instanceof Node) || !main.contains(event.target)) return;
      event.preventDefault();
      event.stopPropagation();
    };
    for (const type of ['click', 'submit'] as const) document.addEventListener(type, hold, true);
    main.setAttribute('aria-busy', 'true');
    return () => {
      for (const type of ['click', 'submit'] as const) document.removeEventListener(type, hold, true);
      main.removeAttribute('aria-busy');
    };
  }, [leaving]);
}

/**
 * wouter's Redirect, but only on the page the address shows: while a page
 * change is under way the page being left still renders (above), and a
 * guard of it that sees the state its leaving changed (a roadblock's flag
 * cleared on the way out) must not send the visitor elsewhere.
 */
export function Redirect(props: RedirectProps) {
  if (!same(useShown(), read())) return null;
  return <WouterRedirect {...props} />;
}
