import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useT } from '@/i18n/i18n';
import type { SectionKey } from '@/i18n/catalog';
import { lookup } from '@/lib/lookup';
import { checkEmail } from '@/lib/rules/email';

// The widget's small forms (pre-chat, message form, transcript): labels above
// their control, a message under an invalid field tied by aria-describedby,
// a summary in an alert, and the focus on the first invalid field on submit.

export const NAME_MAX = 100;
export const QUESTION_MAX = 2000;
export const TOPICS = ['signIn', 'password', 'registration', 'documents', 'claims', 'other'] as const;
export type Topic = (typeof TOPICS)[number];

const topicKeys: Record<Topic, SectionKey> = {
  signIn: 'chat.topic.signIn',
  password: 'chat.topic.password',
  registration: 'chat.topic.registration',
  documents: 'chat.topic.documents',
  claims: 'chat.topic.claims',
  other: 'chat.topic.other',
};

export type Errors = Partial<Record<string, SectionKey>>;

export function checkName(name: string): SectionKey | null {
  const trimmed = name.trim();
  if (trimmed === '') return 'chat.error.name';
  if ([...trimmed].length > NAME_MAX) return 'chat.error.nameLong';
  return null;
}

export function checkQuestion(question: string): SectionKey | null {
  const trimmed = question.trim();
  if (trimmed === '') return 'chat.error.question';
  if ([...trimmed].length > QUESTION_MAX) return 'chat.error.MESSAGE_TOO_LONG';
  return null;
}

export function checkEmailField(email: string): SectionKey | null {
  return checkEmail(email).ok ? null : 'chat.error.email';
}

interface FieldProps {
  id: string;
  label: string;
  error?: SectionKey | undefined;
  children: (aria: { id: string; 'aria-invalid'?: true; 'aria-describedby'?: string }) => ReactNode;
}

export function Field({ id, label, error, children }: FieldProps) {
  const t = useT();
  return (
    <div className={error ? 'field field--invalid' : 'field'}>
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      {children({ id, ...(error ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-error` } : {}) })}
      {error ? (
        <p id={`${id}-error`} className="field__error">
          <span className="visually-hidden">{t('form.errorPrefix')} </span>
          {t(error)}
        </p>
      ) : null}
    </div>
  );
}

/** A form whose submit validates, shows the errors and focuses the first invalid field, then runs onValid. */
export function useChatForm(fields: string[], validate: () => Errors, onValid: () => Promise<SectionKey | null>) {
  const prefix = useId();
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState<SectionKey | null>(null);
  const [busy, setBusy] = useState(false);
  const running = useRef(false);
  const idOf = (name: string) => `${prefix}-${name}`;
  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (running.current) return;
    const found = validate();
    setErrors(found);
    setFormError(null);
    const first = fields.find((f) => found[f]);
    if (first) {
      document.getElementById(idOf(first))?.focus();
      return;
    }
    running.current = true;
    setBusy(true);
    try {
      setFormError(await onValid());
    } finally {
      running.current = false;
      setBusy(false);
    }
  }
  return { errors, formError, busy, idOf, onSubmit };
}

export type ChatFormState = ReturnType<typeof useChatForm>;

/**
 * One of the widget's forms: its title (an h3 that names the form) and
 * intro when it has them, the form-wide alert, its fields, then its submit
 * button, disabled and busy while the form sends.
 */
export function ChatForm({
  form,
  title,
  intro,
  submit,
  kind,
  children,
}: {
  form: ChatFormState;
  title?: string;
  intro?: string;
  submit: string;
  kind: 'primary' | 'secondary';
  children: ReactNode;
}) {
  const headingId = useId();
  return (
    <form className="chat-form" noValidate onSubmit={form.onSubmit} aria-labelledby={title === undefined ? undefined : headingId}>
      {title === undefined ? null : (
        <h3 id={headingId} className="chat-form__title">
          {title}
        </h3>
      )}
      {intro === undefined ? null : <p>{intro}</p>}
      <FormAlert error={form.formError} />
      {children}
      <button type="submit" className={`button button--${kind}`} disabled={form.busy} aria-busy={form.busy || undefined}>
        {submit}
      </button>
    </form>
  );
}

/** The form-wide message (a server answer), in an alert region that is always there. */
export function FormAlert({ error }: { error: SectionKey | null }) {
  const t = useT();
  return (
    <div role="alert" className={error ? 'form-alert' : undefined}>
      {error ? <p>{t(error)}</p> : null}
    </div>
  );
}

export function TopicSelect({ id, value, onChange, ...aria }: { id: string; value: string; onChange: (v: string) => void; 'aria-invalid'?: true; 'aria-describedby'?: string }) {
  const t = useT();
  return (
    <select id={id} className="field__input" value={value} onChange={(e) => onChange(e.target.value)} {...aria}>
      <option value="">{t('chat.form.topicChoose')}</option>
      {TOPICS.map((topic) => (
        <option key={topic} value={topic}>
          {t(topicKeys[topic])}
        </option>
      ))}
    </select>
  );
}

const errorKeys: Record<string, SectionKey> = {
  CHAT_CLOSED: 'chat.error.closed',
  CHAT_NO_AGENT: 'chat.error.noAgent',
  RATE_LIMITED: 'chat.error.RATE_LIMITED',
  INVALID_FIELD: 'chat.error.invalid',
  NETWORK: 'chat.error.network',
};

/** A server refusal as the visitor reads it. */
export function errorKey(errorCode: string): SectionKey {
  return lookup(errorKeys, errorCode) ?? 'chat.error.generic';
}
