import { lazy, Suspense, type ReactNode } from 'react';
import { Shell } from '@/components/shell/shell';
import { I18nProvider } from '@/i18n/i18n';
import { ShownLocationRouter } from '@/lib/navigation/shown-location';
import { SiteProvider, useSite } from '@/lib/site/site-context';
import type { SiteConfig } from '@/lib/site/types';
import { AppErrorBoundary } from './error-boundary';
import { AppRoutes } from './routes';

// The shell's two features, each its own chunk, fetched when first needed.
const ChatWidget = lazy(() => import('@/features/chat/chat-widget'));
const Cobrowse = lazy(() => import('@/features/cobrowse/cobrowse'));

function SiteMessages({ children }: { children: ReactNode }) {
  const { brand, language } = useSite();
  return (
    <I18nProvider brand={brand.id} language={language}>
      {children}
    </I18nProvider>
  );
}

/** The whole app for one site, over the browser's location (a page change is a transition: ShownLocationRouter). */
export function App({ config }: { config: SiteConfig }) {
  return (
    <AppErrorBoundary>
      <ShownLocationRouter>
        <SiteProvider config={config}>
          <Suspense fallback={null}>
            <SiteMessages>
              <Shell ChatWidget={ChatWidget} Cobrowse={Cobrowse}>
                <AppRoutes />
              </Shell>
            </SiteMessages>
          </Suspense>
        </SiteProvider>
      </ShownLocationRouter>
    </AppErrorBoundary>
  );
}
