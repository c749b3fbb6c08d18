import { useEffect, useRef } from 'react';

/**
 * Runs `effect` once while the component is mounted: StrictMode's second
 * effect run and later renders skip it. For what must not happen twice: a
 * single-use link exchanged, a code sent, an email queued.
 */
export function useOnce(effect: () => void): void {
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    effect();
  }, [effect]);
}
