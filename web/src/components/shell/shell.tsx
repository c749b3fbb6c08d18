import type { ComponentType, ReactNode } from 'react';
import { useT } from '@/i18n/i18n';
import { useSite } from '@/lib/site/site-context';
import { ChatBubble, type ChatWidgetProps } from './chat-bubble';
import { CobrowseRoot, type CobrowseProps } from './cobrowse-root';
import { Footer } from './footer';
import { Header } from './header';
import './shell.css';

/**
 * The page frame: skip link, header, main, footer, the chat bubble. In
 * webview mode (the mobile app, a waa- cookie) the app draws its own frame,
 * so only main shows (no chat bubble either, nor co-browse: its two starts,
 * the footer link and the chat, are not there). Co-browse's banner shows
 * above the header while the visitor shares. The chat widget and co-browse
 * are features, handed in by the app (lazy: their own chunks).
 */
export function Shell({
  children,
  ChatWidget,
  Cobrowse,
}: {
  children: ReactNode;
  ChatWidget: ComponentType<ChatWidgetProps>;
  Cobrowse: ComponentType<CobrowseProps>;
}) {
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
      <CobrowseRoot Cobrowse={Cobrowse} />
      <Header />
      <main id="main" className="site-main" tabIndex={-1}>
        {children}
      </main>
      <Footer />
      <ChatBubble ChatWidget={ChatWidget} />
    </>
  );
}
