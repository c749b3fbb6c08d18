import { Suspense, useCallback, useEffect, useRef, useState, type ComponentType } from 'react';
import { useT } from '@/i18n/i18n';

// Spec §2.7's live-chat bubble (issue 17): a small button on every page. The
// widget itself (src/features/chat, its own chunk with its texts) is fetched
// on the first press only, so no page's first JavaScript carries it; the app
// hands it in as a lazy component (shared code imports no feature).

/** What the bubble gives the widget (src/features/chat/chat-widget.tsx). */
export interface ChatWidgetProps {
  open: boolean;
  onClose: () => void;
  onUnread: (count: number) => void;
  onLive: (live: boolean) => void;
}

/** Set while this browser has a live conversation (the conversation itself is the server's HttpOnly cookie). */
export const LIVE_KEY = 'guichet.chat.live';

/**
 * Set while the visitor has messages the server has not acknowledged yet
 * (typed offline, then the page reloaded): the widget loads at once, closed,
 * to send them (web/src/features/chat/unsent.ts).
 */
export const UNSENT_KEY = 'guichet.chat.unsent';

function hasUnsent(): boolean {
  try {
    return window.localStorage.getItem(UNSENT_KEY) !== null;
  } catch {
    return false;
  }
}

function readLive(): boolean {
  try {
    return window.localStorage.getItem(LIVE_KEY) === '1';
  } catch {
    return false;
  }
}

function writeLive(live: boolean) {
  try {
    if (live) window.localStorage.setItem(LIVE_KEY, '1');
    else window.localStorage.removeItem(LIVE_KEY);
  } catch {
    // storage disabled: the badge shows in this page only
  }
}

export function ChatBubble({ ChatWidget }: { ChatWidget: ComponentType<ChatWidgetProps> }) {
  const t = useT();
  const [loaded, setLoaded] = useState(hasUnsent);
  const [open, setOpen] = useState(false);
  const [live, setLive] = useState(readLive);
  const [unread, setUnread] = useState(0);
  const button = useRef<HTMLButtonElement>(null);

  // Another tab started or ended the conversation.
  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.key === LIVE_KEY || event.key === null) setLive(readLive());
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);

  const onLive = useCallback((value: boolean) => {
    writeLive(value);
    setLive(value);
  }, []);
  const onClose = useCallback(() => {
    setOpen(false);
    button.current?.focus();
  }, []);

  const label = t('chatBubble.open');
  return (
    <div className="chat-bubble-root">
      <button
        ref={button}
        type="button"
        className="chat-bubble"
        aria-expanded={open}
        aria-haspopup="dialog"
        onClick={() => {
          setLoaded(true);
          setOpen((value) => !value);
        }}
      >
        <svg className="chat-bubble__icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
          <path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z" />
        </svg>
        <span className="chat-bubble__text">{label}</span>
        {unread > 0 ? (
          <span className="chat-bubble__badge" data-testid="chat-unread">
            <span aria-hidden="true">{unread}</span>
            <span className="visually-hidden">{t('chatBubble.unread', { count: unread })}</span>
          </span>
        ) : live ? (
          <span className="chat-bubble__badge chat-bubble__badge--live" data-testid="chat-live">
            <span className="visually-hidden">{t('chatBubble.live')}</span>
          </span>
        ) : null}
      </button>
      {loaded ? (
        <Suspense fallback={null}>
          <ChatWidget open={open} onClose={onClose} onUnread={setUnread} onLive={onLive} />
        </Suspense>
      ) : null}
    </div>
  );
}
