import { useEffect, useRef, useState } from 'react';
import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';
import type { ChatMessage, Item } from '@/console/chat/api';
import { cobrowseApi, cobrowseError, viewerHref } from './api';
import { ErrorAlert } from '@/console/alert';

export type ShareState =
  | { kind: 'none' }
  | { kind: 'pending'; session: string }
  | { kind: 'accepted'; session: string }
  | { kind: 'declined' }
  | { kind: 'ended' };

/** Where a conversation's screen sharing stands, from its system messages (the last co-browse one decides). */
export function shareState(messages: ChatMessage[]): ShareState {
  let session = '';
  let state: ShareState = { kind: 'none' };
  for (const m of messages) {
    if (m.sender !== 'system' || !m.system) continue;
    switch (m.system.key) {
      case 'cobrowseRequest':
        session = m.system.name ?? '';
        state = { kind: 'pending', session };
        break;
      case 'cobrowseAccepted':
        state = session ? { kind: 'accepted', session } : state;
        break;
      case 'cobrowseDeclined':
        state = { kind: 'declined' };
        break;
      case 'cobrowseEnded':
        state = { kind: 'ended' };
        break;
    }
  }
  return state;
}

const stateKey: Record<ShareState['kind'], MessageKey | null> = {
  none: null,
  pending: 'console.cobrowse.chat.pending',
  accepted: 'console.cobrowse.chat.accepted',
  declined: 'console.cobrowse.chat.declined',
  ended: 'console.cobrowse.chat.ended',
};

/**
 * The holder's "Ask to share screen" in a live conversation, and where the
 * request stands (pending, declined, accepted with the viewer's link, ended).
 */
export function ShareScreen({ item, messages }: { item: Item; messages: ChatMessage[] }) {
  const t = useT();
  // What this component asked, and in which conversation: a request (or an
  // error) of another conversation says nothing here (chat.tsx also keys it).
  const [asked, setAsked] = useState<{ conversation: string; session: string } | null>(null);
  const [failed, setFailed] = useState<{ conversation: string; key: MessageKey } | null>(null);
  const [busy, setBusy] = useState(false);
  const status = useRef<HTMLParagraphElement>(null);
  const open = useRef<HTMLAnchorElement>(null);
  const clicked = useRef(false);
  const session = asked?.conversation === item.id ? asked.session : null;
  const error = failed?.conversation === item.id ? failed.key : null;
  let state = shareState(messages);
  // Asked: pending until the transcript's request message arrives.
  if (session && state.kind !== 'pending' && state.kind !== 'accepted' && !messages.some((m) => m.system?.name === session))
    state = { kind: 'pending', session };
  const ask = async () => {
    const conversation = item.id;
    clicked.current = true;
    setBusy(true);
    setFailed(null);
    const answer = await cobrowseApi.request(conversation);
    setBusy(false);
    if (answer.status === 201 && answer.data) setAsked({ conversation, session: answer.data.id });
    else setFailed({ conversation, key: cobrowseError(answer.errorCode) });
  };
  // Ask gives way to the status (pending) or the viewer's link (accepted):
  // focus follows rather than falling to <body>.
  const kind = state.kind;
  useEffect(() => {
    if (!clicked.current || (kind !== 'pending' && kind !== 'accepted')) return;
    if (document.activeElement !== null && document.activeElement !== document.body) return;
    (open.current ?? status.current)?.focus();
  }, [kind]);
  const key = stateKey[state.kind];
  return (
    <div className="cobrowse-share">
      <p role="status" ref={status} tabIndex={-1}>
        {key ? t(key, { name: item.name }) : ''}
      </p>
      {state.kind === 'accepted' ? (
        <a ref={open} className="console-button" href={viewerHref({ id: state.session, brand: item.brand, language: item.language })} target="_blank" rel="noopener">
          {t('console.cobrowse.chat.open', { name: item.name })}
        </a>
      ) : state.kind !== 'pending' ? (
        <button type="button" className="console-button console-button--quiet" onClick={() => void ask()} disabled={busy} aria-busy={busy || undefined}>
          {t('console.cobrowse.chat.ask')}
        </button>
      ) : null}
      <ErrorAlert error={error} />
    </div>
  );
}
