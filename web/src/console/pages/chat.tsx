import { useCallback, useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';
import { ConfirmDialog } from '@/console/dialog';
import { PageHeading } from '@/console/heading';
import { useSession } from '@/console/session';
import { chatApi, chatError, CHAT_LANGUAGES, MAX_MESSAGE, type Availability, type Canned, type ChatLanguage, type Item } from '@/console/chat/api';
import { useChat } from '@/console/chat/context';
import { ShareScreen } from '@/console/cobrowse/request';
import { CannedReplies, Composer, languageName, Transcript, TransferDialog, VisitorContext } from '@/console/chat/conversation';
import { duration, useServerNow, waited, when } from '@/console/chat/format';
import { MessageText } from '@/console/chat/text';
import { Table } from '@/console/table';
import { ErrorAlert } from '@/console/alert';

/** Available or away, and the languages the agent takes (PUT availability). */
function AvailabilityForm({ onChange }: { onChange: (a: Availability) => void }) {
  const t = useT();
  const id = useId();
  const [availability, setAvailability] = useState<Availability | null>(null);
  const [error, setError] = useState<MessageKey | null>(null);
  useEffect(() => {
    let live = true;
    void chatApi.availability().then((answer) => {
      if (!live) return;
      const a: Availability = answer.status === 200 && answer.data ? answer.data : { status: 'away', languages: [] };
      const next = { status: a.status === 'available' ? 'available' : 'away', languages: a.languages?.length ? a.languages : [...CHAT_LANGUAGES] } as Availability;
      setAvailability(next);
      onChange(next);
    });
    return () => {
      live = false;
    };
  }, [onChange]);
  if (!availability) return <p role="status">{t('console.loading')}</p>;

  const save = async (next: Availability) => {
    if (next.status === 'available' && next.languages.length === 0) {
      setAvailability(next);
      setError('console.chat.availability.noLanguage');
      return;
    }
    const before = availability;
    setAvailability(next);
    const answer = await chatApi.setAvailability(next);
    if (answer.status !== 200) {
      setAvailability(before);
      setError(chatError(answer.errorCode));
      return;
    }
    setError(null);
    const saved = answer.data ? { status: answer.data.status, languages: answer.data.languages ?? next.languages } : next;
    setAvailability(saved);
    onChange(saved);
  };
  const languages = availability.languages.map((l) => languageName(l, t)).join(', ');
  return (
    <form className="chat-availability" onSubmit={(e) => e.preventDefault()} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('console.chat.availability.title')}</h2>
      <fieldset className="console-fieldset chat-inline">
        <legend>{t('console.chat.availability.status')}</legend>
        {(['available', 'away'] as const).map((status) => (
          <label key={status}>
            <input
              type="radio"
              name={`${id}-status`}
              checked={availability.status === status}
              onChange={() => void save({ ...availability, status })}
            />{' '}
            {t(status === 'available' ? 'console.chat.availability.available' : 'console.chat.availability.away')}
          </label>
        ))}
      </fieldset>
      <fieldset className="console-fieldset chat-inline">
        <legend>{t('console.chat.availability.languages')}</legend>
        {CHAT_LANGUAGES.map((language: ChatLanguage) => (
          <label key={language} lang={language}>
            <input
              type="checkbox"
              checked={availability.languages.includes(language)}
              onChange={(e) =>
                void save({
                  ...availability,
                  languages: e.target.checked ? CHAT_LANGUAGES.filter((l) => l === language || availability.languages.includes(l)) : availability.languages.filter((l) => l !== language),
                })
              }
            />{' '}
            {language === 'en' ? 'English' : 'Français'}
          </label>
        ))}
      </fieldset>
      <p role="status">
        {availability.status === 'available' ? t('console.chat.availability.isAvailable', { languages }) : t('console.chat.availability.isAway')}
      </p>
      <ErrorAlert error={error} />
    </form>
  );
}

