import { useState } from 'react';
import { Redirect } from '@/lib/navigation/shown-location';
import { useT } from '@/i18n/i18n';
import { PrivateText } from '@/i18n/private-text';
import { useSignIn } from '@/lib/flow/use-sign-in';
import { heldCredentials } from '@/features/smart-registration/credentials';
import { SmartPage } from './smart-page';

/**
 * /create-an-account/confirmation (spec §2.5): only with the new account's
 * credentials held (else /). Go to my profile signs in through the SSO form
 * post, which lands on /my-account.
 */
export function Confirmation() {
  const t = useT();
  const { leaving, signIn } = useSignIn();
  const [credentials] = useState(heldCredentials);
  if (!credentials) return <Redirect to="/" replace />;
  return (
    <SmartPage title={t('smartRegistration.confirmation.title')}>
      <p><PrivateText id="smartRegistration.confirmation.text" params={{ username: credentials.username }} kinds={{ username: 'email' }} /></p>
      <div className="smart-registration__actions">
        <button
          type="button"
          className="button button--primary"
          disabled={leaving}
          aria-busy={leaving || undefined}
          onClick={() => signIn(credentials.username, credentials.password)}
        >
          {t('smartRegistration.confirmation.goToProfile')}
        </button>
      </div>
    </SmartPage>
  );
}
