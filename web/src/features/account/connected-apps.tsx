import { useCallback, useEffect, useRef, useState } from 'react';
import { useT } from '@/i18n/i18n';
import { useApiClients } from '@/lib/api/use-api';
import { inSection } from '@/lib/site/in-section';
import { useSite } from '@/lib/site/site-context';
import { oidcApi, scopeKeys, type Application } from '@/features/account/oidc-api';
import { AccountList } from '@/features/account/account-list';
import { ActionButton } from '@/features/account/action-button';
import '@/features/account/consent.css';

/**
 * My account's "Connected applications": the third-party applications the
 * customer allowed on the consent page, each with what it gets and a button
 * that takes the access back (its grants end; it must ask again).
 */
export const ConnectedApps = inSection('oidc', Apps);

function Apps() {
  const t = useT();
  const { brand, language } = useSite();
  const clients = useApiClients();
  const [apps, setApps] = useState<Application[] | null>(null);
  const [failed, setFailed] = useState(false);
  const statusRef = useRef<HTMLParagraphElement>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState('');

  useEffect(() => {
    let live = true;
    void oidcApi(clients)
      .applications()
      .then(
        (answer) => {
          if (!live) return;
          if (answer.ok) setApps(answer.value.applications);
          else setFailed(true);
        },
        () => live && setFailed(true),
      );
    return () => {
      live = false;
    };
  }, [clients]);

  const withdraw = useCallback(
    async (app: Application) => {
      setBusy(app.clientId);
      const answer = await oidcApi(clients).withdraw(app.clientId).catch(() => 0);
      setBusy('');
      if (answer === 204 || answer === 404) {
        setApps((list) => (list ?? []).filter((a) => a.clientId !== app.clientId));
        setStatus(t('oidc.apps.withdrawn', { client: app.name }));
      } else {
        setStatus(t('oidc.apps.failed'));
      }
      // The pressed button may be gone: focus goes to what happened.
      statusRef.current?.focus();
    },
    [clients, t],
  );

  const date = new Intl.DateTimeFormat(`${language}-CA`, { dateStyle: 'long' });
  return (
    <section className="connected-apps" aria-labelledby="connected-apps-title">
      <h2 id="connected-apps-title">{t('oidc.apps.title')}</h2>
      {failed ? <p role="alert">{t('oidc.apps.loadFailed')}</p> : null}
      <AccountList items={apps} none={t('oidc.apps.none')} itemKey={(app) => app.clientId} name={(app) => app.name}>
        {(app) => (
          <>
            <p>{t('oidc.apps.since', { date: date.format(new Date(app.grantedAt)) })}</p>
            <p>{t('oidc.apps.gets')}</p>
            <ul>
              {scopeKeys(app.scopes).map((key) => (
                <li key={key}>{t(key, { brand: brand.name })}</li>
              ))}
            </ul>
            <ActionButton disabled={busy === app.clientId} busy={busy === app.clientId} onClick={() => void withdraw(app)}>
              {t('oidc.apps.withdraw', { client: app.name })}
            </ActionButton>
          </>
        )}
      </AccountList>
      <p role="status" tabIndex={-1} ref={statusRef}>
        {status}
      </p>
    </section>
  );
}
