import { useEffect, useId, useState, type FormEvent } from 'react';
import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';
import { PageHeading } from '@/console/heading';
import { useSession } from '@/console/session';
import { chatApi, chatError, type ChatMessage, type Item } from '@/console/chat/api';
import { useChat } from '@/console/chat/context';
import { Transcript, VisitorContext } from '@/console/chat/conversation';
import { duration, when } from '@/console/chat/format';
import { MessageText } from '@/console/chat/text';
import { PeriodFields, type Period } from '@/console/period';
import { Table } from '@/console/table';
import { ErrorAlert } from '@/console/alert';

/** How often the figures are read again while no socket brings them (ms). */
export const FIGURES_POLL_MS = 5_000;

const statusKey: Record<string, MessageKey> = {
  available: 'console.chat.availability.available',
  away: 'console.chat.availability.away',
};

/** /chat/figures (supervisor+): waiting, active, average wait, per agent; live from `figures` frames, else read every few seconds. */
export function ChatFiguresPage() {
  const t = useT();
  const { state, start, dispatch } = useChat();
  const [error, setError] = useState<MessageKey | null>(null);
  useEffect(() => start(), [start]);
  const live = state.status === 'open';
  useEffect(() => {
    let on = true;
    const read = async () => {
      const answer = await chatApi.figures();
      if (!on) return;
      if (answer.status === 200 && answer.data) {
        setError(null);
        dispatch({ kind: 'figures', figures: answer.data });
      } else setError(chatError(answer.errorCode));
    };
    void read();
    if (live) return () => void (on = false);
    const timer = setInterval(() => void read(), FIGURES_POLL_MS);
    return () => {
      on = false;
      clearInterval(timer);
    };
  }, [live, dispatch]);
  const figures = state.figures;
  return (
    <section className="console-page" aria-labelledby="console-chat-figures-title">
      <PageHeading id="console-chat-figures-title">{t('console.chat.figures.title')}</PageHeading>
      <ErrorAlert error={error} />
      {figures ? (
        <>
          <dl className="console-facts chat-figures">
            <dt>{t('console.chat.figures.waiting')}</dt>
            <dd data-testid="figures-waiting">{figures.waiting}</dd>
            <dt>{t('console.chat.figures.active')}</dt>
            <dd data-testid="figures-active">{figures.active}</dd>
            <dt>{t('console.chat.figures.averageWait')}</dt>
            <dd data-testid="figures-average">{duration(figures.averageWaitSeconds)}</dd>
          </dl>
          <Table
            caption={t('console.chat.figures.agents')}
            captionShown
            rows={figures.agents}
            rowKey={(a) => a.id}
            columns={[
              { label: t('console.customer.name'), cell: (a) => a.name },
              { label: t('console.chat.availability.status'), cell: (a) => (a.status in statusKey ? t(statusKey[a.status] as MessageKey) : a.status) },
              { label: t('console.chat.figures.agentActive'), cell: (a) => a.active },
              { label: t('console.chat.figures.handled'), cell: (a) => a.handled },
            ]}
          />
        </>
      ) : (
        <p role="status">{t('console.loading')}</p>
      )}
    </section>
  );
}

/** /chat/transcripts (supervisor+): search the transcripts (words, dates, brand) and read one. */
export function ChatTranscriptsPage() {
  const t = useT();
  const id = useId();
  const { language } = useSession();
  const [q, setQ] = useState('');
  const [period, setPeriod] = useState<Period>({ from: '', to: '', brand: '' });
  const { from, to, brand } = period;
  const [items, setItems] = useState<Item[] | null>(null);
  const [error, setError] = useState<MessageKey | null>(null);
  const [open, setOpen] = useState<{ item: Item; messages: ChatMessage[] } | null>(null);

  const search = async (event: FormEvent) => {
    event.preventDefault();
    setOpen(null);
    if (from && to && from > to) {
      setError('console.audit.invalid');
      return;
    }
    // Dates as days (YYYY-MM-DD); the server counts the end day in.
    const answer = await chatApi.transcripts({ q: q.trim(), from, to, brand });
    if (answer.status !== 200) {
      setError(chatError(answer.errorCode));
      return;
    }
    setError(null);
    setItems(answer.data?.items ?? []);
  };
  const view = async (item: Item) => {
    const answer = await chatApi.conversation(item.id);
    if (answer.status !== 200 || !answer.data) {
      setError(chatError(answer.errorCode));
      return;
    }
    setError(null);
    setOpen({ item: answer.data.item ?? item, messages: answer.data.messages ?? [] });
  };

  return (
    <section className="console-page" aria-labelledby="console-chat-transcripts-title">
      <PageHeading id="console-chat-transcripts-title">{t('console.chat.transcripts.title')}</PageHeading>
      <form className="console-search" onSubmit={(e) => void search(e)} noValidate role="search">
        <div className="console-field console-field--grow">
          <label htmlFor={`${id}-q`}>{t('console.chat.transcripts.query')}</label>
          <input id={`${id}-q`} type="search" value={q} onChange={(e) => setQ(e.target.value)} />
        </div>
        <PeriodFields id={id} value={period} onChange={setPeriod} />
        <button type="submit" className="console-button">
          {t('console.chat.transcripts.submit')}
        </button>
      </form>
      <ErrorAlert error={error} />
      <div role="status">{items ? t('console.chat.transcripts.found', { count: String(items.length) }) : null}</div>
      {items && items.length > 0 ? (
        <Table
          caption={t('console.chat.transcripts.title')}
          rows={items}
          rowKey={(item) => item.id}
          columns={[
            {
              label: t('console.chat.column.visitor'),
              cell: (item) => (
                <>
                  {item.name}
                  {item.account?.email || item.email ? <div>{item.account?.email || item.email}</div> : null}
                </>
              ),
            },
            { label: t('console.chat.context.brand'), cell: (item) => item.brand },
            { label: t('console.chat.transcripts.date'), cell: (item) => when(item.createdAt, language) },
            { label: t('console.chat.transcripts.agent'), cell: (item) => item.agentName || '—' },
            { label: t('console.chat.transcripts.match'), cell: (item) => (item.snippet ? <MessageText text={item.snippet} /> : null) },
            {
              label: t('console.action.heading'),
              cell: (item) => (
                <button type="button" className="console-link" onClick={() => void view(item)}>
                  {t('console.chat.transcripts.view', { name: item.name })}
                </button>
              ),
            },
          ]}
        />
      ) : null}
      {open ? (
        <article aria-labelledby="chat-transcript-title" className="chat-conversation">
          <h2 id="chat-transcript-title">{t('console.chat.transcripts.of', { name: open.item.name })}</h2>
          <VisitorContext item={open.item} />
          <Transcript label={t('console.chat.transcript.label', { name: open.item.name })} messages={open.messages} />
        </article>
      ) : null}
    </section>
  );
}
