import { useCallback, useEffect, useRef, useState } from 'react';
import { Redirect } from '@/lib/navigation/shown-location';
import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';
import type { components } from '@/lib/api/schema';
import { useApiClients } from '@/lib/api/use-api';
import { useSite } from '@/lib/site/site-context';
import { errorCodeOf, useReauth, type Answer } from '@/features/account/reauth';

type Status = components['schemas']['PrivacyStatus'];

const isStatus = (d: unknown): d is Status => typeof d === 'object' && d !== null && 'export' in d && 'deletion' in d;

/**
 * My account's data rights (issue 31, Quebec's Law 25 and PIPEDA): a copy
 * of the account's data, prepared by the server and announced by email,
 * downloaded as a file (JSON) or a page to read (HTML); and the account's
 * deletion, after a warning, pending 30 days and cancellable. Asking and
 * downloading need a fresh proof of who the customer is: useReauth asks
 * for it inline, in the section of the action, and goes on.
 */
export function AccountData() {
  const t = useT();
  const { language, province, brand } = useSite();
  const clients = useApiClients();
  const [status, setStatus] = useState<Status | null>(null);
  // Each section says its outcomes in its own status line.
  const [message, setMessage] = useState({ data: '', deletion: '' });
  const [busy, setBusy] = useState('');
  const [warning, setWarning] = useState(false);
  const [signedOut, setSignedOut] = useState(false);
  const dataStatus = useRef<HTMLParagraphElement>(null);
  const deletionStatus = useRef<HTMLParagraphElement>(null);
  const warningRef = useRef<HTMLHeadingElement>(null);
  // After the confirmation (its button gone), the pending deletion's date takes the focus.
  const pendingRef = useRef<HTMLParagraphElement>(null);
  const [justAsked, setJustAsked] = useState(false);
  const dataProof = useReauth();
  const deletionProof = useReauth();

  const load = useCallback(async () => {
    const answer = await clients.second.request('get', '/me/privacy').catch(() => null);
    if (answer?.status === 401) return setSignedOut(true);
    if (answer?.status === 200 && isStatus(answer.data)) setStatus(answer.data);
  }, [clients]);

  useEffect(() => {
    void load();
  }, [load]);

  useEffect(() => {
    if (warning) warningRef.current?.focus();
  }, [warning]);

  useEffect(() => {
    if (justAsked && status?.deletion) pendingRef.current?.focus();
  }, [justAsked, status]);

  type Part = 'data' | 'deletion';
  const say = (part: Part, key: MessageKey | '') => {
    setMessage((m) => ({ ...m, [part]: key ? t(key) : '' }));
    (part === 'data' ? dataStatus : deletionStatus).current?.focus();
  };
  const refused = (part: Part, data: unknown, fallback: MessageKey) => {
    const code = errorCodeOf(data);
    if (code === 'REAUTH_REQUIRED') return say(part, 'security.reauth.required');
    if (code === 'NO_EXPORT') return say(part, 'security.data.none');
    if (code === 'RATE_LIMITED') return say(part, 'security.data.tooMany');
    if (code === 'NO_DELETION') return say(part, 'security.deletion.none');
    say(part, fallback);
  };

  const askExport = async () => {
    setBusy('export');
    const answer = await dataProof.run(() => clients.second.request('post', '/me/export')).catch(() => null);
    setBusy('');
    if (answer?.status === 202) {
      await load();
      say('data', 'security.data.asked');
    } else refused('data', answer?.data, 'security.data.failed');
  };

  const download = async (format: 'json' | 'html') => {
    setBusy(format);
    // The file comes as it is (not JSON-decoded by the API client), with the client's headers.
    let file: Blob | null = null;
    const fetchFile = async (): Promise<Answer> => {
      const response = await fetch(`/api/v1/me/export.${format}`, {
        credentials: 'same-origin',
        headers: { 'X-API-KEY': brand.apiKey, province: province.toUpperCase(), language },
      });
      if (response.status === 200) file = await response.blob();
      return { status: response.status, data: response.status === 200 ? null : await response.json().catch(() => null) };
    };
    const answer = await dataProof.run(fetchFile).catch(() => null);
    setBusy('');
    if (!file) {
      await load();
      return refused('data', answer?.data, 'security.data.failed');
    }
    const url = URL.createObjectURL(file);
    const link = document.createElement('a');
    link.href = url;
    link.download = `${brand.id}-data.${format}`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  };

  const askDeletion = async () => {
    setBusy('delete');
    const answer = await deletionProof.run(() => clients.second.request('post', '/me/deletion')).catch(() => null);
    setBusy('');
    if (answer?.status === 202) {
      setWarning(false);
      setJustAsked(true);
      await load();
    } else refused('deletion', answer?.data, 'security.deletion.failed');
  };

  const keepAccount = async () => {
    setBusy('keep');
    const answer = await clients.second.request('delete', '/me/deletion').catch(() => null);
    setBusy('');
    if (answer?.status === 204 || answer?.status === 404) {
      await load();
      say('deletion', 'security.deletion.cancelled');
    } else refused('deletion', answer?.data, 'security.deletion.failed');
  };

  if (signedOut) return <Redirect to="/" replace />;
  const date = new Intl.DateTimeFormat(`${language}-CA`, { dateStyle: 'long' });
  const exp = status?.export ?? null;
  const pending = status?.deletion ?? null;
  return (
    <>
      <section className="account-data" aria-labelledby="account-data-title">
        <h2 id="account-data-title">{t('security.data.title')}</h2>
        <p>{t('security.data.intro')}</p>
        {exp?.state === 'requested' ? <p>{t('security.data.preparing')}</p> : null}
        {exp?.state === 'ready' && exp.expiresAt ? (
          <>
            <p>{t('security.data.ready', { date: date.format(new Date(exp.expiresAt)) })}</p>
            <div className="account-data__actions">
              <button type="button" className="button button--primary" disabled={busy !== ''} aria-busy={busy === 'json'} onClick={() => void download('json')}>
                {t('security.data.json')}
              </button>
              <button type="button" className="button button--primary" disabled={busy !== ''} aria-busy={busy === 'html'} onClick={() => void download('html')}>
                {t('security.data.html')}
              </button>
            </div>
          </>
        ) : null}
        {status && exp?.state !== 'requested' ? (
          <button type="button" className="button button--secondary" disabled={busy !== ''} aria-busy={busy === 'export'} onClick={() => void askExport()}>
            {t(exp ? 'security.data.askAgain' : 'security.data.ask')}
          </button>
        ) : null}
        {dataProof.prompt}
        <p role="status" tabIndex={-1} ref={dataStatus}>
          {message.data}
        </p>
      </section>
      <section className="account-deletion" aria-labelledby="account-deletion-title">
        <h2 id="account-deletion-title">{t('security.deletion.title')}</h2>
        {pending ? (
          <div className="account-deletion__pending">
            <p tabIndex={-1} ref={pendingRef}>
              <strong>{t('security.deletion.pending', { date: date.format(new Date(pending.deleteAt)) })}</strong>
            </p>
            <p>{t('security.deletion.pendingHelp')}</p>
            <button type="button" className="button button--primary" disabled={busy !== ''} aria-busy={busy === 'keep'} onClick={() => void keepAccount()}>
              {t('security.deletion.cancel')}
            </button>
          </div>
        ) : (
          <>
            <p>{t('security.deletion.intro')}</p>
            {warning ? (
              <div className="account-deletion__warning">
                <h3 tabIndex={-1} ref={warningRef}>
                  {t('security.deletion.warningTitle')}
                </h3>
                <ul>
                  <li>{t('security.deletion.warningErased')}</li>
                  <li>{t('security.deletion.warningKept')}</li>
                  <li>{t('security.deletion.warningGrace')}</li>
                  <li>{t('security.deletion.warningFinal')}</li>
                </ul>
                <div className="account-data__actions">
                  <button type="button" className="button button--danger" disabled={busy !== ''} aria-busy={busy === 'delete'} onClick={() => void askDeletion()}>
                    {t('security.deletion.confirm')}
                  </button>
                  <button type="button" className="button button--secondary" disabled={busy !== ''} onClick={() => setWarning(false)}>
                    {t('security.deletion.back')}
                  </button>
                </div>
              </div>
            ) : status ? (
              <button type="button" className="button button--secondary" onClick={() => setWarning(true)}>
                {t('security.deletion.start')}
              </button>
            ) : null}
          </>
        )}
        {deletionProof.prompt}
        <p role="status" tabIndex={-1} ref={deletionStatus}>
          {message.deletion}
        </p>
      </section>
    </>
  );
}
