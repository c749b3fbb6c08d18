import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Redirect } from '@/lib/navigation/shown-location';
import type { MessageKey } from '@/i18n/catalog';
import { useT } from '@/i18n/i18n';
import type { components } from '@/lib/api/schema';
import { useApiClients } from '@/lib/api/use-api';
import { inSection } from '@/lib/site/in-section';
import { useSite } from '@/lib/site/site-context';
import { createPasskey, PASSWORD_SIGN_IN, passkeysSupported, platformAuthenticator } from '@/lib/webauthn/webauthn';
import { errorCodeOf, useReauth, type Answer } from '@/features/account/reauth';
import { AccountList } from '@/features/account/account-list';
import { ActionButton } from '@/features/account/action-button';

type Passkey = components['schemas']['Passkey'];

const isList = (d: unknown): d is { passkeys: Passkey[]; offer: boolean } =>
  typeof d === 'object' && d !== null && Array.isArray((d as { passkeys?: unknown }).passkeys);

const errorKeys: Record<string, MessageKey> = {
  PASSKEY_EXPIRED: 'security.passkeys.expired',
  PASSKEY_INVALID: 'security.passkeys.invalid',
  PASSKEY_LIMIT: 'security.passkeys.limit',
  INVALID_NAME: 'security.passkeys.nameInvalid',
};

const keyOf = (a: Answer | null): MessageKey => {
  const code = a ? errorCodeOf(a.data) : undefined;
  return (typeof code === 'string' && errorKeys[code]) || 'security.passkeys.failed';
};

/**
 * My account's passkeys (issue 31): the account's passkeys (name, when
 * added, when last used), a named one added (after a fresh proof: the
 * inline re-authentication), one removed (the same). After a password
 * sign-in on a device with a platform authenticator, the offer to add one
 * is shown once per account: the server remembers it was made
 * (POST /me/passkeys/offer), whether it is taken, dismissed or ignored.
 */
export const Passkeys = inSection('security', PasskeyList);

