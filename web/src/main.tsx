import { startTransition, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from '@/app/app';
import { preloadPage } from '@/app/routes';
import { loadMessages } from '@/i18n/catalog';
import { createSecondClient } from '@/lib/api/client';
import { maintenancePageBypass } from '@/lib/api/use-api';
import { startCall } from '@/lib/flow/start-call';
import { readSiteConfig } from '@/lib/site/config';
import { applyTheme } from '@/lib/site/theme';
import type { SiteConfig } from '@/lib/site/types';
import '@/styles/global.css';

function showUnavailable(root: HTMLElement, error: unknown): void {
  console.error('guichet:', error);
  const message = document.createElement('p');
  message.textContent = 'This site is unavailable. / Ce site est indisponible.';
  root.replaceChildren(message);
}

async function start(root: HTMLElement): Promise<void> {
  let config: SiteConfig;
  try {
    config = readSiteConfig();
  } catch (error) {
    showUnavailable(root, error);
    return;
  }
  applyTheme(config.brand.theme);

  // Spec §7: GET api/v1/welcome is called on start; only maintenance is acted on.
  const client = createSecondClient({
    site: () => ({ province: config.province, language: config.language, apiKey: config.brand.apiKey }),
    maintenancePageBypass,
  });
  void startCall(() => client.request('get', '/welcome'));

  // The first render waits for the catalogue so no other language flashes,
  // and for the page's chunk so the first paint holds the whole page and
  // nothing moves when it arrives; should either fail to load, the app's
  // error boundary reports it.
  await Promise.all([
    loadMessages(config.brand.id, config.language).catch(() => undefined),
    preloadPage(window.location.pathname, config.dev, config.language),
  ]);
  // A transition: React renders the first page in slices of a few
  // milliseconds, yielding between them, instead of one long task that
  // holds the main thread (Lighthouse's total blocking time on phones).
  const app = createRoot(root);
  startTransition(() => {
    app.render(
      <StrictMode>
        <App config={config} />
      </StrictMode>,
    );
  });
}

const root = document.getElementById('root');
if (root) void start(root);
