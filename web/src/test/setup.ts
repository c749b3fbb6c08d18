import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// findBy*/waitFor give up after this long. Testing Library's 1 s default was
// missed on a loaded CI machine (a lazy route's first render took longer); a
// wait that ends early costs nothing, so the bound only has to be generous.
configure({ asyncUtilTimeout: 5000 });

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
