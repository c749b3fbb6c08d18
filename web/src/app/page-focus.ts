import { useEffect, useRef } from 'react';
import { useLocation, useSearch } from 'wouter';
import { pageKey } from '@/lib/navigation/page-key';

// Issue 12: on a page change focus moved nowhere (the body), so a screen
// reader said nothing of the new page. Focus goes to the new page's h1,
// which it reads out, with the title set by the page (usePageTitle).

/**
 * A document load that continues a journey in the portal, as the SSO form
 * post's redirect to /my-account does: a new navigation (not a reload or a
 * back) from another page of this site. Its first page counts as a page
 * change; a visit that starts here (typed, bookmarked, from elsewhere) keeps
 * the browser's focus at the top of the document.
 */
export function arrivedFromPortal(doc: Document = document): boolean {
  const [entry] = performance.getEntriesByType?.('navigation') ?? [];
  if (entry && (entry as PerformanceNavigationTiming).type !== 'navigate') return false;
  if (!doc.referrer) return false;
  const from = new URL(doc.referrer);
  return from.origin === doc.location.origin && from.pathname !== doc.location.pathname;
}

/** The page's h1 once shown: Suspense keeps a page it replaces in the DOM, hidden, while the next one loads. */
function shownHeading(main: HTMLElement): HTMLHeadingElement | null {
  for (const heading of main.querySelectorAll('h1')) {
    if (!heading.closest('[hidden], [style*="display: none"]')) return heading;
  }
  return null;
}

/**
 * Moves focus to the h1 of each new page (tabindex -1: focusable by script,
 * not in the tab order; no ring, shell.css) once it shows, lazy chunk and
 * redirects included. Not on the first page of a visit, unless it continues
 * one (arrivedFromPortal).
 */
export function usePageFocus(): void {
  const [path] = useLocation();
  const key = pageKey(path, useSearch());
  // The first page's key until the first change (a ref, not a flag:
  // StrictMode runs the first effect twice).
  const landing = useRef<string | null>(key);

  useEffect(() => {
    if (landing.current === key) {
      if (!arrivedFromPortal()) return;
    } else {
      landing.current = null;
    }
    const main = document.getElementById('main');
    if (!main) return;
    const focus = (): boolean => {
      const heading = shownHeading(main);
      if (!heading) return false;
      if (!heading.hasAttribute('tabindex')) heading.tabIndex = -1;
      heading.focus();
      return document.activeElement === heading;
    };
    if (focus()) return;
    const observer = new MutationObserver(() => {
      if (focus()) observer.disconnect();
    });
    observer.observe(main, { childList: true, subtree: true, attributes: true, attributeFilter: ['style', 'hidden'] });
    return () => observer.disconnect();
  }, [key]);
}
