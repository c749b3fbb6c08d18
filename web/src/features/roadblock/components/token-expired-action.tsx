import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import type { MessageKey } from '@/i18n/catalog';
import { useT } from '@/i18n/i18n';
import { useApiClients } from '@/lib/api/use-api';
import { accountApi } from '@/lib/flow/account-api';
import { pkmsAccount } from '@/lib/flow/cookies';
import { useFlow, type FlowState } from '@/lib/flow/state';
import { useFlowResponse } from '@/lib/flow/use-flow-response';

/**
 * Spec §2.6 token-expired roadblock: the button emails a new reset link
 * (RESET_PSW) to the account the flow knows; status 200 goes to
 * /check-your-inbox, other answers follow spec §8 (417: login-difficulties).
 * Without a known account (an old emailed link opened later: a used link
 * names no account) the page says what its button does instead: /forgot
 * asks for the email address and sends a new code (tokenExpiredText).
 */
export function TokenExpiredAction() {
  const t = useT();
  const clients = useApiClients();
  const flow = useFlow();
  const response = useFlowResponse();
  const [, navigate] = useLocation();
  const [busy, setBusy] = useState(false);
  const id = tokenExpiredAccount(flow);

  if (!id) {
    return (
      <Link href="/forgot" className="button button--primary">
        {t('roadblock.tokenExpired.askNewCode')}
      </Link>
    );
  }

  const send = async () => {
    setBusy(true);
    const result = await response.run(() => accountApi(clients).notify(id, 'RESET_PSW'), 'notification-reset');
    setBusy(false);
    if (!result) return;
    if (result.answer.status === 200) navigate('/check-your-inbox');
    else if (result.outcome.kind === 'returned' || result.outcome.kind === 'message') response.roadblock('technical');
  };

  return (
    <>
      <button type="button" className="button button--primary" disabled={busy} aria-busy={busy} onClick={() => void send()}>
        {t('roadblock.sendNewLink')}
      </button>
      {response.dialog}
    </>
  );
}

/** The account a new reset link goes to: the pkms cookie's, or the flow's; '' when none is known. */
export function tokenExpiredAccount(flow: Pick<FlowState, 'resetPassword' | 'registration'>): string {
  return pkmsAccount() || flow.resetPassword?.id || flow.registration?.id || '';
}

/** The page's text matches its button: an email promised only when it is sent from here. */
export function tokenExpiredText(flow: Pick<FlowState, 'resetPassword' | 'registration'>): MessageKey {
  return tokenExpiredAccount(flow) ? 'roadblock.tokenExpired.text' : 'roadblock.tokenExpired.textForgot';
}