function PasskeyList() {
  const t = useT();
  const { language } = useSite();
  const clients = useApiClients();
  const { run, prompt } = useReauth();
  const [list, setList] = useState<Passkey[] | null>(null);
  const [offer, setOffer] = useState(false);
  const [name, setName] = useState('');
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState('');
  const [signedOut, setSignedOut] = useState(false);
  const statusRef = useRef<HTMLParagraphElement>(null);
  const nameId = useId();
  const supported = passkeysSupported();
  // Read once (StrictMode runs the effect twice; the flag is spent in it).
  const [afterPassword] = useState(() => sessionStorage.getItem(PASSWORD_SIGN_IN) === '1');

  const load = useCallback(async () => {
    const answer = await clients.second.request('get', '/me/passkeys').catch(() => null);
    if (answer?.status === 401) return setSignedOut(true);
    const data: unknown = answer?.status === 200 ? answer.data : null;
    if (!isList(data)) {
      setList([]);
      return false;
    }
    setList(data.passkeys);
    return data.offer;
  }, [clients]);

  useEffect(() => {
    let live = true;
    sessionStorage.removeItem(PASSWORD_SIGN_IN);
    void load().then(async (offerable) => {
      if (!offerable || !afterPassword) return;
      if (!(await platformAuthenticator()) || !live) return;
      setOffer(true);
      await clients.second.request('post', '/me/passkeys/offer').catch(() => null);
    });
    return () => {
      live = false;
    };
  }, [load, clients, afterPassword]);

  const say = (text: string) => {
    setStatus(text);
    statusRef.current?.focus();
  };

  const add = async () => {
    const chosen = name.trim() || t('security.passkeys.defaultName');
    if (chosen.length > 60) return say(t('security.passkeys.nameInvalid'));
    setBusy('add');
    setOffer(false);
    const begun = await run(() => clients.second.request('post', '/me/passkeys/registration').catch(() => ({ status: 0, data: null })));
    if (begun.status === 401) return setSignedOut(true);
    const ceremony = begun.data as { challengeId?: string; options?: unknown } | null;
    if (begun.status !== 200 || !ceremony?.challengeId) {
      setBusy('');
      return say(t(begun.status === 403 ? 'security.passkeys.cancelled' : keyOf(begun)));
    }
    let credential;
    try {
      credential = await createPasskey(ceremony.options);
    } catch {
      setBusy('');
      return say(t('security.passkeys.cancelled'));
    }
    const body = { challengeId: ceremony.challengeId, name: chosen, credential };
    const done = await run(() => clients.second.request('post', '/me/passkeys', { body }).catch(() => ({ status: 0, data: null })));
    setBusy('');
    if (done.status !== 201) return say(t(keyOf(done)));
    setName('');
    await load();
    say(t('security.passkeys.added', { name: chosen }));
  };

  const remove = async (p: Passkey) => {
    setBusy(p.id);
    const answer = await run(() =>
      clients.second.request('delete', '/me/passkeys/{id}', { params: { id: p.id } }).catch(() => ({ status: 0, data: null })),
    );
    setBusy('');
    if (answer.status === 204 || answer.status === 404) {
      setList((l) => (l ?? []).filter((x) => x.id !== p.id));
      say(t('security.passkeys.removed', { name: p.name }));
    } else if (answer.status !== 403) say(t('security.passkeys.failed'));
  };

  if (signedOut) return <Redirect to="/" replace />;
  const date = new Intl.DateTimeFormat(`${language}-CA`, { dateStyle: 'long' });
  return (
    <>
      {offer ? (
        <section className="passkey-offer" aria-labelledby="passkey-offer-title">
          <h2 id="passkey-offer-title">{t('security.passkeys.offerTitle')}</h2>
          <p>{t('security.passkeys.offerText')}</p>
          <p className="passkey-offer__actions">
            <button type="button" className="button button--primary" disabled={busy !== ''} onClick={() => void add()}>
              {t('security.passkeys.offerAccept')}
            </button>
            <button type="button" className="button button--secondary" onClick={() => setOffer(false)}>
              {t('security.passkeys.offerDismiss')}
            </button>
          </p>
        </section>
      ) : null}
      <section className="passkeys" aria-labelledby="passkeys-title">
        <h2 id="passkeys-title">{t('security.passkeys.title')}</h2>
        <p>{t('security.passkeys.intro')}</p>
        <AccountList items={list} none={t('security.passkeys.none')} itemKey={(p) => p.id} name={(p) => p.name}>
          {(p) => (
            <>
              <p>{t('security.passkeys.created', { date: date.format(new Date(p.createdAt)) })}</p>
              <p>{p.lastUsedAt ? t('security.passkeys.lastUsed', { date: date.format(new Date(p.lastUsedAt)) }) : t('security.passkeys.neverUsed')}</p>
              <ActionButton disabled={busy !== ''} busy={busy === p.id} onClick={() => void remove(p)}>
                {t('security.passkeys.remove', { name: p.name })}
              </ActionButton>
            </>
          )}
        </AccountList>
        {supported ? (
          <div className="passkeys__add">
            <div className="field">
              <label htmlFor={nameId} className="field__label">
                {t('security.passkeys.name')}
              </label>
              <p id={`${nameId}-hint`} className="field__hint">
                {t('security.passkeys.nameHint')}
              </p>
              <input
                id={nameId}
                className="field__input"
                type="text"
                maxLength={60}
                autoComplete="off"
                aria-describedby={`${nameId}-hint`}
                value={name}
                onChange={(e) => setName(e.target.value)}
              />
            </div>
            <ActionButton disabled={busy !== ''} busy={busy === 'add'} onClick={() => void add()}>
              {t('security.passkeys.add')}
            </ActionButton>
          </div>
        ) : (
          <p>{t('security.passkeys.unsupported')}</p>
        )}
        {prompt}
        <p role="status" tabIndex={-1} ref={statusRef}>
          {status}
        </p>
      </section>
    </>
  );
}