/** The waiting conversations, the longest wait first, with an Accept button each. */
function WaitingList({ items, total, onAccept, busy }: { items: Item[]; total: number; onAccept: (item: Item) => void; busy: string }) {
  const t = useT();
  const { state } = useChat();
  const now = useServerNow(state.skew);
  const sorted = [...items].sort((a, b) => Date.parse(a.waitingSince) - Date.parse(b.waitingSince));
  return (
    <section aria-labelledby="chat-waiting-title">
      <h2 id="chat-waiting-title">{t('console.chat.waiting.title')}</h2>
      <p role="status" className="visually-hidden">
        {t('console.chat.waiting.count', { count: String(Math.max(total, items.length)) })}
      </p>
      {total > items.length ? <p>{t('console.chat.list.partial', { shown: String(items.length), total: String(total) })}</p> : null}
      {sorted.length === 0 ? (
        <p>{t('console.chat.waiting.none')}</p>
      ) : (
        <Table
          caption={t('console.chat.waiting.title')}
          rows={sorted}
          rowKey={(item) => item.id}
          columns={[
            { label: t('console.chat.column.visitor'), cell: (item) => item.name },
            { label: t('console.chat.context.brand'), cell: (item) => item.brand },
            { label: t('console.chat.context.language'), cell: (item) => languageName(item.language, t) },
            { label: t('console.chat.context.topic'), cell: (item) => item.topic },
            {
              label: t('console.chat.column.waited'),
              cell: (item) => <span data-testid={`waited-${item.id}`}>{duration(waited(item.waitingSince || item.createdAt, now))}</span>,
            },
            {
              label: t('console.action.heading'),
              cell: (item) => (
                <button type="button" className="console-button" disabled={busy === item.id} onClick={() => onAccept(item)}>
                  {t('console.chat.accept', { name: item.name })}
                </button>
              ),
            },
          ]}
        />
      )}
    </section>
  );
}

/**
 * An offline message's question: the queue holds a preview (at most
 * QUESTION_PREVIEW characters); a cut one is read whole from the
 * conversation's first message.
 */
function OfflineQuestion({ item }: { item: Item }) {
  const preview = item.question ?? item.topic;
  const [whole, setWhole] = useState<string | null>(null);
  const cut = [...(item.question ?? '')].length >= QUESTION_PREVIEW;
  useEffect(() => {
    if (!cut) return;
    let live = true;
    void chatApi.conversation(item.id).then((answer) => {
      const first = answer.status === 200 ? answer.data?.messages?.find((m) => m.sender === 'visitor') : undefined;
      if (live && first?.body) setWhole(first.body);
    });
    return () => {
      live = false;
    };
  }, [cut, item.id]);
  return <MessageText text={whole ?? preview} />;
}

/** The queue's preview of an offline question, in characters (internal/chat QuestionPreview). */
export const QUESTION_PREVIEW = 200;

