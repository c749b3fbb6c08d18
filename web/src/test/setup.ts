import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// findBy*/waitFor give up after this long. Testing Library's 1 s default was
// missed on a loaded CI machine (a lazy route's first render took longer),
// and so, we believe, was 5 s with a load average above 9 (session 16). A
// wait that ends early costs nothing, so the bound only has to be generous.
configure({ asyncUtilTimeout: 20_000 });

// jsdom lays nothing out and cannot scroll (its scrollTo only reports "not
// implemented"); a page change scrolls to the top (shown-location.tsx).
if (typeof window !== 'undefined') window.scrollTo = () => undefined;

afterEach(() => {
  if (typeof document === 'undefined') return; // a test in the node environment
  cleanup();
  for (const pair of document.cookie.split(';')) {
    const name = pair.split('=')[0]?.trim();
    if (name) document.cookie = `${name}=; Max-Age=0; Path=/`;
  }
  delete window.dataLayer;
  window.history.replaceState(null, '', '/');
  document.documentElement.removeAttribute('lang');
  document.documentElement.removeAttribute('style');
});
