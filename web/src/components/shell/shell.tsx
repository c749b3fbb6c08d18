import type { ReactNode } from 'react';
import { useT } from '@/i18n/i18n';
import { useSite } from '@/lib/site/site-context';
import { ChatBubble } from './chat-bubble';
import { CobrowseRoot } from './cobrowse-root';
import { Footer } from './footer';
import { Header } from './header';
import './shell.css';

/**
 * The page frame: skip link, header, main, footer, the chat bubble. In
 * webview mode (the mobile app, a waa- cookie) the app draws its own frame,
 * so only main shows (no chat bubble either, nor co-browse: its two starts,
 * the footer link and the chat, are not there). Co-browse's banner shows
 * above the header while the visitor shares.
 */
export function Shell({ children }: { children: ReactNode }) {
  const t = useT();
  const { webview } = useSite();
  if (webview) {
    return (
      <main id="main" className="site-main site-main--webview" tabIndex={-1}>
        {children}
      </main>
    );
  }
  return (
    <>
      <a className="skip-link" href="#main">
        {t('shell.skipToContent')}
      </a>
      <CobrowseRoot />
      <Header />
      <main id="main" className="site-main" tabIndex={-1}>
        {children}
      </main>
      <Footer />
      <ChatBubble />
    </>
  );
}
