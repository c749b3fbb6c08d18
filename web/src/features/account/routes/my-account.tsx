import { memo, startTransition, useCallback, useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { isMessageKey } from '@/i18n/catalog';
import { useT } from '@/i18n/i18n';
import { PrivateText } from '@/i18n/private-text';
import { loadSection, MessageSection } from '@/i18n/section';
import { useApiClients } from '@/lib/api/use-api';
import { privateMark } from '@/lib/cobrowse/privacy';
import { accountApi, type Me, type MePolicy } from '@/lib/flow/account-api';
import { lookup } from '@/lib/lookup';
import { useFlowResponse } from '@/lib/flow/use-flow-response';
import { usePageTitle } from '@/lib/page-title';
import { useSite } from '@/lib/site/site-context';
import { formatPolicyNumber } from '@/features/account/policy-number';
import { ChangeContact } from '@/features/account/change-contact';
import { ChangePassword } from '@/features/account/change-password';
import { AccountData } from '@/features/account/account-data';
import { ConnectedApps } from '@/features/account/connected-apps';
import { Passkeys } from '@/features/account/passkeys';
import { Sessions } from '@/features/account/sessions';
import '@/features/account/account.css';

// The page's sections, each rendered by the page only when its own props
// change: a section loads and holds its own data (an answer re-renders that
// section alone), and the page's own updates (its sign-out button, a new
// email) leave the others as they are (issue 32: my-account.test.tsx counts).
const Section = {
  Details: memo(MyAccountDetails),
  ChangeContact: memo(ChangeContact),
  ChangePassword: memo(ChangePassword),
  Passkeys: memo(Passkeys),
  Sessions: memo(Sessions),
  ConnectedApps: memo(ConnectedApps),
  AccountData: memo(AccountData),
};

const kindKeys = { home: 'account.kind.home', auto: 'account.kind.auto' } as const;
const roleKeys = { holder: 'account.role.holder', driver: 'account.role.driver' } as const;

/**
 * /my-account, the account page the web SSO sends a signed-in policyholder
 * to (built in; design.md "Web SSO"): name, email (lower-cased, spec §3),
 * brand and policies, and sign out. The customer's values are marked private
 * (lib/cobrowse/privacy.ts): a co-browsing agent sees the page, not them. Without a live session (401) the
 * visitor goes back to login.
 */
export default function MyAccountRoute() {
  const { language } = useSite();
  // The texts of the page's sections (its security settings, its connected
  // applications) load before its first render: a section that loaded
  // later would suspend the page already shown, hide it and lose its focus.
  void loadSection('oidc', language);
  return (
    <MessageSection name="security" language={language}>
      <MessageSection name="oidc" language={language}>
        <MyAccountPage />
      </MessageSection>
    </MessageSection>
  );
}

function MyAccountPage() {
  const t = useT();
  const clients = useApiClients();
  const { run, roadblock, dialog } = useFlowResponse();
  const [, navigate] = useLocation();
  const [me, setMe] = useState<Me | null>(null);
  const [signingOut, setSigningOut] = useState(false);
  usePageTitle(t('account.title'));

  useEffect(() => {
    let live = true;
    void run(() => accountApi(clients).me(), 'me').then((result) => {
      if (!live || !result) return;
      const value = result.answer.value;
      // The page's first render with data mounts every section at once, the
      // long task of the page (issue 32): as a transition, React renders it
      // in slices that yield to the browser, and commits it whole (the
      // loading line stays until then, so nothing moves twice).
      if (value) startTransition(() => setMe(value));
      else if (result.outcome.kind !== 'navigate' && result.outcome.kind !== 'roadblock') roadblock('technical');
    });
    return () => {
      live = false;
    };
  }, [clients, run, roadblock]);

  const emailChanged = useCallback((email: string) => setMe((m) => m && { ...m, email }), []);

  const signOut = async () => {
    setSigningOut(true);
    const result = await run(() => accountApi(clients).logout(), 'other');
    if (result?.outcome.kind === 'continue') navigate('/');
    else setSigningOut(false);
  };

  return (
    <section className="page page--narrow my-account" aria-labelledby="my-account-title">
      <h1 id="my-account-title">{t('account.title')}</h1>
      {me ? (
        <>
          <Section.Details me={me} />
          <Section.ChangeContact kind="email" current={me.email} onChanged={emailChanged} />
          <Section.ChangeContact kind="phone" />
          <Section.ChangePassword email={me.email.toLowerCase()} />
          <Section.Passkeys />
          <Section.Sessions />
          <Section.ConnectedApps />
          <Section.AccountData />
        </>
      ) : (
        <p role="status">{t('account.loading')}</p>
      )}
      {me ? (
        <button
          type="button"
          className="button button--primary"
          disabled={signingOut}
          aria-busy={signingOut}
          onClick={() => void signOut()}
        >
          {t('account.signOut')}
        </button>
      ) : null}
      {dialog}
    </section>
  );
}

function MyAccountDetails({ me }: { me: Me }) {
  const t = useT();
  const { brand } = useSite();
  const name = `${me.firstName} ${me.lastName}`.trim();
  return (
    <>
      {name ? (
        <p className="my-account__welcome">
          <PrivateText id="account.welcome" params={{ name }} kinds={{ name: 'name' }} />
        </p>
      ) : null}
      <h2>{t('account.details')}</h2>
      <dl className="my-account__details">
        <div>
          <dt>{t('account.name')}</dt>
          <dd {...privateMark('name')}>{name}</dd>
        </div>
        <div>
          <dt>{t('account.email')}</dt>
          <dd className="my-account__email" {...privateMark('email')}>
            <EmailAddress email={me.email.toLowerCase()} />
          </dd>
        </div>
        <div>
          <dt>{t('account.brand')}</dt>
          <dd>{brand.name}</dd>
        </div>
      </dl>
      <h2 id="my-account-policies">{t('account.policies')}</h2>
      {me.policies.length === 0 ? (
        <p>{t('account.noPolicies')}</p>
      ) : (
        // Explicit roles: on phones the CSS stacks each row as a card
        // (display: block), which makes some browsers drop table semantics.
        <table role="table" className="my-account__policies" aria-labelledby="my-account-policies">
          <thead role="rowgroup">
            <tr role="row">
              <th role="columnheader" scope="col">{t('account.policyNumber')}</th>
              <th role="columnheader" scope="col">{t('account.policyKind')}</th>
              <th role="columnheader" scope="col">{t('account.policyProvince')}</th>
              <th role="columnheader" scope="col">{t('account.policyRole')}</th>
            </tr>
          </thead>
          <tbody role="rowgroup">
            {me.policies.map((policy) => (
              <PolicyRow key={`${policy.number}:${policy.role}`} policy={policy} />
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function PolicyRow({ policy }: { policy: MePolicy }) {
  const t = useT();
  const { brand } = useSite();
  const format = brand.policyNumber.byProvince[policy.province] ?? brand.policyNumber;
  const provinceKey = `province.${policy.province}`;
  const kind = lookup(kindKeys, policy.kind) ?? null;
  const role = lookup(roleKeys, policy.role) ?? null;
  return (
    <tr role="row">
      <td role="cell" data-label={t('account.policyNumber')}>
        <span className="my-account__policy-number" {...privateMark('policyNumber')}>{formatPolicyNumber(policy.number, format.mask)}</span>
      </td>
      <td role="cell" data-label={t('account.policyKind')}>
        {kind ? t(kind) : policy.kind}
      </td>
      <td role="cell" data-label={t('account.policyProvince')}>
        {isMessageKey(provinceKey) ? t(provinceKey) : policy.province.toUpperCase()}
      </td>
      <td role="cell" data-label={t('account.policyRole')}>
        {role ? t(role) : policy.role}
      </td>
    </tr>
  );
}

/**
 * An email address that may wrap only after its @ on a narrow screen, never
 * in the middle of a name (the CSS breaks anywhere only as a last resort).
 */
function EmailAddress({ email }: { email: string }) {
  const at = email.lastIndexOf('@');
  if (at < 0) return <>{email}</>;
  return (
    <>
      {email.slice(0, at + 1)}
      <wbr />
      {email.slice(at + 1)}
    </>
  );
}
