import { useCallback, useEffect, useRef, useState } from 'react';
import { Redirect } from '@/lib/navigation/shown-location';
import { useT } from '@/i18n/i18n';
import type { components } from '@/lib/api/schema';
import { useApiClients } from '@/lib/api/use-api';
import { inSection } from '@/lib/site/in-section';
import { useSite } from '@/lib/site/site-context';
import { AccountList } from '@/features/account/account-list';
import { ActionButton } from '@/features/account/action-button';

type Device = components['schemas']['Sessions']['sessions'][number];

const isDevices = (d: unknown): d is { sessions: Device[] } =>
  typeof d === 'object' && d !== null && Array.isArray((d as { sessions?: unknown }).sessions);

/**
 * My account's "Where you're signed in" (issue 31): every live session of
 * the account, this browser marked, with a button to sign out each other
 * one and one to sign out everywhere else.
 */
export const Sessions = inSection('security', SessionList);

function SessionList() {
  const t = useT();
  const { language } = useSite();
  const clients = useApiClients();
  const [devices, setDevices] = useState<Device[] | null>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState('');
  const [signedOut, setSignedOut] = useState(false);
  const statusRef = useRef<HTMLParagraphElement>(null);

  const load = useCallback(async () => {
    const answer = await clients.second.request('get', '/me/sessions').catch(() => null);
    if (answer?.status === 401) return setSignedOut(true);
    setDevices(answer && answer.status === 200 && isDevices(answer.data) ? answer.data.sessions : []);
  }, [clients]);

  useEffect(() => {
    void load();
  }, [load]);

  const name = (d: Device) =>
    t('security.sessions.device', {
      browser: d.browser || t('security.sessions.unknownBrowser'),
      system: d.system || t('security.sessions.unknownSystem'),
    });

  const end = async (d: Device) => {
    setBusy(d.id);
    const answer = await clients.second.request('delete', '/me/sessions/{id}', { params: { id: d.id } }).catch(() => null);
    setBusy('');
    if (answer?.status === 204 || answer?.status === 404) {
      setDevices((list) => (list ?? []).filter((x) => x.id !== d.id));
      setStatus(t('security.sessions.ended', { device: name(d) }));
    } else setStatus(t('security.sessions.failed'));
    statusRef.current?.focus(); // the pressed button may be gone
  };

  const endOthers = async () => {
    setBusy('others');
    const answer = await clients.second.request('post', '/me/sessions/end-others').catch(() => null);
    setBusy('');
    if (answer?.status === 200) {
      setDevices((list) => (list ?? []).filter((x) => x.thisDevice));
      setStatus(t('security.sessions.othersEnded'));
    } else setStatus(t('security.sessions.failed'));
    statusRef.current?.focus();
  };

  if (signedOut) return <Redirect to="/" replace />;
  const date = new Intl.DateTimeFormat(`${language}-CA`, { dateStyle: 'long', timeStyle: 'short' });
  const others = (devices ?? []).filter((d) => !d.thisDevice);
  return (
    <section className="sessions" aria-labelledby="sessions-title">
      <h2 id="sessions-title">{t('security.sessions.title')}</h2>
      <p>{t('security.sessions.intro')}</p>
      <AccountList
        items={devices}
        itemKey={(d, i) => d.id || `old-${i}`}
        name={(d) => (
          <>
            {name(d)}
            {d.thisDevice ? <strong className="sessions__this"> · {t('security.sessions.thisDevice')}</strong> : null}
          </>
        )}
      >
        {(d) => (
          <>
            <p>{t('security.sessions.since', { date: date.format(new Date(d.firstSeen)) })}</p>
            <p>{t('security.sessions.lastSeen', { date: date.format(new Date(d.lastSeen)) })}</p>
            {!d.thisDevice && d.id ? (
              <ActionButton disabled={busy !== ''} busy={busy === d.id} onClick={() => void end(d)}>
                {t('security.sessions.signOut', { device: name(d) })}
              </ActionButton>
            ) : null}
          </>
        )}
      </AccountList>
      {others.length > 0 ? (
        <ActionButton disabled={busy !== ''} busy={busy === 'others'} onClick={() => void endOthers()}>
          {t('security.sessions.signOutOthers')}
        </ActionButton>
      ) : null}
      <p role="status" tabIndex={-1} ref={statusRef}>
        {status}
      </p>
    </section>
  );
}
