import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';
import type { components } from '@/lib/api/schema';
import { call } from '@/console/api';
import { errorMessage } from '@/console/errors';
import { PageHeading } from '@/console/heading';
import { BrandField } from '@/console/period';
import { Table } from '@/console/table';
import { ErrorAlert } from '@/console/alert';

export type CustomerRow = components['schemas']['ConsoleCustomer'];

const statusKey = {
  active: 'console.status.active',
  temporary: 'console.status.temporary',
  locked: 'console.status.locked',
} as const;

/** The account's status in words (ConsoleCustomer.status). */
export function StatusText({ status }: { status: CustomerRow['status'] }) {
  const t = useT();
  return <>{statusKey[status] ? t(statusKey[status]) : status}</>;
}


export function StateBadges({ locked, disabled }: { locked: boolean; disabled: boolean }) {
  const t = useT();
  return (
    <>
      {locked ? <span className="console-badge console-badge--warn">{t('console.state.locked')}</span> : null}
      {disabled ? <span className="console-badge console-badge--bad">{t('console.state.disabled')}</span> : null}
    </>
  );
}

/** /: the search box first, then the results as a table of links. */
export function SearchPage() {
  const t = useT();
  const id = useId();
  const [q, setQ] = useState('');
  const [brand, setBrand] = useState('');
  const [error, setError] = useState<MessageKey | null>(null);
  const [results, setResults] = useState<CustomerRow[] | null>(null);
  const [busy, setBusy] = useState(false);
  const search = async (event: FormEvent) => {
    event.preventDefault();
    if (q.trim().length < 2) {
      setError('console.search.tooShort');
      document.getElementById(`${id}-q`)?.focus();
      return;
    }
    setBusy(true);
    const answer = await call('get', '/customers', { query: brand ? { q: q.trim(), brand } : { q: q.trim() } });
    setBusy(false);
    if (answer.status !== 200) {
      setError(answer.errorCode === 'VALIDATION' ? 'console.search.tooShort' : errorMessage(answer.errorCode));
      return;
    }
    setError(null);
    setResults(answer.data?.customers ?? []);
  };
  return (
    <section className="console-page" aria-labelledby="console-search-title">
      <PageHeading id="console-search-title">{t('console.search.title')}</PageHeading>
      <form className="console-search" onSubmit={(e) => void search(e)} role="search" aria-label={t('console.search.title')} noValidate>
        <div className="console-field console-field--grow">
          <label htmlFor={`${id}-q`}>{t('console.search.query')}</label>
          <input
            id={`${id}-q`}
            type="search"
            value={q}
            onChange={(e) => setQ(e.target.value)}
            autoComplete="off"
            aria-invalid={error === 'console.search.tooShort' ? true : undefined}
            aria-describedby={`${id}-error`}
          />
        </div>
        <BrandField id={id} value={brand} onChange={setBrand} all />
        <button type="submit" className="console-button" aria-busy={busy || undefined} disabled={busy}>
          {t('console.search.submit')}
        </button>
      </form>
      <ErrorAlert id={`${id}-error`} error={error} />
      <div role="status">{results ? t('console.search.count', { count: results.length }) : null}</div>
      {results && results.length > 0 ? (
        <Table
          caption={t('console.search.results')}
          rows={results}
          rowKey={(c) => c.id}
          columns={[
            { label: t('console.customer.name'), cell: (c) => <Link href={`/customers/${encodeURIComponent(String(c.id))}`}>{c.name || c.email}</Link> },
            { label: t('console.customer.email'), cell: (c) => c.email },
            { label: t('console.customer.brand'), cell: (c) => c.brand },
            {
              label: t('console.customer.status'),
              cell: (c) => (
                <>
                  <StatusText status={c.status} /> <StateBadges locked={c.locked} disabled={c.disabled} />
                </>
              ),
            },
          ]}
        />
      ) : null}
    </section>
  );
}
