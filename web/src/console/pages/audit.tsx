import { useId, useState } from 'react';
import { useT } from '@/i18n/i18n';
import { consoleUrl } from '@/console/api';
import { PageHeading } from '@/console/heading';
import { PeriodFields, type Period } from '@/console/period';

/** A yyyy-mm-dd of the date input as the start of that day in UTC (RFC 3339). */
export function dayStart(day: string): string {
  return `${day}T00:00:00Z`;
}

/** The export's address: [from, to] whole days, to included (the API's to is exclusive). */
export function auditHref(from: string, to: string, brand: string): string {
  const end = new Date(`${to}T00:00:00Z`);
  end.setUTCDate(end.getUTCDate() + 1);
  const period = { from: dayStart(from), to: end.toISOString().replace('.000Z', 'Z') };
  return consoleUrl('/audit.csv', { query: brand ? { ...period, brand } : period });
}

/** /audit (supervisor, admin): download the audit rows of a period as CSV. */
export function AuditPage() {
  const t = useT();
  const id = useId();
  const today = new Date().toISOString().slice(0, 10);
  const [period, setPeriod] = useState<Period>({ from: today, to: today, brand: '' });
  const { from, to, brand } = period;
  const valid = from !== '' && to !== '' && from <= to;
  return (
    <section className="console-page console-page--narrow" aria-labelledby="console-audit-title">
      <PageHeading id="console-audit-title">{t('console.audit.title')}</PageHeading>
      <p>{t('console.audit.text')}</p>
      <PeriodFields id={id} value={period} onChange={setPeriod} />
      {valid ? (
        <a className="console-button" href={auditHref(from, to, brand)} download={`audit-${from}-${to}.csv`}>
          {t('console.audit.download')}
        </a>
      ) : (
        <p role="alert" className="console-error">
          {t('console.audit.invalid')}
        </p>
      )}
    </section>
  );
}
