import { useId, useRef, useState, type FormEvent } from 'react';
import { useT } from '@/i18n/i18n';
import type { Message } from '@/i18n/catalog';
import { PageHeading } from '@/console/heading';
import { cobrowseApi, cobrowseError, readCode, viewerHref } from './api';

const TITLE_ID = 'cobrowse-join-title';

/** Where the browser goes once joined (a seam for the tests: jsdom does not navigate). */
export type Go = (href: string) => void;
const assign: Go = (href) => window.location.assign(href);

/**
 * /cobrowse: the agent types the 6-digit code the visitor reads on the phone;
 * joined, the viewer opens (a page load of its own: its policy lets the
 * replayed page's styles show).
 */
export function JoinPage({ go = assign }: { go?: Go }) {
  const t = useT();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<Message | null>(null);
  const [busy, setBusy] = useState(false);

  const fail = (message: Message) => {
    setError(message);
    input.current?.focus();
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const value = readCode(code);
    if (!value) {
      fail('console.cobrowse.join.format');
      return;
    }
    setBusy(true);
    setError(null);
    const answer = await cobrowseApi.join(value);
    setBusy(false);
    if (answer.status === 200 && answer.data) {
      go(viewerHref(answer.data));
      return;
    }
    if (answer.errorCode === 'RATE_LIMITED' || answer.status === 429) {
      const minutes = Math.max(1, Math.ceil((answer.retryAfter ?? 600) / 60));
      fail({ key: minutes === 1 ? 'console.cobrowse.error.rateLimitedOne' : 'console.cobrowse.error.rateLimited', params: { minutes } });
      return;
    }
    fail(cobrowseError(answer.errorCode));
  };
  const message = error === null ? null : typeof error === 'string' ? t(error) : t(error.key, error.params);

  return (
    <section className="console-page console-page--narrow" aria-labelledby={TITLE_ID}>
      <PageHeading id={TITLE_ID}>{t('console.cobrowse.join.title')}</PageHeading>
      <p>{t('console.cobrowse.join.text')}</p>
      <form onSubmit={(e) => void submit(e)} noValidate aria-labelledby={TITLE_ID}>
        <div className="console-field">
          <label htmlFor={`${id}-code`}>{t('console.cobrowse.join.code')}</label>
          <input
            ref={input}
            id={`${id}-code`}
            name="code"
            value={code}
            onChange={(e) => setCode(e.target.value)}
            inputMode="numeric"
            autoComplete="off"
            maxLength={12}
            aria-invalid={error ? true : undefined}
            aria-describedby={`${id}-help${error ? ` ${id}-error` : ''}`}
          />
          <p id={`${id}-help`} className="console-field__help">
            {t('console.cobrowse.join.help')}
          </p>
        </div>
        <div role="alert" id={`${id}-error`} className={message ? 'console-error' : undefined}>
          {message}
        </div>
        <button type="submit" className="console-button" disabled={busy} aria-busy={busy || undefined}>
          {t('console.cobrowse.join.submit')}
        </button>
      </form>
    </section>
  );
}
