import { useEffect, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { useT } from '@/i18n/i18n';
import { readFlow, updateFlow, useFlow } from '@/lib/flow/state';
import type { AccountType as Choice } from '@/features/smart-registration/api';
import { SMART_PATHS } from '@/features/smart-registration/session';
import { useSmartSend } from '@/features/smart-registration/use-smart-send';
import { ChoiceFieldset } from './choice-fieldset';
import { SmartPage } from './smart-page';

const CHOICES: readonly { value: Choice; label: 'smartRegistration.accountType.policyHolder' | 'smartRegistration.accountType.insuredDriver'; hint: 'smartRegistration.accountType.policyHolderHint' | 'smartRegistration.accountType.insuredDriverHint' }[] = [
  { value: 'policyHolder', label: 'smartRegistration.accountType.policyHolder', hint: 'smartRegistration.accountType.policyHolderHint' },
  { value: 'insuredDriver', label: 'smartRegistration.accountType.insuredDriver', hint: 'smartRegistration.accountType.insuredDriverHint' },
];

const MARK = 'guichet-account-type';

const marked = (state: unknown) => typeof state === 'object' && state !== null && (state as Record<string, unknown>)[MARK] === true;

/**
 * Spec §2.5: the browser's back button leaves the account type for the
 * login page, wherever the visitor came from (a session that ended sends
 * them here from the middle of the flow). A marked entry sits on top of the
 * page's own; a back press that lands on the unmarked one goes to /.
 */
function useBackToLogin(navigate: (to: string, options?: { replace?: boolean }) => void) {
  useEffect(() => {
    if (!marked(window.history.state)) {
      window.history.pushState({ ...(window.history.state ?? {}), [MARK]: true }, '', window.location.href);
    }
    const onPopState = () => {
      if (window.location.pathname === SMART_PATHS.accountType && !marked(window.history.state)) navigate('/', { replace: true });
    };
    window.addEventListener('popstate', onPopState);
    return () => window.removeEventListener('popstate', onPopState);
  }, [navigate]);
}

/**
 * /create-an-account/identification/account-type (spec §2.5): policyholder
 * (the default) or additional driver. Next starts a session: a policyholder
 * goes on to identification, a driver to legacy registration (REDIRECT).
 * A session that ended comes back here with its message.
 */
export function AccountType() {
  const t = useT();
  const [, navigate] = useLocation();
  const { sessionExpired } = useFlow();
  const smart = useSmartSend();
  const [choice, setChoice] = useState<Choice>('policyHolder');
  const [busy, setBusy] = useState(false);
  useBackToLogin(navigate);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    // A new session: the one before (ended or not) and its message go.
    updateFlow({ smartRegistration: null, sessionExpired: false });
    const result = await smart.send((api) => api.start(choice));
    if (result?.outcome.kind === 'continue' && readFlow().smartRegistration) await smart.follow();
    else if (result?.outcome.kind === 'continue') smart.roadblock('technical');
    setBusy(false);
  };

  return (
    <SmartPage title={t('smartRegistration.accountType.title')} dialog={smart.dialog}>
      <div role="alert" className={sessionExpired ? 'form-alert' : undefined}>
        {sessionExpired ? <p>{t('smartRegistration.accountType.sessionEnded')}</p> : null}
      </div>
      <form noValidate className="form" onSubmit={(event) => void submit(event)}>
        <ChoiceFieldset
          name="accountType"
          legend={t('smartRegistration.accountType.legend')}
          choices={CHOICES.map(({ value, label, hint }) => ({ value, label: t(label), hint: t(hint) }))}
          chosen={choice}
          onChoose={(value) => setChoice(value as Choice)}
        />
        <p>
          <Link href={SMART_PATHS.accountTypeHelp}>{t('smartRegistration.accountType.help')}</Link>
        </p>
        <div className="smart-registration__actions">
          <button type="submit" className="button button--primary" disabled={busy} aria-busy={busy || undefined}>
            {t('smartRegistration.next')}
          </button>
          <button type="button" className="button button--secondary" onClick={() => navigate('/')}>
            {t('smartRegistration.backToLogin')}
          </button>
        </div>
      </form>
    </SmartPage>
  );
}

/** /create-an-account/identification/account-type-help: the two account types explained; Close returns. */
export function AccountTypeHelp() {
  const t = useT();
  const [, navigate] = useLocation();
  return (
    <SmartPage title={t('smartRegistration.help.title')} aside={false}>
      <h2>{t('smartRegistration.accountType.policyHolder')}</h2>
      <p>{t('smartRegistration.help.policyHolder')}</p>
      <h2>{t('smartRegistration.accountType.insuredDriver')}</h2>
      <p>{t('smartRegistration.help.insuredDriver')}</p>
      <div className="smart-registration__actions">
        <button type="button" className="button button--primary" onClick={() => navigate(SMART_PATHS.accountType)}>
          {t('smartRegistration.help.close')}
        </button>
      </div>
    </SmartPage>
  );
}
