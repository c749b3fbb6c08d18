import { useId, useState } from 'react';
import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';
import type { components } from '@/lib/api/schema';
import { call } from '@/console/api';
import { ConsoleField } from '@/console/field';
import { ConfirmDialog } from '@/console/dialog';
import { errorMessage } from '@/console/errors';
import { PageHeading } from '@/console/heading';
import { ReauthRetry } from '@/console/reauth';
import { Table } from '@/console/table';
import { ErrorAlert } from '@/console/alert';

type Report = components['schemas']['ConsoleImportReport'];
type Step = 'dryRun' | 'write';

/**
 * /import (supervisor, admin): the policy file (CSV). A dry run first, whose
 * report lists every problem; only a clean file can then be written, after
 * a confirmation.
 */
export function ImportPage() {
  const t = useT();
  const id = useId();
  const [file, setFile] = useState<File | null>(null);
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<MessageKey | null>(null);
  const [confirm, setConfirm] = useState(false);
  const [reauth, setReauth] = useState<Step | null>(null);
  const [busy, setBusy] = useState(false);

  const send = async (step: Step) => {
    if (!file) {
      setError('console.import.noFile');
      document.getElementById(`${id}-file`)?.focus();
      return;
    }
    setBusy(true);
    const answer = await call('post', '/policies/import', {
      query: { dryRun: step === 'dryRun' ? 'true' : 'false' },
      raw: { type: 'text/csv', text: await file.text() },
    });
    setBusy(false);
    setConfirm(false);
    if (answer.errorCode === 'REAUTH_REQUIRED') {
      setReauth(step);
      return;
    }
    if (answer.data && (answer.status === 200 || answer.errorCode === 'IMPORT_INVALID')) {
      setError(null);
      setReport(answer.data);
      return;
    }
    setReport(null);
    setError(errorMessage(answer.errorCode));
  };

  const clean = report !== null && report.dryRun && report.errors.length === 0;
  return (
    <section className="console-page" aria-labelledby="console-import-title">
      <PageHeading id="console-import-title">{t('console.import.title')}</PageHeading>
      <p>{t('console.import.text')}</p>
      <ConsoleField id={`${id}-file`} label={t('console.import.file')}>
        <input
          id={`${id}-file`}
          type="file"
          accept=".csv,text/csv"
          aria-describedby={`${id}-error`}
          onChange={(event) => {
            setReport(null);
            setFile(event.target.files?.[0] ?? null);
          }}
        />
      </ConsoleField>
      <div className="console-actions">
        <button type="button" className="console-button" onClick={() => void send('dryRun')} disabled={busy} aria-busy={busy || undefined}>
          {t('console.import.check')}
        </button>
        {clean ? (
          <button type="button" className="console-button" onClick={() => setConfirm(true)}>
            {t('console.import.write')}
          </button>
        ) : null}
      </div>
      <ErrorAlert id={`${id}-error`} error={error} />
      <div role="status">
        {report ? (
          <p>
            {t(report.dryRun ? 'console.import.reportDryRun' : 'console.import.reportWritten', {
              rows: report.rows ?? 0,
              added: report.added ?? 0,
              updated: report.updated ?? 0,
              unchanged: report.unchanged ?? 0,
            })}{' '}
            {report.errors.length > 0 ? t('console.import.problems', { count: report.errors.length }) : null}
          </p>
        ) : null}
      </div>
      {report && report.errors.length > 0 ? (
        <Table
          caption={t('console.import.problemsTitle')}
          rows={report.errors}
          rowKey={(_, i) => i}
          columns={[
            { label: t('console.import.line'), cell: (e) => e.line },
            { label: t('console.import.column'), cell: (e) => e.column },
            { label: t('console.import.problem'), cell: (e) => e.problem },
          ]}
        />
      ) : null}
      {reauth ? (
        <ReauthRetry pending={reauth} onClear={() => setReauth(null)} retry={(step) => void send(step)} />
      ) : confirm ? (
        <ConfirmDialog title={t('console.import.write')} busy={busy} onConfirm={() => void send('write')} onCancel={() => setConfirm(false)}>
          <p>{t('console.import.confirm', { file: file?.name ?? '', rows: report?.rows ?? 0 })}</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
