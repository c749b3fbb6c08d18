import { render, screen } from '@testing-library/react';
import { StrictMode } from 'react';
import { App } from '@/app/app';
import { loadMessages } from '@/i18n/catalog';
import type { SiteConfig } from '@/lib/site/types';

/** Renders the whole app at a URL as main.tsx does, once its first page has shown. */
export async function renderApp(config: SiteConfig, url = '/not-found') {
  window.history.replaceState(null, '', url);
  await loadMessages(config.brand.id, config.language);
  const result = render(
    <StrictMode>
      <App config={config} />
    </StrictMode>,
  );
  await screen.findByRole('heading', { level: 1 });
  return result;
}
