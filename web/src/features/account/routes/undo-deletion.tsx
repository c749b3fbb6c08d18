import { useRef, useState } from 'react';
import { Link, useSearch } from 'wouter';
import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';
import { useApiClients } from '@/lib/api/use-api';
import { usePageTitle } from '@/lib/page-title';
import { inSection } from '@/lib/site/in-section';

/**
 * /undo-deletion?token=…: the emailed link that keeps an account whose
 * deletion is pending (issue 31). The token rides in the page's query
 * string, which the server's access log never writes, and goes to the API
 * in a POST body; the page asks before using it (a mail scanner opening the
 * link cancels nothing), and the link works once.
 */
export default inSection('security', UndoDeletion);

const outcomes: Record<number, MessageKey> = {
  204: 'security.keep.done',
  404: 'security.keep.invalid',
  410: 'security.keep.tooLate',
};

function UndoDeletion() {
  const t = useT();
  const clients = useApiClients();
  const token = new URLSearchParams(useSearch()).get('token') ?? '';
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<MessageKey | null>(token ? null : 'security.keep.invalid');
  const statusRef = useRef<HTMLParagraphElement>(null);
  usePageTitle(t('security.keep.title'));

  const keep = async () => {
    setBusy(true);
    const answer = await clients.second.request('post', '/deletion/undo', { body: { token } }).catch(() => null);
    setBusy(false);
    setOutcome((answer && outcomes[answer.status]) ?? 'security.keep.failed');
    statusRef.current?.focus();
  };

  const finished = outcome !== null && outcome !== 'security.keep.failed';
  return (
    <section className="page page--narrow" aria-labelledby="undo-deletion-title">
      <h1 id="undo-deletion-title">{t('security.keep.title')}</h1>
      {finished ? null : <p>{t('security.keep.intro')}</p>}
      {finished ? null : (
        <button type="button" className="button button--primary" disabled={busy} aria-busy={busy} onClick={() => void keep()}>
          {t('security.keep.submit')}
        </button>
      )}
      <p role="status" tabIndex={-1} ref={statusRef}>
        {outcome ? t(outcome) : ''}
      </p>
      {finished ? (
        <Link href="/" className="button button--secondary">
          {t('security.keep.signIn')}
        </Link>
      ) : null}
    </section>
  );
}
