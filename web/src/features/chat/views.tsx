import { useId, useState } from 'react';
import { telHref } from '@/lib/site/tel';
import { useT } from '@/i18n/i18n';
import { PrivateText } from '@/i18n/private-text';
import type { SectionKey } from '@/i18n/catalog';
import type { Language } from '@/lib/site/types';
import type { ChatApi, ChatState } from './api';
import { ChatForm, checkEmailField, checkName, checkQuestion, errorKey, Field, NAME_MAX, QUESTION_MAX, TopicSelect, useChatForm, type Errors } from './forms';
import { reopening } from './time';

const weekdayKeys: readonly SectionKey[] = [
  'chat.day.0',
  'chat.day.1',
  'chat.day.2',
  'chat.day.3',
  'chat.day.4',
  'chat.day.5',
  'chat.day.6',
];

/** Why chat is not open now, and when it reopens ('We're back Monday at 8 a.m.'), in the province's local time. */
export function closedText(t: ReturnType<typeof useT>, chat: Pick<ChatState, 'reason' | 'nextOpen' | 'timeZone'>, now: Date, language: Language): string {
  if (chat.nextOpen) {
    const when = reopening(chat.nextOpen, now, chat.timeZone, language);
    if (when) {
      const day = when.day === 'today' ? t('chat.day.today') : when.day === 'tomorrow' ? t('chat.day.tomorrow') : t(weekdayKeys[when.day]!);
      return t('chat.closed.back', { day, time: when.time });
    }
  }
  if (chat.reason === 'no-agent') return t('chat.closed.noAgent');
  if (chat.reason === 'no-hours') return t('chat.closed.noHours');
  return t('chat.closed.unavailable');
}

/** Chat closed or no agent: when it reopens and the phone number. */
export function ClosedNotice({ chat, now, language }: { chat: ChatState; now: Date; language: Language }) {
  const t = useT();
  return (
    <div className="chat-closed">
      <p className="chat-closed__when">{closedText(t, chat, now, language)}</p>
      {chat.phone ? (
        <p>
          {t('chat.phone')} <a href={telHref(chat.phone)}>{chat.phone}</a>
        </p>
      ) : null}
    </div>
  );
}

export interface Context {
  page: string;
  roadblock: string | undefined;
}

