import { useCallback, useEffect, useId, useMemo, useReducer, useRef, useState, type RefObject } from 'react';
import { useLocation } from 'wouter';
import { useT } from '@/i18n/i18n';
import { PrivateText } from '@/i18n/private-text';
import type { SectionKey } from '@/i18n/catalog';
import { MessageSection } from '@/i18n/section';
import { useApiClients } from '@/lib/api/use-api';
import type { QuickReply } from '@/lib/chat/frames';
import { openChatSocket, type ChatSocket } from '@/lib/chat/socket';
import { trapKeys } from '@/lib/dialog/trap';
import { useSite } from '@/lib/site/site-context';
import { chatApi, roadblockOf, visitorSocketUrl, type ChatApi, type ConfigAnswer } from './api';
import { initialConversation, lastReadOwn, newClientId, reduce } from './conversation';
import { errorKey } from './forms';
import { Transcript } from './transcript';
import { readUnsent, writeUnsent } from './unsent';
import { ClosedNotice, EndPanel, OfflineForm, Prechat, type Context } from './views';
import '@/components/form/form.css';
import './chat.css';

// The visitor's live-chat widget (issue 17), loaded by the shell's bubble on
// its first press (components/shell/chat-bubble.tsx): a 354 × 500 popup
// (spec §4.5) on desktop, a full-screen dialog on phones. Closing it hides it
// and keeps the conversation (and its socket) going; the bubble counts what
// arrives meanwhile.

export interface ChatWidgetProps {
  open: boolean;
  onClose: () => void;
  /** Messages from the agent or the bot that arrived while closed. */
  onUnread: (count: number) => void;
  /** A conversation is live (the bubble's badge, kept across reloads and tabs). */
  onLive: (live: boolean) => void;
}

type View =
  | { kind: 'loading' }
  | { kind: 'failed' }
  | { kind: 'closed'; error?: SectionKey }
  | { kind: 'prechat' }
  | { kind: 'sent'; name: string; email: string }
  | { kind: 'chat'; conversationId: string };

export default function ChatWidget(props: ChatWidgetProps) {
  const { language } = useSite();
  return (
    <MessageSection name="chat" language={language}>
      <Dialog {...props} />
    </MessageSection>
  );
}

