import { useEffect, useState } from 'react';
import { useSearch } from 'wouter';
import { Redirect } from '@/lib/navigation/shown-location';
import { useT } from '@/i18n/i18n';
import { PrivateText } from '@/i18n/private-text';
import { useApiClients } from '@/lib/api/use-api';
import { accountApi } from '@/lib/flow/account-api';
import { ssoAction } from '@/lib/flow/sso-form';
import { usePageTitle } from '@/lib/page-title';
import { inSection } from '@/lib/site/in-section';
import { useSite } from '@/lib/site/site-context';
import { oidcApi, scopeKeys, type ConsentInfo } from '@/features/account/oidc-api';
import '@/features/account/consent.css';

/**
 * /oidc/consent?id=: an application the insurer does not run (a
 * third-party OpenID client, issue 30) asks to use the customer's account.
 * The page names it and what it will get, and posts the answer to the
 * server's form (POST /oidc/consent), which goes on to the application with
 * a code, or with access_denied. Without a session: back to login.
 */
export default inSection('oidc', Consent);

type State = { kind: 'loading' } | { kind: 'ready'; info: ConsentInfo } | { kind: 'expired' } | { kind: 'signed-out' };

function Consent() {
  const t = useT();
  const { brand } = useSite();
  const clients = useApiClients();
  const id = new URLSearchParams(useSearch()).get('id') ?? '';
  const [state, setState] = useState<State>({ kind: 'loading' });
  const title = state.kind === 'ready' ? t('oidc.consent.title', { client: state.info.client }) : t('oidc.consent.loading');
  usePageTitle(title);

  useEffect(() => {
    let live = true;
    void oidcApi(clients)
      .consentInfo(id)
      .then(
        (answer) => {
          if (!live) return;
          if (answer.ok) setState({ kind: 'ready', info: answer.value });
          else if (answer.status === 401) setState({ kind: 'signed-out' });
          else setState({ kind: 'expired' });
        },
        () => live && setState({ kind: 'expired' }),
      );
    return () => {
      live = false;
    };
  }, [clients, id]);

  if (state.kind === 'signed-out') return <Redirect to="/" replace />;
  if (state.kind !== 'ready') {
    return (
      <section className="page page--narrow consent" aria-labelledby="consent-title">
        <h1 id="consent-title">{state.kind === 'expired' ? t('oidc.consent.expired') : t('oidc.consent.loading')}</h1>
      </section>
    );
  }
  const client = state.info.client;
  const signOut = async () => {
    await accountApi(clients).logout().catch(() => null);
    setState({ kind: 'signed-out' });
  };
  return (
    <section className="page page--narrow consent" aria-labelledby="consent-title">
      <h1 id="consent-title">{title}</h1>
      <p>{t('oidc.consent.intro', { client, brand: brand.name })}</p>
      <ul className="consent__scopes">
        {scopeKeys(state.info.scopes).map((key) => (
          <li key={key}>{t(key, { brand: brand.name })}</li>
        ))}
      </ul>
      <p>{t('oidc.consent.later')}</p>
      <p className="consent__account">
        <PrivateText id="oidc.consent.account" params={{ email: state.info.account }} kinds={{ email: 'email' }} />{' '}
        <button type="button" className="link-button consent__sign-out" onClick={() => void signOut()}>
          {t('oidc.consent.signOut')}
        </button>
      </p>
      <form method="post" action={ssoAction('/oidc/consent')} className="consent__actions">
        <input type="hidden" name="id" value={id} />
        <button type="submit" name="decision" value="allow" className="button button--primary">
          {t('oidc.consent.allow')}
        </button>
        <button type="submit" name="decision" value="deny" className="button button--secondary">
          {t('oidc.consent.deny')}
        </button>
      </form>
    </section>
  );
}
