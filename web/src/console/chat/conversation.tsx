import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';
import { useSession } from '@/console/session';
import { Dialog, DialogActions } from '@/console/dialog';
import { chatApi, chatError, MAX_MESSAGE, type AgentRow, type ChatMessage, type Item } from './api';
import type { Pending } from './context';
import { clock, when } from './format';
import { MessageText } from './text';
import { ErrorAlert } from '@/console/alert';

const systemKey: Record<string, MessageKey> = {
  agentJoined: 'console.chat.system.agentJoined',
  agentLeft: 'console.chat.system.agentLeft',
  transferred: 'console.chat.system.transferred',
  ended: 'console.chat.system.ended',
  handover: 'console.chat.system.handover',
  cobrowseRequest: 'console.chat.system.cobrowseRequest',
  cobrowseAccepted: 'console.chat.system.cobrowseAccepted',
  cobrowseDeclined: 'console.chat.system.cobrowseDeclined',
  cobrowseEnded: 'console.chat.system.cobrowseEnded',
};

const senderKey = {
  visitor: 'console.chat.sender.visitor',
  agent: 'console.chat.sender.agent',
  bot: 'console.chat.sender.bot',
  system: 'console.chat.sender.system',
} as const;

export function languageName(language: string, t: ReturnType<typeof useT>): string {
  if (language === 'fr') return t('console.chat.language.fr');
  if (language === 'en') return t('console.chat.language.en');
  return language;
}

/** The visitor's context: where they are, what blocked them, who they are when signed in. */
export function VisitorContext({ item }: { item: Item }) {
  const t = useT();
  const { language } = useSession();
  return (
    <dl className="console-facts chat-context">
      <dt>{t('console.chat.context.brand')}</dt>
      <dd>{item.brand}</dd>
      <dt>{t('console.chat.context.province')}</dt>
      <dd>{item.province.toUpperCase()}</dd>
      <dt>{t('console.chat.context.language')}</dt>
      <dd>{languageName(item.language, t)}</dd>
      <dt>{t('console.chat.context.topic')}</dt>
      <dd>{item.topic || '—'}</dd>
      <dt>{t('console.chat.context.page')}</dt>
      <dd>{item.page || '—'}</dd>
      <dt>{t('console.chat.context.roadblock')}</dt>
      <dd>{item.roadblock || t('console.chat.context.none')}</dd>
      <dt>{t('console.chat.context.account')}</dt>
      <dd>{item.account ? item.account.email : t('console.chat.context.notSignedIn')}</dd>
      <dt>{t('console.chat.context.waitingSince')}</dt>
      <dd>{when(item.waitingSince || item.createdAt, language)}</dd>
    </dl>
  );
}

/** One message of a transcript. */
export function MessageLine({ message, note }: { message: ChatMessage; note?: string }) {
  const t = useT();
  const { language } = useSession();
  if (message.sender === 'system') {
    const key = message.system ? systemKey[message.system.key] : undefined;
    return (
      <p className="chat-line chat-line--system">
        {key ? t(key, { name: message.system?.name ?? '' }) : <MessageText text={message.body} />}
      </p>
    );
  }
  const who = message.sender === 'agent' && message.agentName ? message.agentName : t(senderKey[message.sender] ?? senderKey.visitor);
  const text = message.body || message.reply?.text || '';
  return (
    <div className={`chat-line chat-line--${message.sender}`}>
      <p className="chat-line__who">
        {who} <span className="chat-line__at">{clock(message.at, language)}</span>
      </p>
      <p className="chat-line__body">
        <MessageText text={text} />
      </p>
      {message.reply?.links?.length ? (
        <ul className="chat-line__links">
          {message.reply.links.map((link) => (
            <li key={link.url}>
              <MessageText text={link.url} /> {link.label ? `(${link.label})` : null}
            </li>
          ))}
        </ul>
      ) : null}
      {note ? <p className="chat-line__note">{note}</p> : null}
    </div>
  );
}

/** A transcript: messages in seq order in a polite live region (role log). */
export function Transcript({ messages, pending = [], readSeq = 0, label }: { messages: ChatMessage[]; pending?: Pending[]; readSeq?: number; label: string }) {
  const t = useT();
  const lastAgent = [...messages].reverse().find((m) => m.sender === 'agent');
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'nearest' });
  }, [messages.length, pending.length]);
  return (
    <div className="chat-log" role="log" aria-live="polite" aria-label={label} tabIndex={0}>
      {messages.length === 0 && pending.length === 0 ? <p className="chat-line chat-line--system">{t('console.chat.noMessages')}</p> : null}
      {messages.map((m) => (
        <MessageLine
          key={m.seq}
          message={m}
          note={m === lastAgent ? t(readSeq >= m.seq ? 'console.chat.receipt.read' : 'console.chat.receipt.sent') : undefined}
        />
      ))}
      {pending.map((p) => (
        <div key={p.clientId} className="chat-line chat-line--agent chat-line--pending">
          <p className="chat-line__body">
            <MessageText text={p.body} />
          </p>
          <p className="chat-line__note">{p.errorCode ? t(chatError(p.errorCode)) : t('console.chat.receipt.sending')}</p>
        </div>
      ))}
      <div ref={end} />
    </div>
  );
}

/** How long after the last keystroke the visitor is told the agent stopped typing (ms). */
export const TYPING_IDLE_MS = 3_000;

/**
 * The agent's message box: Enter sends, Shift+Enter makes a new line, at most
 * MAX_MESSAGE characters (a counter says how many); typing tells the visitor.
 */