function Dialog({ open, onClose, onUnread, onLive }: ChatWidgetProps) {
  const t = useT();
  const { language } = useSite();
  const clients = useApiClients();
  const api = useMemo(() => chatApi(clients.second), [clients]);
  const [location] = useLocation();
  const context: Context = { page: location, roadblock: roadblockOf(location) };
  const titleId = useId();
  const dialog = useRef<HTMLDivElement>(null);
  const title = useRef<HTMLHeadingElement>(null);
  const [view, setView] = useState<View>({ kind: 'loading' });
  const [config, setConfig] = useState<ConfigAnswer | null>(null);
  const [attempt, setAttempt] = useState(0);

  // Opening: the configuration and the cookie's conversation, together.
  useEffect(() => {
    let live = true;
    void (async () => {
      const [cfg, current] = await Promise.all([api.config(), api.current()]);
      if (!live) return;
      if (cfg.ok) setConfig(cfg.data);
      if (current.ok && current.data.status !== 'ended') {
        onLive(true);
        setView({ kind: 'chat', conversationId: current.data.id });
        return;
      }
      onLive(false);
      if (!cfg.ok) setView({ kind: 'failed' });
      else if (cfg.data.config.chat.open || cfg.data.config.chat.chatbot) setView({ kind: 'prechat' });
      else setView({ kind: 'closed' });
    })();
    return () => {
      live = false;
    };
  }, [api, attempt, onLive]);

  // The focus moves in when the dialog shows, and stays in while it does.
  useEffect(() => {
    if (!open) return;
    title.current?.focus();
    const onKeyDown = (event: KeyboardEvent) => {
      if (dialog.current) trapKeys(event, dialog.current, onClose);
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [open, onClose]);

  // A step that replaces the pressed button ("Start chat", "Talk to a
  // person", "Leave us a message") or disables it would let the focus fall
  // to <body>, behind the modal dialog (issue 32): it comes back to the
  // dialog, on the step's alert when there is one, else on its title.
  useEffect(() => {
    const element = dialog.current;
    if (!open || !element) return;
    const observer = new MutationObserver(() => {
      const active = document.activeElement;
      if (active !== null && active !== document.body) return; // in the dialog, or elsewhere on purpose
      (element.querySelector<HTMLElement>('.chat-dialog__body [role="alert"][tabindex]') ?? title.current)?.focus();
    });
    observer.observe(element, { childList: true, subtree: true, attributes: true, attributeFilter: ['disabled', 'hidden'] });
    return () => observer.disconnect();
  }, [open]);

  const chat = config?.config.chat;
  return (
    <div
      ref={dialog}
      className="chat-dialog"
      role="dialog"
      aria-modal="true"
      aria-labelledby={titleId}
      hidden={!open}
    >
      <div className="chat-dialog__header">
        <h2 id={titleId} ref={title} tabIndex={-1} className="chat-dialog__title">
          {t('chat.title')}
        </h2>
        <button type="button" className="chat-dialog__close" onClick={onClose} aria-label={t('chat.close')}>
          <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">
            <path d="M6.4 5 12 10.6 17.6 5 19 6.4 13.4 12l5.6 5.6-1.4 1.4-5.6-5.6L6.4 19 5 17.6 10.6 12 5 6.4z" />
          </svg>
        </button>
      </div>
      <div className="chat-dialog__body">
        {view.kind === 'loading' ? (
          <p role="status" className="chat-loading">
            {t('chat.loading')}
          </p>
        ) : null}
        {view.kind === 'failed' ? (
          <div role="alert" className="chat-failed">
            <p>{t('chat.error.load')}</p>
            <button type="button" className="button button--secondary" onClick={() => { setView({ kind: 'loading' }); setAttempt((n) => n + 1); }}>
              {t('chat.retry')}
            </button>
          </div>
        ) : null}
        {(view.kind === 'closed' || view.kind === 'prechat') && chat && config ? (
          <>
            {!chat.open ? (
              <ClosedNotice chat={chat} now={config.serverNow} language={language} />
            ) : view.kind === 'closed' && view.error === 'chat.error.noAgent' ? (
              // Open hours, nobody free: the phone, with no reopening time.
              <ClosedNotice chat={{ ...chat, reason: 'no-agent', nextOpen: null }} now={config.serverNow} language={language} />
            ) : null}
            {view.kind === 'closed' && view.error ? (
              <p role="alert" className="form-alert">
                {t(view.error)}
              </p>
            ) : null}
            {view.kind === 'prechat' ? (
              <>
                {!chat.open ? <p>{t('chat.prechat.botClosed')}</p> : null}
                <Prechat
                  api={api}
                  context={context}
                  onStarted={(conversation) => {
                    onLive(true);
                    setView({ kind: 'chat', conversationId: conversation?.id ?? '' });
                  }}
                />
                {!chat.open ? (
                  <button type="button" className="button button--secondary" onClick={() => setView({ kind: 'closed' })}>
                    {t('chat.offline.title')}
                  </button>
                ) : null}
              </>
            ) : (
              <OfflineForm api={api} context={context} onSent={(name, email) => setView({ kind: 'sent', name, email })} />
            )}
          </>
        ) : null}
        {view.kind === 'sent' ? (
          <div role="status" className="chat-sent">
            <p><PrivateText id="chat.offline.sent" params={{ name: view.name, email: view.email }} kinds={{ name: 'name', email: 'email' }} /></p>
          </div>
        ) : null}
        {view.kind === 'chat' ? (
          <ConversationView
            key={view.conversationId}
            conversationId={view.conversationId}
            api={api}
            open={open}
            timeZone={chat?.timeZone ?? 'America/Toronto'}
            onUnread={onUnread}
            onLive={onLive}
            onClosedHandover={(code) => setView({ kind: 'closed', error: errorKey(code) })}
            onNewChat={() => {
              setView({ kind: 'loading' });
              setAttempt((n) => n + 1);
            }}
            titleRef={title}
          />
        ) : null}
      </div>
    </div>
  );
}

interface ConversationViewProps {
  conversationId: string;
  api: ChatApi;
  open: boolean;
  timeZone: string;
  onUnread: (count: number) => void;
  onLive: (live: boolean) => void;
  onClosedHandover: (errorCode: string) => void;
  onNewChat: () => void;
  titleRef: RefObject<HTMLHeadingElement | null>;
}

const TYPING_IDLE_MS = 3000;

function ConversationView({ conversationId, api, open, timeZone, onUnread, onLive, onClosedHandover, onNewChat, titleRef }: ConversationViewProps) {
  const t = useT();
  const { language } = useSite();
  // Messages typed before a reload and never acknowledged start as pending.
  const [state, dispatch] = useReducer(reduce, conversationId, (id) => ({ ...initialConversation, pending: readUnsent(id) }));
  const unsent = useRef(state.pending);
  const socket = useRef<ChatSocket | null>(null);
  const [draft, setDraft] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [actionError, setActionError] = useState<SectionKey | null>(null);
  const typing = useRef<{ on: boolean; timer?: ReturnType<typeof setTimeout> }>({ on: false });
  const seen = useRef(0);
  const readSent = useRef(0);
  const composerId = useId();

  useEffect(() => {
    const typingState = typing.current;
    const sock = openChatSocket({
      url: (after) => visitorSocketUrl(after),
      onFrame: (frame) => dispatch({ kind: 'frame', frame }),
      onStatus: (status) => dispatch({ kind: 'connection', status }),
    });
    socket.current = sock;
    // Sent again with their clientId: the server stores each once.
    for (const p of unsent.current) sock.send({ type: 'message', clientId: p.clientId, body: p.body });
    return () => {
      sock.close();
      socket.current = null;
      clearTimeout(typingState.timer);
    };
  }, []);

  useEffect(() => {
    if (conversationId) writeUnsent(conversationId, state.pending);
  }, [conversationId, state.pending]);

  // The server closed for good (1000 ended, 4404 unknown or ended): the chat is over.
  const ended = state.status === 'ended' || state.connection === 'closed';
  useEffect(() => {
    if (ended) onLive(false);
  }, [ended, onLive]);

  // Unread while hidden; read receipts while shown.
  const lastSeq = state.messages.at(-1)?.seq ?? 0;
  useEffect(() => {
    if (open) {
      seen.current = lastSeq;
      onUnread(0);
      if (lastSeq > readSent.current && !ended) {
        readSent.current = lastSeq;
        socket.current?.send({ type: 'read', seq: lastSeq });
      }
      return;
    }
    onUnread(state.messages.filter((m) => m.seq > seen.current && m.sender !== 'visitor').length);
  }, [open, lastSeq, state.messages, onUnread, ended]);

  const setTyping = useCallback((on: boolean) => {
    const current = typing.current;
    clearTimeout(current.timer);
    if (on) current.timer = setTimeout(() => setTyping(false), TYPING_IDLE_MS);
    if (current.on === on) return;
    current.on = on;
    socket.current?.send({ type: 'typing', on });
  }, []);

  function send(body: string) {
    const text = body.trim();
    if (!text || ended) return;
    const clientId = newClientId();
    dispatch({ kind: 'send', pending: { clientId, body: text } });
    socket.current?.send({ type: 'message', clientId, body: text });
  }

  async function handover() {
    setActionError(null);
    const answer = await api.handover();
    if (answer.ok) return;
    if (answer.errorCode === 'CHAT_CLOSED' || answer.errorCode === 'CHAT_NO_AGENT') onClosedHandover(answer.errorCode);
    else setActionError(errorKey(answer.errorCode));
  }

  async function end() {
    setConfirming(false);
    const answer = await api.end();
    if (answer.ok || answer.errorCode === 'CONVERSATION_ENDED') {
      dispatch({ kind: 'status', status: 'ended', queuePosition: null });
      titleRef.current?.focus();
    } else setActionError(errorKey(answer.errorCode));
  }

  const statusText: string[] = [];
  if (state.connection === 'reconnecting') statusText.push(t('chat.connection.reconnecting'));
  else if (state.connection === 'connecting') statusText.push(t('chat.connection.connecting'));
  if (state.status === 'waiting') {
    statusText.push(state.queuePosition ? t('chat.queue', { position: state.queuePosition }) : t('chat.waiting'));
  }
  const typingName = state.agentTyping && state.status === 'active' ? (state.agentName ?? t('chat.sender.agent')) : null;

  return (
    <div className="chat-conversation">
      <div role="status" className="chat-status">
        {statusText.map((s) => (
          <p key={s}>{s}</p>
        ))}
      </div>
      <Transcript
        messages={state.messages}
        pending={state.pending}
        timeZone={timeZone}
        language={language}
        readSeq={lastReadOwn(state)}
        quickReplies={state.status === 'bot'}
        onQuickReply={(q: QuickReply) => send(q.text)}
        typingName={typingName}
      />
      {actionError ? (
        <p role="alert" className="form-alert">
          {t(actionError)}
        </p>
      ) : null}
      {ended ? (
        <>
          <p className="chat-ended">{t('chat.ended.title')}</p>
          <EndPanel api={api} onNewChat={onNewChat} />
        </>
      ) : (
        <>
          <form
            className="chat-composer"
            onSubmit={(event) => {
              event.preventDefault();
              send(draft);
              setDraft('');
              setTyping(false);
            }}
          >
            <label htmlFor={composerId} className="visually-hidden">
              {t('chat.composer.label')}
            </label>
            <textarea
              id={composerId}
              className="field__input chat-composer__input"
              rows={2}
              maxLength={2000}
              value={draft}
              onChange={(event) => {
                setDraft(event.target.value);
                setTyping(event.target.value !== '');
              }}
              onKeyDown={(event) => {
                if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
                  event.preventDefault();
                  event.currentTarget.form?.requestSubmit();
                }
              }}
            />
            <button type="submit" className="chat-composer__send">
              {t('chat.composer.send')}
            </button>
          </form>
          <div className="chat-actions">
            {state.status === 'bot' ? (
              <button type="button" className="chat-action" onClick={() => void handover()}>
                {t('chat.handover')}
              </button>
            ) : null}
            {confirming ? (
              <div className="chat-confirm" role="group" aria-labelledby={`${composerId}-confirm`}>
                <p id={`${composerId}-confirm`}>{t('chat.end.confirm')}</p>
                <button type="button" className="chat-action chat-action--danger" onClick={() => void end()} autoFocus>
                  {t('chat.end.yes')}
                </button>
                <button type="button" className="chat-action" onClick={() => setConfirming(false)}>
                  {t('chat.end.no')}
                </button>
              </div>
            ) : (
              <button type="button" className="chat-action" onClick={() => setConfirming(true)}>
                {t('chat.end')}
              </button>
            )}
          </div>
        </>
      )}
    </div>
  );
}
