import { useId, useState } from 'react';
import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';
import { call } from '@/console/api';
import { ConfirmDialog } from '@/console/dialog';
import { ErrorAlert } from '@/console/alert';
import { errorMessage } from '@/console/errors';
import { PageHeading } from '@/console/heading';
import { ReauthDialog } from '@/console/reauth';
import { BrandField, useServedBrands } from '@/console/period';

type Outcome = { kind: 'done'; key: MessageKey; brand: string } | { kind: 'error'; key: MessageKey } | null;

/** /maintenance (supervisor, admin): a brand's maintenance mode on (until a time, optional) or off. */
export function MaintenancePage() {
  const t = useT();
  const id = useId();
  const brands = useServedBrands();
  const [brand, setBrand] = useState(brands[0] ?? '');
  const [until, setUntil] = useState('');
  const [confirm, setConfirm] = useState<boolean | null>(null);
  const [reauth, setReauth] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const run = async (on: boolean) => {
    const body: { brand: string; on: boolean; until?: string } = { brand, on };
    if (on && until) body.until = new Date(until).toISOString();
    const answer = await call('post', '/maintenance', { body });
    if (answer.status === 200) {
      setConfirm(null);
      setOutcome({ kind: 'done', key: on ? 'console.maintenance.doneOn' : 'console.maintenance.doneOff', brand });
      return;
    }
    if (answer.errorCode === 'REAUTH_REQUIRED') {
      setReauth(true);
      return;
    }
    setConfirm(null);
    setOutcome({ kind: 'error', key: answer.errorCode === 'VALIDATION' ? 'console.maintenance.invalid' : errorMessage(answer.errorCode) });
  };

  return (
    <section className="console-page console-page--narrow" aria-labelledby="console-maintenance-title">
      <PageHeading id="console-maintenance-title">{t('console.maintenance.title')}</PageHeading>
      <p>{t('console.maintenance.text')}</p>
      <BrandField id={id} value={brand} onChange={setBrand} />
      <div className="console-field">
        <label htmlFor={`${id}-until`}>{t('console.maintenance.until')}</label>
        <input id={`${id}-until`} type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} aria-describedby={`${id}-until-hint`} />
        <p id={`${id}-until-hint`}>{t('console.maintenance.untilHint')}</p>
      </div>
      <div className="console-actions">
        <button type="button" className="console-button" onClick={() => setConfirm(true)}>
          {t('console.maintenance.on')}
        </button>
        <button type="button" className="console-button console-button--quiet" onClick={() => setConfirm(false)}>
          {t('console.maintenance.off')}
        </button>
      </div>
      <div role="status" className={outcome?.kind === 'done' ? 'console-done' : undefined}>
        {outcome?.kind === 'done' ? t(outcome.key, { brand: outcome.brand }) : null}
      </div>
      <ErrorAlert error={outcome?.kind === 'error' ? outcome.key : null} />
      {reauth ? (
        <ReauthDialog
          onCancel={() => {
            setReauth(false);
            setConfirm(null);
          }}
          onDone={() => {
            setReauth(false);
            if (confirm !== null) void run(confirm);
          }}
        />
      ) : confirm !== null ? (
        <ConfirmDialog
          title={confirm ? t('console.maintenance.on') : t('console.maintenance.off')}
          onConfirm={() => void run(confirm)}
          onCancel={() => setConfirm(null)}
        >
          <p>{t(confirm ? 'console.maintenance.confirmOn' : 'console.maintenance.confirmOff', { brand })}</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
