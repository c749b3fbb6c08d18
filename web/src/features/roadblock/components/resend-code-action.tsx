import { useRef, useState } from 'react';
import { useLocation } from 'wouter';
import type { Message } from '@/i18n/catalog';
import { messageText, useT } from '@/i18n/i18n';
import { useApiClients } from '@/lib/api/use-api';
import { outcomeMessage } from '@/lib/flow/error-catalogue';
import { isCodeResent, MAX_RESENDS, NEW_CODE_SENT, resendResetCode } from '@/lib/flow/reset-code';
import { codeResent, updateResetProgress, useResetProgress } from '@/lib/flow/reset-state';
import { updateFlow, useFlow } from '@/lib/flow/state';
import { useFlowResponse } from '@/lib/flow/use-flow-response';

/**
 * The resend-code roadblock's way on (spec §4.4, issue 12): too many wrong
 * codes need not end in a call. While the reset request allows a resend
 * (4 a request, internal/recovery MaxResends), 'Send me a new code' emails
 * one and goes back to /verify, which says a new code was sent. With no
 * resend left the page says so and calling is what remains; opened without
 * a reset under way, it offers nothing more than the call.
 */
export function ResendCodeAction() {
  const t = useT();
  const clients = useApiClients();
  const { resetPassword } = useFlow();
  const { resends } = useResetProgress();
  const response = useFlowResponse();
  const [, navigate] = useLocation();
  const [sending, setSending] = useState(false);
  // 429 RATE_LIMITED or BUSY: a wait, then the button works again.
  const [refused, setRefused] = useState<Message | null>(null);
  const busy = useRef(false);
  const id = resetPassword?.id;
  const validationId = resetPassword?.validationId;

  if (!id || !validationId) return null;
  if (resends >= MAX_RESENDS) return <p>{t('roadblock.resendCode.noMoreCodes')}</p>;

  const send = async () => {
    if (busy.current) return;
    busy.current = true;
    setSending(true);
    setRefused(null);
    let answer: Awaited<ReturnType<typeof resendResetCode>>;
    try {
      answer = await resendResetCode(clients, id, validationId);
    } catch {
      response.roadblock('technical');
      return;
    } finally {
      busy.current = false;
      setSending(false);
    }
    // 404 or 409 (no request, used, no resend left): the server's word on resends.
    if (answer.status === 404 || answer.status === 409) {
      response.roadblock('resend-reset-password');
      return;
    }
    const outcome = response.apply(answer, 'other');
    if (outcome.kind === 'continue' && isCodeResent(answer.data)) {
      codeResent(answer.data);
      // /verify opens again for the new code, out of the roadblock.
      updateResetProgress({ verifyFrom: '/forgot' });
      updateFlow({ roadblocked: false, errorCode: null });
      navigate('/verify', { state: { [NEW_CODE_SENT]: true } });
      return;
    }
    if (outcome.kind === 'message' && answer.status === 429) setRefused(outcomeMessage(outcome));
    else if (outcome.kind === 'returned' || outcome.kind === 'continue' || outcome.kind === 'message') response.roadblock('technical');
  };

  return (
    <div className="roadblock__action">
      <p>{t('roadblock.resendCode.newCode')}</p>
      <button
        type="button"
        className="button button--primary"
        aria-disabled={sending || undefined}
        aria-busy={sending || undefined}
        onClick={() => void send()}
      >
        {t(sending ? 'roadblock.resendCode.sending' : 'roadblock.resendCode.send')}
      </button>
      <div role="alert" className={refused ? 'form-alert' : undefined}>
        {refused ? <p>{messageText(t, refused)}</p> : null}
      </div>
      {response.dialog}
    </div>
  );
}