/** Messages left while chat was closed: answered by email (POST reply), which closes them. */
function OfflineList({ items, total, onAnswered }: { items: Item[]; total: number; onAnswered: (item: Item) => void }) {
  const t = useT();
  const { language } = useSession();
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, MessageKey | undefined>>({});
  const send = async (event: FormEvent, item: Item) => {
    event.preventDefault();
    const body = (drafts[item.id] ?? '').trim();
    if (body === '' || body.length > MAX_MESSAGE) {
      setErrors({ ...errors, [item.id]: body === '' ? 'console.chat.offline.empty' : 'console.chat.error.tooLong' });
      return;
    }
    const answer = await chatApi.reply(item.id, body);
    if (answer.status === 202 || answer.status === 200 || answer.status === 204) {
      setErrors({ ...errors, [item.id]: undefined });
      onAnswered(item);
      return;
    }
    setErrors({ ...errors, [item.id]: chatError(answer.errorCode) });
  };
  return (
    <section aria-labelledby="chat-offline-title">
      <h2 id="chat-offline-title">{t('console.chat.offline.title')}</h2>
      {items.length === 0 ? <p>{t('console.chat.offline.none')}</p> : null}
      {total > items.length ? <p>{t('console.chat.list.partial', { shown: String(items.length), total: String(total) })}</p> : null}
      {items.map((item) => (
        <article key={item.id} className="chat-offline" aria-labelledby={`chat-offline-${item.id}`}>
          <h3 id={`chat-offline-${item.id}`}>{t('console.chat.offline.from', { name: item.name, email: item.email ?? '' })}</h3>
          <p className="chat-offline__meta">
            {item.brand} · {languageName(item.language, t)} · {when(item.createdAt, language)}
          </p>
          <p className="chat-line__body">
            <OfflineQuestion item={item} />
          </p>
          <form onSubmit={(e) => void send(e, item)} noValidate>
            <div className="console-field">
              <label htmlFor={`chat-offline-reply-${item.id}`}>{t('console.chat.offline.reply', { email: item.email ?? '' })}</label>
              <textarea
                id={`chat-offline-reply-${item.id}`}
                rows={4}
                value={drafts[item.id] ?? ''}
                onChange={(e) => setDrafts({ ...drafts, [item.id]: e.target.value })}
              />
            </div>
            <div role="alert" className={errors[item.id] ? 'console-error' : undefined}>
              {errors[item.id] ? t(errors[item.id] as MessageKey) : null}
            </div>
            <button type="submit" className="console-button">
              {t('console.chat.offline.send')}
            </button>
          </form>
        </article>
      ))}
    </section>
  );
}

type Pending = { kind: 'end'; item: Item } | { kind: 'transfer'; item: Item };