/** The message form (name, email, question): an offline conversation the agents answer by email. */
export function OfflineForm({ api, context, onSent }: { api: ChatApi; context: Context; onSent: (name: string, email: string) => void }) {
  const t = useT();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [question, setQuestion] = useState('');
  const form = useChatForm(
    ['name', 'email', 'question'],
    () => {
      const errors: Errors = {};
      const n = checkName(name);
      const e = checkEmailField(email);
      const q = checkQuestion(question);
      if (n) errors.name = n;
      if (e) errors.email = e;
      if (q) errors.question = q;
      return errors;
    },
    async () => {
      const body = { name: name.trim(), email: email.trim(), question: question.trim(), page: context.page, ...(context.roadblock ? { roadblock: context.roadblock } : {}) };
      const answer = await api.offline(body);
      if (!answer.ok) return errorKey(answer.errorCode);
      onSent(body.name, body.email);
      return null;
    },
  );
  return (
    <ChatForm form={form} title={t('chat.offline.title')} intro={t('chat.offline.intro')} submit={t('chat.offline.send')} kind="primary">
      <Field id={form.idOf('name')} label={t('chat.form.name')} error={form.errors.name}>
        {(aria) => <input {...aria} className="field__input" autoComplete="name" maxLength={NAME_MAX} value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field id={form.idOf('email')} label={t('chat.form.email')} error={form.errors.email}>
        {(aria) => (
          <input {...aria} className="field__input" type="email" inputMode="email" autoComplete="email" spellCheck={false} value={email} onChange={(e) => setEmail(e.target.value)} />
        )}
      </Field>
      <Field id={form.idOf('question')} label={t('chat.form.question')} error={form.errors.question}>
        {(aria) => <textarea {...aria} className="field__input chat-form__textarea" rows={4} maxLength={QUESTION_MAX} value={question} onChange={(e) => setQuestion(e.target.value)} />}
      </Field>
    </ChatForm>
  );
}

/** Pre-chat: the visitor's name and topic; the page and roadblock go along unasked. */
export function Prechat({ api, context, onStarted }: { api: ChatApi; context: Context; onStarted: (status: ChatState['conversation']) => void }) {
  const t = useT();
  const [name, setName] = useState('');
  const [topic, setTopic] = useState('');
  const form = useChatForm(
    ['name', 'topic'],
    () => {
      const errors: Errors = {};
      const n = checkName(name);
      if (n) errors.name = n;
      if (!topic) errors.topic = 'chat.error.topic';
      return errors;
    },
    async () => {
      const answer = await api.start({ name: name.trim(), topic, page: context.page, ...(context.roadblock ? { roadblock: context.roadblock } : {}) });
      if (!answer.ok) return errorKey(answer.errorCode);
      onStarted({ id: answer.data.id, status: answer.data.status });
      return null;
    },
  );
  return (
    <ChatForm form={form} title={t('chat.prechat.title')} submit={t('chat.prechat.start')} kind="primary">
      <Field id={form.idOf('name')} label={t('chat.form.name')} error={form.errors.name}>
        {(aria) => <input {...aria} className="field__input" autoComplete="name" maxLength={NAME_MAX} value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field id={form.idOf('topic')} label={t('chat.form.topic')} error={form.errors.topic}>
        {(aria) => <TopicSelect {...aria} value={topic} onChange={setTopic} />}
      </Field>
    </ChatForm>
  );
}

const ratings = [1, 2, 3, 4, 5] as const;
const ratingKeys: Record<(typeof ratings)[number], SectionKey> = {
  1: 'chat.rating.1',
  2: 'chat.rating.2',
  3: 'chat.rating.3',
  4: 'chat.rating.4',
  5: 'chat.rating.5',
};

/** After the end: the transcript by email, and one satisfaction question. */
export function EndPanel({ api, onNewChat }: { api: ChatApi; onNewChat: () => void }) {
  const t = useT();
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [rating, setRating] = useState<number | null>(null);
  const [rated, setRated] = useState(false);
  const [ratingError, setRatingError] = useState<SectionKey | null>(null);
  const [ratingBusy, setRatingBusy] = useState(false);
  const ratingName = useId();
  const transcript = useChatForm(
    ['email'],
    () => {
      const e = checkEmailField(email);
      return e ? { email: e } : {};
    },
    async () => {
      const answer = await api.transcript(email.trim());
      if (!answer.ok) return answer.errorCode === 'ALREADY_DONE' ? 'chat.transcript.already' : errorKey(answer.errorCode);
      setSentTo(email.trim());
      return null;
    },
  );
  async function sendRating(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (rating === null) {
      setRatingError('chat.rating.choose');
      return;
    }
    setRatingBusy(true);
    const answer = await api.rating(rating);
    setRatingBusy(false);
    if (answer.ok || answer.errorCode === 'ALREADY_DONE') {
      setRated(true);
      setRatingError(null);
    } else setRatingError(errorKey(answer.errorCode));
  }
  return (
    <div className="chat-end">
      <div role="status">{sentTo ? <p><PrivateText id="chat.transcript.sent" params={{ email: sentTo }} kinds={{ email: 'email' }} /></p> : null}</div>
      {sentTo ? null : (
        <ChatForm form={transcript} submit={t('chat.transcript.send')} kind="secondary">
          <Field id={transcript.idOf('email')} label={t('chat.transcript.label')} error={transcript.errors.email}>
            {(aria) => (
              <input {...aria} className="field__input" type="email" inputMode="email" autoComplete="email" spellCheck={false} value={email} onChange={(e) => setEmail(e.target.value)} />
            )}
          </Field>
        </ChatForm>
      )}
      <div role="status">{rated ? <p>{t('chat.rating.thanks')}</p> : null}</div>
      {rated ? null : (
        <form className="chat-form" noValidate onSubmit={sendRating}>
          <fieldset className="chat-rating" role="radiogroup" aria-describedby={ratingError ? `${ratingName}-error` : undefined}>
            <legend className="field__label">{t('chat.rating.legend')}</legend>
            {ratings.map((n) => (
              <label key={n} className="chat-rating__option">
                <input type="radio" name={ratingName} value={n} checked={rating === n} onChange={() => setRating(n)} />
                {t(ratingKeys[n])}
              </label>
            ))}
            {ratingError ? (
              <p id={`${ratingName}-error`} className="field__error" role="alert">
                {t(ratingError)}
              </p>
            ) : null}
          </fieldset>
          <button type="submit" className="button button--secondary" disabled={ratingBusy} aria-busy={ratingBusy || undefined}>
            {t('chat.rating.send')}
          </button>
        </form>
      )}
      <button type="button" className="button button--secondary" onClick={onNewChat}>
        {t('chat.newChat')}
      </button>
    </div>
  );
}
