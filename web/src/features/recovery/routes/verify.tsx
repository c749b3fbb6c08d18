import { useCallback, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { Redirect } from '@/lib/navigation/shown-location';
import { FormAside } from '@/components/form-aside/form-aside';
import { Form, SubmitButton } from '@/components/form/form';
import { SecurityCodeField } from '@/components/form/masked-field';
import { fieldId, useForm } from '@/components/form/use-form';
import { useT } from '@/i18n/i18n';
import { PrivateText } from '@/i18n/private-text';
import { useApiClients } from '@/lib/api/use-api';
import { errorCodeOf, outcomeMessage } from '@/lib/flow/error-catalogue';
import type { RoadblockPage } from '@/lib/flow/roadblocks';
import { leaveVerify, tokenReceived, useResetProgress } from '@/lib/flow/reset-state';
import { useFlow } from '@/lib/flow/state';
import { usePageTitle } from '@/lib/page-title';
import { checkSecurityCode } from '@/lib/rules/security-code';
import { recoveryApi } from '@/features/recovery/api';
import { ResendCode } from '@/features/recovery/components/resend-code';
import { fieldKey } from '@/features/recovery/field-errors';
import { RESET_ACTION } from '@/features/recovery/limits';
import { triesLeft, wrongCodeMessage } from '@/features/recovery/tries-left';
import { NEW_CODE_SENT } from '@/lib/flow/reset-code';
import { randomAttemptLimit } from '@/lib/flow/attempts';
import { useRecoveryResponse } from '@/features/recovery/use-recovery-response';
import '@/features/recovery/recovery.css';

/**
 * /verify (spec §2.1, §4.4): the 6-digit code of the reset email. Reachable
 * only from /forgot, / or /reset, with a reset request under way; opened
 * any other way it redirects to /.
 */
export default function VerifyRoute() {
  const { resetPassword } = useFlow();
  const { verifyFrom } = useResetProgress();
  if (!resetPassword?.id || !resetPassword.validationId || !verifyFrom) return <Redirect to="/" replace />;
  return (
    <VerifyCode
      id={resetPassword.id}
      validationId={resetPassword.validationId}
      email={resetPassword.emailResetPWD ?? resetPassword.email ?? ''}
    />
  );
}

function VerifyCode({ id, validationId, email }: { id: string; validationId: string; email: string }) {
  const t = useT();
  const clients = useApiClients();
  const { send, roadblock, dialog } = useRecoveryResponse();
  const [, navigate] = useLocation();
  usePageTitle(t('recovery.verify.title'));
  // Per page visit: a new visit draws a new limit and counts again.
  const [limit] = useState(() => randomAttemptLimit());
  const wrongCodes = useRef(0);
  // Wrong guesses of the current code: the server kills a code at its fifth.
  const wrongOfCode = useRef(0);
  // Arrived from the resend-code roadblock's 'Send me a new code' (spec §4.4).
  const [arrivedWithNewCode] = useState(newCodeSentState);
  const form = useForm({ code: { rule: checkSecurityCode } });
  const { restart, setFormError } = form;
  const codeInput = fieldId(form.id, 'code');

  /** A roadblock ends this visit of /verify: back from it, /verify redirects to /. */
  const leave = (page: RoadblockPage) => {
    roadblock(page);
    leaveVerify();
  };

  const submit = async ({ code }: { code: string }) => {
    const result = await send(() => recoveryApi(clients).validate(id, validationId, code), 'reset-code');
    if (!result) {
      leaveVerify();
      return;
    }
    const { answer, outcome } = result;
    if (outcome.kind === 'continue') {
      const verified = answer.value;
      if (!verified) return leave('technical');
      if (verified.action !== RESET_ACTION) {
        // Spec §4.2 token routing: any other action goes to /.
        leaveVerify();
        navigate('/');
        return;
      }
      tokenReceived(verified);
      navigate('/reset');
      return;
    }
    if (outcome.kind === 'message' && errorCodeOf(answer.data) === 'INVALID_ACTIVATION_CODE') {
      wrongCodes.current += 1;
      wrongOfCode.current += 1;
      if (wrongCodes.current >= limit) return leave('resend-code');
      // A new try starts: the emptied field is not checked on blur (it said
      // 'Enter the 6-digit security code' when tabbed away), only the
      // server's wrong-code message shows until the next submit.
      restart({ code: '' });
      setFormError(wrongCodeMessage(outcome.key, wrongCodes.current, triesLeft(limit, wrongCodes.current, wrongOfCode.current)));
      document.getElementById(codeInput)?.focus();
      return;
    }
    const key = fieldKey(answer.data, 'code');
    if (outcome.kind === 'returned' && key) form.setError('code', key);
    else if (outcome.kind === 'message') setFormError(outcomeMessage(outcome));
    else if (outcome.kind === 'returned') leave('technical');
    else if (outcome.kind !== 'soft-roadblock') leaveVerify();
  };

  // A new code: a new try, with no message of the old one.
  const codeSent = useCallback(() => {
    wrongOfCode.current = 0;
    restart({ code: '' });
    setFormError(null);
  }, [restart, setFormError]);

  return (
    <section className="page page--narrow recovery" aria-labelledby="verify-title">
      <h1 id="verify-title">{t('recovery.verify.title')}</h1>
      <p><PrivateText id="recovery.verify.text" params={{ email }} kinds={{ email: 'email' }} /></p>
      <Form form={form} onSubmit={submit} aria-labelledby="verify-title">
        <SecurityCodeField name="code" />
        <SubmitButton>{t('recovery.verify.submit')}</SubmitButton>
      </Form>
      <ResendCode id={id} validationId={validationId} onSent={codeSent} sentOnArrival={arrivedWithNewCode} />
      <p className="recovery__links">
        <Link href="/forgot" onClick={() => leaveVerify()}>
          {t('recovery.verify.back')}
        </Link>
      </p>
      <FormAside />
      {dialog}
    </section>
  );
}

function newCodeSentState(): boolean {
  const state: unknown = window.history.state;
  return typeof state === 'object' && state !== null && (state as Record<string, unknown>)[NEW_CODE_SENT] === true;
}