/** /chat: the agent's availability, the queue, the conversations held (as tabs), the offline messages. */
export function ChatPage() {
  const t = useT();
  const chat = useChat();
  const { state, start, send, dispatch, refreshQueue } = chat;
  const [selected, setSelected] = useState('');
  const [known, setKnown] = useState<Record<string, Item>>({});
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [canned, setCanned] = useState<Canned>({});
  const [error, setError] = useState<MessageKey | null>(null);
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState('');
  const [focusToken, setFocusToken] = useState(0);
  const [dialog, setDialog] = useState<Pending | null>(null);
  const readSent = useRef<Record<string, number>>({});
  const refusal = useRef<HTMLDivElement>(null);

  useEffect(() => start(), [start]);
  useEffect(() => {
    let live = true;
    void chatApi.canned().then((answer) => {
      if (live && answer.status === 200 && answer.data) setCanned(answer.data);
    });
    return () => {
      live = false;
    };
  }, []);

  const mine = useMemo(() => state.queue?.mine ?? [], [state.queue]);
  // Remember every conversation held here: one the visitor ends stays readable until closed.
  useEffect(() => {
    if (mine.length === 0) return;
    setKnown((k) => {
      const next = { ...k };
      for (const item of mine) next[item.id] = item;
      return next;
    });
  }, [mine]);
  const tabs = [...mine, ...Object.values(known).filter((k) => !mine.some((m) => m.id === k.id) && k.id === selected)];
  const current = tabs.find((i) => i.id === selected) ?? null;
  const isHeld = mine.some((m) => m.id === selected);
  const ended = current ? Boolean(state.ended[current.id]) || !isHeld : false;

  // The transcript so far (REST), then the socket brings the rest after its last seq.
  const messages = current ? state.messages[current.id] : undefined;
  useEffect(() => {
    if (!current || messages) return;
    let live = true;
    void chatApi.conversation(current.id).then((answer) => {
      if (live && answer.status === 200 && answer.data) dispatch({ kind: 'messages', conversationId: current.id, messages: answer.data.messages ?? [] });
    });
    return () => {
      live = false;
    };
  }, [current, messages, dispatch]);

  // The selected conversation is on screen: what the visitor wrote is read.
  useEffect(() => {
    if (!current || !messages?.length || ended) return;
    const last = messages.at(-1)?.seq ?? 0;
    if ((readSent.current[current.id] ?? 0) >= last) return;
    readSent.current[current.id] = last;
    send({ type: 'read', conversationId: current.id, seq: last });
  }, [current, messages, ended, send]);

  const onAvailability = useCallback(() => void refreshQueue(), [refreshQueue]);

  const accept = async (item: Item) => {
    setBusy(item.id);
    setDone('');
    const answer = await chatApi.accept(item.id);
    setBusy('');
    if (answer.status === 200) {
      setError(null);
      const held = answer.data && answer.data.id ? answer.data : item;
      if (state.queue)
        dispatch({
          kind: 'queue',
          queue: { ...state.queue, waiting: state.queue.waiting.filter((w) => w.id !== item.id), mine: [...state.queue.mine.filter((m) => m.id !== held.id), held] },
        });
      setKnown((k) => ({ ...k, [held.id]: held }));
      setSelected(held.id);
      setFocusToken((n) => n + 1);
      void refreshQueue();
      return;
    }
    setError(chatError(answer.errorCode));
    // The refusal takes the focus: taken by another agent, the Accept button goes with the conversation (issue 32).
    refusal.current?.focus();
    if (answer.errorCode === 'ALREADY_TAKEN') void refreshQueue();
  };

  const sendMessage = (item: Item, body: string) => {
    const clientId = crypto.randomUUID();
    dispatch({ kind: 'pending', conversationId: item.id, pending: { clientId, body } });
    send({ type: 'message', conversationId: item.id, clientId, body });
  };

  const end = async (item: Item) => {
    setDialog(null);
    const answer = await chatApi.end(item.id);
    if (answer.status === 200 || answer.status === 204) {
      setError(null);
      setDone(t('console.chat.done.ended', { name: item.name }));
      setSelected('');
      void refreshQueue();
      return;
    }
    setError(chatError(answer.errorCode));
  };

  const waiting = state.queue?.waiting ?? [];
  const offline = state.queue?.offline ?? [];
  const replies = current ? (canned[current.brand]?.[current.language as ChatLanguage] ?? []) : [];
  const draft = current ? (drafts[current.id] ?? '') : '';
  const setDraft = (text: string) => current && setDrafts((d) => ({ ...d, [current.id]: text }));

  return (
    <section className="console-page chat-page" aria-labelledby="console-chat-title">
      <PageHeading id="console-chat-title">{t('console.chat.title')}</PageHeading>
      {state.status === 'reconnecting' ? <p className="console-badge console-badge--warn">{t('console.chat.reconnecting')}</p> : null}
      {/* From 1024 × 700 px the page fills the screen: this column (availability and queues) and the conversations beside it scroll on their own (console.css). */}
      <div className="chat-page__side">
        <AvailabilityForm onChange={onAvailability} />
        <ErrorAlert error={error} ref={refusal} />
        <div role="status" className={done ? 'console-done' : undefined}>
          {done}
        </div>
        {state.queue === null ? <p role="status">{t('console.loading')}</p> : <WaitingList items={waiting} total={state.queue.waitingTotal ?? waiting.length} onAccept={(item) => void accept(item)} busy={busy} />}
        <OfflineList
          items={offline}
          total={state.queue?.offlineTotal ?? offline.length}
          onAnswered={(item) => {
            setDone(t('console.chat.done.answered', { email: item.email ?? '' }));
            if (state.queue) dispatch({ kind: 'queue', queue: { ...state.queue, offline: state.queue.offline.filter((o) => o.id !== item.id) } });
            void refreshQueue();
          }}
        />
      </div>

      <section aria-labelledby="chat-mine-title" className="chat-mine">
        <h2 id="chat-mine-title">{t('console.chat.mine.title', { count: String(mine.length) })}</h2>
        {tabs.length === 0 ? (
          <p>{t('console.chat.mine.none')}</p>
        ) : (
          <ul className="chat-tabs" aria-label={t('console.chat.mine.list')}>
            {tabs.map((item) => {
              const list = state.messages[item.id] ?? [];
              const unread = item.id === selected ? 0 : list.length ? list.filter((m) => m.sender === 'visitor' && m.seq > (readSent.current[item.id] ?? 0)).length : item.unread;
              return (
                <li key={item.id}>
                  <button
                    type="button"
                    className={item.id === selected ? 'chat-tab chat-tab--current' : 'chat-tab'}
                    aria-current={item.id === selected ? 'true' : undefined}
                    onClick={() => setSelected(item.id)}
                  >
                    {item.name}
                    {unread > 0 ? <span className="console-badge">{t('console.chat.mine.unread', { count: String(unread) })}</span> : null}
                    {state.typing[item.id] ? <span className="chat-tab__typing"> {t('console.chat.typing.short')}</span> : null}
                  </button>
                </li>
              );
            })}
          </ul>
        )}
        {current ? (
          <article className="chat-conversation" aria-labelledby="chat-conversation-title">
            <h3 id="chat-conversation-title">{t('console.chat.conversation.title', { name: current.name })}</h3>
            <VisitorContext item={current} />
            <Transcript
              label={t('console.chat.transcript.label', { name: current.name })}
              messages={state.messages[current.id] ?? []}
              pending={state.pending[current.id]}
              readSeq={state.read[current.id] ?? 0}
            />
            <p className="chat-typing" aria-live="off">
              {state.typing[current.id] && !ended ? t('console.chat.typing.visitor', { name: current.name }) : '\u00a0'}
            </p>
            {ended ? (
              <div className="chat-conversation__ended">
                <p role="status">{t('console.chat.conversation.ended')}</p>
                <button type="button" className="console-button console-button--quiet" onClick={() => setSelected('')}>
                  {t('console.chat.conversation.close')}
                </button>
              </div>
            ) : (
              <>
                <CannedReplies
                  replies={replies}
                  onInsert={(text) => {
                    setDraft(draft.trim() === '' ? text : `${draft}${/\s$/.test(draft) ? '' : ' '}${text}`);
                    setFocusToken((n) => n + 1);
                  }}
                />
                <Composer
                  name={current.name}
                  draft={draft}
                  setDraft={setDraft}
                  focusToken={focusToken}
                  disabled={false}
                  onSend={(body) => sendMessage(current, body)}
                  onTyping={(on) => send({ type: 'typing', conversationId: current.id, on })}
                />
                <div className="chat-conversation__tools">
                  <ShareScreen key={current.id} item={current} messages={state.messages[current.id] ?? []} />
                  <div className="console-actions">
                    <button type="button" className="console-button console-button--quiet" onClick={() => setDialog({ kind: 'transfer', item: current })}>
                      {t('console.chat.transfer.open')}
                    </button>
                    <button type="button" className="console-button console-button--quiet" onClick={() => setDialog({ kind: 'end', item: current })}>
                      {t('console.chat.end.open')}
                    </button>
                  </div>
                </div>
              </>
            )}
          </article>
        ) : null}
      </section>

      {dialog?.kind === 'transfer' ? (
        <TransferDialog
          item={dialog.item}
          onClose={() => setDialog(null)}
          onDone={(agent) => {
            setDialog(null);
            setError(null);
            setDone(t('console.chat.done.transferred', { name: dialog.item.name, agent: agent.name }));
            setSelected('');
            if (state.queue) dispatch({ kind: 'queue', queue: { ...state.queue, mine: state.queue.mine.filter((m) => m.id !== dialog.item.id) } });
            void refreshQueue();
          }}
        />
      ) : dialog?.kind === 'end' ? (
        <ConfirmDialog
          title={t('console.chat.end.title')}
          confirmLabel={t('console.chat.end.submit')}
          onConfirm={() => void end(dialog.item)}
          onCancel={() => setDialog(null)}
        >
          <p>{t('console.chat.end.confirm', { name: dialog.item.name })}</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