export function Composer({
  draft,
  setDraft,
  onSend,
  onTyping,
  focusToken,
  disabled,
  name,
}: {
  draft: string;
  setDraft: (text: string) => void;
  onSend: (body: string) => void;
  onTyping: (on: boolean) => void;
  focusToken: number;
  disabled: boolean;
  name: string;
}) {
  const t = useT();
  const id = useId();
  const box = useRef<HTMLTextAreaElement>(null);
  const typing = useRef(false);
  const idle = useRef<ReturnType<typeof setTimeout> | null>(null);
  const [error, setError] = useState<MessageKey | null>(null);
  const length = draft.trim().length;
  const over = length > MAX_MESSAGE;

  useEffect(() => {
    if (focusToken > 0) box.current?.focus();
  }, [focusToken]);
  useEffect(
    () => () => {
      if (idle.current) clearTimeout(idle.current);
    },
    [],
  );

  const stopTyping = () => {
    if (idle.current) clearTimeout(idle.current);
    idle.current = null;
    if (typing.current) {
      typing.current = false;
      onTyping(false);
    }
  };

  const change = (text: string) => {
    setDraft(text);
    setError(null);
    if (text.trim() === '') {
      stopTyping();
      return;
    }
    if (!typing.current) {
      typing.current = true;
      onTyping(true);
    }
    if (idle.current) clearTimeout(idle.current);
    idle.current = setTimeout(stopTyping, TYPING_IDLE_MS);
  };

  const send = () => {
    const body = draft.trim();
    if (body === '') return;
    if (body.length > MAX_MESSAGE) {
      setError('console.chat.error.tooLong');
      return;
    }
    stopTyping();
    onSend(body);
    setDraft('');
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    send();
  };
  const key = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };

  return (
    <form className="chat-composer" onSubmit={submit} noValidate>
      <label htmlFor={`${id}-box`}>{t('console.chat.composer.label', { name })}</label>
      <textarea
        ref={box}
        id={`${id}-box`}
        rows={3}
        value={draft}
        disabled={disabled}
        aria-describedby={`${id}-help ${id}-count`}
        aria-invalid={over || undefined}
        onChange={(e) => change(e.target.value)}
        onKeyDown={key}
        onBlur={stopTyping}
      />
      <p id={`${id}-help`} className="chat-composer__help">
        {t('console.chat.composer.help')}
      </p>
      <p id={`${id}-count`} className={over ? 'chat-composer__count console-error' : 'chat-composer__count'}>
        {t('console.chat.composer.count', { count: String(length), max: String(MAX_MESSAGE) })}
      </p>
      <ErrorAlert error={error} />
      <button type="submit" className="console-button" disabled={disabled}>
        {t('console.chat.composer.send')}
      </button>
    </form>
  );
}

/** Transfer to another available agent (GET agents): one who serves the brand and language and is under the limit. */
export function TransferDialog({ item, onClose, onDone }: { item: Item; onClose: () => void; onDone: (agent: AgentRow) => void }) {
  const t = useT();
  const { me } = useSession();
  const [agents, setAgents] = useState<AgentRow[] | null>(null);
  const [choice, setChoice] = useState('');
  const [error, setError] = useState<MessageKey | null>(null);
  useEffect(() => {
    let live = true;
    void chatApi.agents().then((answer) => {
      if (!live) return;
      if (answer.status !== 200) {
        setError(chatError(answer.errorCode));
        setAgents([]);
        return;
      }
      setAgents((answer.data ?? []).filter((a) => a.id !== me?.id && (a.languages.length === 0 || a.languages.includes(item.language))));
    });
    return () => {
      live = false;
    };
  }, [me?.id, item.language]);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const agent = agents?.find((a) => a.id === choice);
    if (!agent) {
      setError('console.chat.transfer.choose');
      return;
    }
    const answer = await chatApi.transfer(item.id, agent.id);
    if (answer.status === 200 || answer.status === 204) {
      onDone(agent);
      return;
    }
    setError(answer.status === 409 ? 'console.chat.error.transferRefused' : chatError(answer.errorCode));
  };
  return (
    <Dialog title={t('console.chat.transfer.title', { name: item.name })} onClose={onClose}>
      {agents === null ? (
        <p role="status">{t('console.loading')}</p>
      ) : agents.length === 0 ? (
        <p>{t('console.chat.transfer.none')}</p>
      ) : (
        <form onSubmit={(e) => void submit(e)} noValidate>
          <fieldset className="console-fieldset">
            <legend>{t('console.chat.transfer.to')}</legend>
            {agents.map((a) => (
              <label key={a.id}>
                <input type="radio" name="transfer-agent" value={a.id} checked={choice === a.id} onChange={() => setChoice(a.id)} />{' '}
                {t('console.chat.transfer.agent', { name: a.name, active: String(a.active), max: String(a.max) })}
              </label>
            ))}
          </fieldset>
          <DialogActions onCancel={onClose}>
            <button type="submit" className="console-button">
              {t('console.chat.transfer.submit')}
            </button>
          </DialogActions>
        </form>
      )}
      <ErrorAlert error={error} />
      {agents !== null && agents.length === 0 ? (
        <DialogActions onCancel={onClose} />
      ) : null}
    </Dialog>
  );
}

/** The canned replies of the conversation's brand and language: a click puts one in the composer. */
export function CannedReplies({ replies, onInsert }: { replies: string[]; onInsert: (text: string) => void }) {
  const t = useT();
  if (replies.length === 0) return null;
  return (
    <details className="chat-canned">
      <summary>{t('console.chat.canned.title')}</summary>
      <ul>
        {replies.map((text) => (
          <li key={text}>
            <button type="button" className="console-link" onClick={() => onInsert(text)} aria-label={t('console.chat.canned.insert', { text })}>
              {text}
            </button>
          </li>
        ))}
      </ul>
    </details>
  );
}
