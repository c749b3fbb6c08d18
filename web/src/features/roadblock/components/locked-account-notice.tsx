import { useState } from 'react';
import { useT } from '@/i18n/i18n';
import { useApiClients } from '@/lib/api/use-api';
import { accountApi } from '@/lib/flow/account-api';
import { pkmsAccount } from '@/lib/flow/cookies';
import { readFlow } from '@/lib/flow/state';
import { useOnce } from '@/lib/use-once';

/**
 * Spec §2.6 locked-account roadblock: on load, the LOCKED_ACCOUNT email is
 * sent to the account of the pkms cookie (a login) or of the registration.
 * The page says so once the server has queued it; a failure changes nothing
 * on the page, which already tells the visitor to call.
 */
export function LockedAccountNotice() {
  const t = useT();
  const clients = useApiClients();
  const [sent, setSent] = useState(false);

  // Once per page visit, strict mode included.
  useOnce(() => {
    const id = pkmsAccount() || readFlow().registration?.id;
    if (!id) return;
    accountApi(clients)
      .notify(id, 'LOCKED_ACCOUNT')
      .then(
        (answer) => setSent(answer.status === 200),
        () => setSent(false),
      );
  });

  return (
    <p role="status" className="roadblock__status">
      {sent ? t('roadblock.wrongCellphone.emailSent') : null}
    </p>
  );
}
