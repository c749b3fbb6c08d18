import { useCallback, useRef, useState } from 'react';
import { Form, SubmitButton } from '@/components/form/form';
import { PinField, SecurityCodeField } from '@/components/form/masked-field';
import { fieldId, useForm } from '@/components/form/use-form';
import type { Message } from '@/i18n/catalog';
import { useT } from '@/i18n/i18n';
import { PrivateText } from '@/i18n/private-text';
import { outcomeMessage } from '@/lib/flow/error-catalogue';
import { PinLetter } from '@/lib/flow/pin-letter';
import { ResendLink } from '@/lib/flow/resend-link';
import { readFlow, updateFlow, useFlow } from '@/lib/flow/state';
import { checkPin } from '@/lib/rules/pin';
import { checkSecurityCode } from '@/lib/rules/security-code';
import { triesLeft } from '@/features/smart-registration/api';
import { useSmartSend } from '@/features/smart-registration/use-smart-send';
import { BackButton } from './back-button';
import { SmartPage } from './smart-page';

/** Spec §9: 3 resends; the spinner shows for at least 1 second. */
export const MAX_RESENDS = 3;
export const MIN_SPINNER_MS = 1000;

const RESEND_TEXTS = {
  notReceived: 'smartRegistration.code.notReceived',
  resend: 'smartRegistration.code.resend',
  resending: 'smartRegistration.code.resending',
  resent: 'smartRegistration.code.resent',
} as const;

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Spec §8.2 INVALID_ACTIVATION_CODE: the wrong code's message, with the tries the server says are left. */
export function wrongCode(pin: boolean, plain: Message, data: unknown): Message {
  const left = triesLeft(data);
  if (left === null || left < 1) return plain;
  if (left === 1) return pin ? 'smartRegistration.pin.wrong.one' : 'smartRegistration.code.wrong.one';
  return { key: pin ? 'smartRegistration.pin.wrong.other' : 'smartRegistration.code.wrong.other', params: { count: left } };
}

/**
 * /create-an-account/verify/code (spec §2.5): the 6-digit code sent to the
 * chosen option, or the 8-character PIN with the picture of the letter.
 * A wrong one says so (§8.2); too many, the identity-verification roadblock
 * (pin-identification for a PIN). Resend for code options only.
 */
export function VerifyCode() {
  const t = useT();
  const smart = useSmartSend();
  const { smartRegistration } = useFlow();
  const option = smartRegistration?.option;
  const pin = option?.optionName === 'PIN';
  const form = useForm({ code: { rule: pin ? checkPin : checkSecurityCode } });
  const { restart, setFormError } = form;

  const submit = async ({ code }: { code: string }) => {
    const result = await smart.send((api) => api.verify(code));
    if (!result) return;
    const { answer, outcome } = result;
    if (outcome.kind === 'continue') {
      const email = answer.value?.email;
      if (email) updateFlow((s) => (s.smartRegistration ? { smartRegistration: { ...s.smartRegistration, email } } : {}));
      return smart.follow();
    }
    if (outcome.kind === 'message' && outcome.errorCode === 'INVALID_ACTIVATION_CODE') {
      restart({ code: '' });
      setFormError(wrongCode(pin, pin ? 'securityPin.wrong' : outcome.key, answer.data));
      document.getElementById(fieldId(form.id, 'code'))?.focus();
      return;
    }
    if (outcome.kind === 'message') setFormError(outcomeMessage(outcome));
    else if (outcome.kind === 'returned') smart.roadblock('technical');
  };

  const codeSent = useCallback(() => {
    restart({ code: '' });
    setFormError(null);
  }, [restart, setFormError]);

  const title = pin ? t('smartRegistration.pin.title') : t('smartRegistration.code.title');
  return (
    <SmartPage title={title} dialog={smart.dialog}>
      {pin ? (
        <>
          <p>{t('smartRegistration.pin.text')}</p>
          <PinLetter title={t('smartRegistration.pin.imageTitle')} caption={t('smartRegistration.pin.imageText')} />
        </>
      ) : (
        <p><PrivateText id={option?.optionName === 'SMS' ? 'smartRegistration.code.textSms' : 'smartRegistration.code.textEmail'} params={{ value: option?.data ?? '' }} kinds={{ value: option?.optionName === 'SMS' ? 'phone' : 'email' }} /></p>
      )}
      <Form form={form} onSubmit={submit}>
        {pin ? <PinField name="code" /> : <SecurityCodeField name="code" />}
        <div className="smart-registration__actions">
          <SubmitButton>{t('smartRegistration.next')}</SubmitButton>
          <BackButton smart={smart} />
        </div>
      </Form>
      {pin ? null : <ResendCode onSent={codeSent} />}
    </SmartPage>
  );
}

/** Resend (spec §2.5, §9): a spinner for at least a second, at most 3 times, the server's refusal beside the link. */
function ResendCode({ onSent }: { onSent: () => void }) {
  const smart = useSmartSend();
  const [status, setStatus] = useState<{ sending: boolean; sent: boolean; refused: Message | null }>({ sending: false, sent: false, refused: null });
  const busy = useRef(false);
  const refuse = (refused: Message) => setStatus({ sending: false, sent: false, refused });
  const countResends = (resends: (n: number) => number) =>
    updateFlow((s) => (s.smartRegistration ? { smartRegistration: { ...s.smartRegistration, resends: resends(s.smartRegistration.resends ?? 0) } } : {}));

  const resend = async () => {
    if (busy.current) return;
    if ((readFlow().smartRegistration?.resends ?? 0) >= MAX_RESENDS) return refuse('smartRegistration.code.noMoreResends');
    busy.current = true;
    setStatus({ sending: true, sent: false, refused: null });
    const [result] = await Promise.all([smart.send((api) => api.resend()), wait(MIN_SPINNER_MS)]);
    busy.current = false;
    setStatus((s) => ({ ...s, sending: false }));
    const outcome = result?.outcome;
    if (outcome?.kind === 'continue') {
      countResends((n) => n + 1);
      setStatus({ sending: false, sent: true, refused: null });
      onSent();
    } else if (outcome?.kind === 'returned' && outcome.errorCode === 'EXCEEDED_RESENDS') {
      countResends(() => MAX_RESENDS);
      refuse('smartRegistration.code.noMoreResends');
    } else if (outcome?.kind === 'message') refuse(outcomeMessage(outcome));
    else if (outcome?.kind === 'returned') smart.roadblock('technical');
  };

  return (
    <ResendLink texts={RESEND_TEXTS} sending={status.sending} sent={status.sent} refused={status.refused} onResend={() => void resend()}>
      {smart.dialog}
    </ResendLink>
  );
}
