import type { BotLink, QuickReply } from '@/lib/chat/frames';
import { useT } from '@/i18n/i18n';
import type { SectionKey } from '@/i18n/catalog';
import { requestCobrowse } from '@/lib/cobrowse/start';
import type { Language } from '@/lib/site/types';
import type { Line, Pending } from './conversation';
import { messageTime } from './time';

/** An https URL fit for a link, or null (javascript:, data:, http:, relative, malformed). */
export function safeUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' && parsed.hostname !== '' ? parsed.href : null;
  } catch {
    return null;
  }
}

const errorKeys: Record<string, SectionKey> = {
  MESSAGE_TOO_LONG: 'chat.error.MESSAGE_TOO_LONG',
  RATE_LIMITED: 'chat.error.RATE_LIMITED',
  CONVERSATION_ENDED: 'chat.error.CONVERSATION_ENDED',
};

const systemKeys: Record<string, SectionKey> = {
  agentJoined: 'chat.system.agentJoined',
  agentLeft: 'chat.system.agentLeft',
  transferred: 'chat.system.transferred',
  ended: 'chat.system.ended',
  handover: 'chat.system.handover',
  cobrowseAccepted: 'chat.system.cobrowseAccepted',
  cobrowseDeclined: 'chat.system.cobrowseDeclined',
  cobrowseEnded: 'chat.system.cobrowseEnded',
};

/** The chat messages after which a co-browse request is answered (the chat's end ends its co-browse too). */
const cobrowseAnswers: ReadonlySet<string> = new Set(['cobrowseAccepted', 'cobrowseDeclined', 'cobrowseEnded', 'ended']);

export interface TranscriptProps {
  messages: Line[];
  pending: Pending[];
  timeZone: string;
  language: Language;
  /** The visitor's last message the agent has read ('Read' under it). */
  readSeq: number;
  /** Quick replies of the last bot message, shown while the bot talks. */
  quickReplies: boolean;
  onQuickReply: (reply: QuickReply) => void;
  typingName: string | null;
}

/**
 * The conversation as a list inside a polite live region: every text is
 * React text (escaped), never HTML; bot links only when https, opening a new
 * tab without access to this page.
 */
export function Transcript({ messages, pending, timeZone, language, readSeq, quickReplies, onQuickReply, typingName }: TranscriptProps) {
  const t = useT();
  const lastBot = [...messages].reverse().find((m) => m.sender !== 'system');
  const lastCobrowseAnswer = messages.reduce((seq, m) => (m.system?.key && cobrowseAnswers.has(m.system.key) ? Math.max(seq, m.seq) : seq), 0);
  return (
    <div className="chat-log" role="log" aria-live="polite" aria-label={t('chat.log')} tabIndex={0}>
      <ol className="chat-log__list">
        {messages.map((m) => {
          if (m.sender === 'system') {
            // An agent's co-browse request (issue 18): answered in the consent dialog, opened from here while no answer followed it.
            if (m.system?.key === 'cobrowseRequest') {
              const sessionId = m.system.name ?? '';
              return (
                <li key={m.seq} className="chat-line chat-line--system chat-line--request">
                  <p>{t('chat.system.cobrowseRequest')}</p>
                  {m.seq > lastCobrowseAnswer && sessionId ? (
                    <button type="button" className="button button--secondary" aria-haspopup="dialog" onClick={() => requestCobrowse({ origin: 'chat', sessionId })}>
                      {t('chat.cobrowse.review')}
                    </button>
                  ) : null}
                </li>
              );
            }
            const key = systemKeys[m.system?.key ?? ''];
            return (
              <li key={m.seq} className="chat-line chat-line--system">
                <p>{key ? t(key, { name: m.system?.name ?? '' }) : m.body}</p>
              </li>
            );
          }
          const sender =
            m.sender === 'visitor' ? t('chat.sender.visitor') : m.sender === 'bot' ? t('chat.sender.bot') : m.agentName || t('chat.sender.agent');
          const text = m.sender === 'bot' && m.reply?.text ? m.reply.text : m.body;
          const links = m.sender === 'bot' ? (m.reply?.links ?? []) : [];
          return (
            <li key={m.seq} className={`chat-line chat-line--${m.sender}`}>
              <p className="chat-line__meta">
                <span className="chat-line__sender">{sender}</span>{' '}
                <time dateTime={m.at}>{messageTime(m.at, timeZone, language)}</time>
              </p>
              <p className="chat-line__body">{text}</p>
              {links.length > 0 ? <Links links={links} /> : null}
              {quickReplies && m === lastBot && m.sender === 'bot' && (m.reply?.quickReplies?.length ?? 0) > 0 ? (
                <ul className="chat-quick" aria-label={t('chat.quickReplies')}>
                  {m.reply?.quickReplies?.map((q) => (
                    <li key={q.id}>
                      <button type="button" className="chat-quick__button" onClick={() => onQuickReply(q)}>
                        {q.text}
                      </button>
                    </li>
                  ))}
                </ul>
              ) : null}
              {m.sender === 'visitor' && m.seq === readSeq ? <p className="chat-line__read">{t('chat.read')}</p> : null}
            </li>
          );
        })}
        {pending.map((p) => (
          <li key={p.clientId} className="chat-line chat-line--visitor chat-line--pending">
            <p className="chat-line__meta">
              <span className="chat-line__sender">{t('chat.sender.visitor')}</span>
            </p>
            <p className="chat-line__body">{p.body}</p>
            <p className={p.errorCode ? 'chat-line__status chat-line__status--error' : 'chat-line__status'}>
              {p.errorCode ? t(errorKeys[p.errorCode] ?? 'chat.error.notSent') : t('chat.sending')}
            </p>
          </li>
        ))}
      </ol>
      {typingName !== null ? <p className="chat-typing">{t('chat.typing', { name: typingName })}</p> : null}
    </div>
  );
}

function Links({ links }: { links: BotLink[] }) {
  const t = useT();
  const safe = links.flatMap((l) => {
    const href = safeUrl(l.url);
    return href ? [{ label: l.label, href }] : [];
  });
  if (safe.length === 0) return null;
  return (
    <ul className="chat-links">
      {safe.map((l) => (
        <li key={l.href}>
          <a href={l.href} target="_blank" rel="noopener noreferrer">
            {l.label}
            <span className="visually-hidden"> {t('chat.newTab')}</span>
          </a>
        </li>
      ))}
    </ul>
  );
}
