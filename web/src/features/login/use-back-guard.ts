import { useEffect } from 'react';

const MARK = 'guichet-sign-in';

function marked(state: unknown): boolean {
  return typeof state === 'object' && state !== null && (state as Record<string, unknown>)[MARK] === true;
}

/**
 * Spec §2.2: a back press on the sign-in page pushes a history state, so
 * the visitor stays on the page. One marked entry sits on top of the page's
 * own; a back press lands on the page's entry, and the mark is pushed again.
 */
export function useBackGuard(): void {
  useEffect(() => {
    const push = () => {
      if (marked(window.history.state)) return;
      window.history.pushState({ ...(window.history.state ?? {}), [MARK]: true }, '', window.location.href);
    };
    push();
    const onPopState = () => {
      if (window.location.pathname === '/') push();
    };
    window.addEventListener('popstate', onPopState);
    return () => window.removeEventListener('popstate', onPopState);
  }, []);
}
