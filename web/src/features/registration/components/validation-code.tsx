import { useCallback, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { Form, SubmitButton } from '@/components/form/form';
import { PinField, SecurityCodeField } from '@/components/form/masked-field';
import { fieldId, useForm } from '@/components/form/use-form';
import type { Message, MessageKey } from '@/i18n/catalog';
import { useT } from '@/i18n/i18n';
import { PrivateText } from '@/i18n/private-text';
import { useApiClients } from '@/lib/api/use-api';
import { errorCodeOf, outcomeMessage } from '@/lib/flow/error-catalogue';
import { ResendLink } from '@/lib/flow/resend-link';
import { updateFlow, useFlow, type RegistrationState, type TwoFactorOption } from '@/lib/flow/state';
import { checkPin } from '@/lib/rules/pin';
import { checkSecurityCode } from '@/lib/rules/security-code';
import { optionsOf, registrationApi } from '@/features/registration/api';
import { PinLetter } from '@/lib/flow/pin-letter';
import { afterCode, MIN_SPINNER_MS } from '@/features/registration/flow';
import { fieldKey } from '@/features/registration/field-key';
import { useRegistrationResponse } from '@/features/registration/use-registration-response';
import { RegistrationPage } from '@/features/registration/components/registration-page';

const TITLE_ID = 'registration-code-title';

export type CodeMethod = 'SMS' | 'EMAIL' | 'PIN';

/** The option the code goes with: the one chosen, or the one a submitted email asked for (ask-email-code). */
export function selectedOption(registration: RegistrationState | null): TwoFactorOption | undefined {
  const id = registration?.selectedTwoFactor;
  if (!id) return undefined;
  if (registration.nextOption?.id === id) return registration.nextOption;
  return registration.twoFactorValidations?.find((o) => o.id === id);
}

const RESEND_TEXTS = {
  notReceived: 'registration.code.notReceived',
  resend: 'registration.code.resend',
  resending: 'registration.code.resending',
  resent: 'registration.code.resent',
} as const;

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * /registration/validation/sms, /email (a 6-digit code sent to the person)
 * and /pin (the 8 characters of the insurer's letter, with a picture of
 * where they are printed). Spec §4.2 code submission: 200 goes on to the
 * password, a 240 to the method it names; a wrong code says so; too many,
 * pin-difficulties.
 */
export function ValidationCode({ method }: { method: CodeMethod }) {
  const t = useT();
  const clients = useApiClients();
  const { registration } = useFlow();
  const response = useRegistrationResponse();
  const [, navigate] = useLocation();
  const pin = method === 'PIN';
  const title = pin ? t('registration.pin.title') : t('registration.code.title');
  const option = selectedOption(registration);
  const form = useForm({ code: { rule: pin ? checkPin : checkSecurityCode } });
  const { restart, setFormError } = form;
  const id = registration?.id ?? '';
  const validationId = option?.id ?? '';

  const submit = async ({ code }: { code: string }) => {
    // No option selected (a state this page cannot submit with): no call to a path without its option.
    if (!id || !validationId) return response.roadblock('technical');
    const result = await response.send(() => registrationApi(clients).validate(id, validationId, code), pin ? 'pin' : 'other');
    if (!result) return;
    const { answer, outcome } = result;
    if (outcome.kind === 'continue' && answer.value) {
      const value = answer.value;
      const [next] = 'twoFactorValidations' in value ? optionsOf(value.twoFactorValidations) : [];
      const email = 'email' in value && typeof value.email === 'string' ? value.email : undefined;
      const target = afterCode(answer.status === 240 ? next : undefined);
      if (!target || 'roadblock' in target) return response.roadblock('technical');
      updateFlow((s) => ({
        registration: { ...s.registration, nextOption: answer.status === 240 ? next : undefined, email: email ?? s.registration?.email },
      }));
      navigate(target.to);
      return;
    }
    if (outcome.kind === 'message' && errorCodeOf(answer.data) === 'INVALID_ACTIVATION_CODE') {
      restart({ code: '' });
      setFormError(wrongCode(pin, outcome.key, answer.data));
      document.getElementById(fieldId(form.id, 'code'))?.focus();
      return;
    }
    const invalid = fieldKey(answer.data);
    if (outcome.kind === 'message') setFormError(outcomeMessage(outcome));
    else if (outcome.kind === 'returned' && invalid) setFormError(invalid.key);
    else if (outcome.kind === 'returned' || outcome.kind === 'continue') response.roadblock('technical');
  };

  const codeSent = useCallback(() => {
    restart({ code: '' });
    setFormError(null);
  }, [restart, setFormError]);

  return (
    <RegistrationPage
      titleId={TITLE_ID}
      title={title}
      back={<Link href="/registration/validation">{t('registration.back')}</Link>}
      dialog={response.dialog}
    >
      {pin ? (
        <>
          <p>{t('registration.pin.text')}</p>
          <PinLetter title={t('registration.pin.imageTitle')} caption={t('registration.pin.imageText')} />
        </>
      ) : (
        <p><PrivateText id={method === 'SMS' ? 'registration.code.textSms' : 'registration.code.textEmail'} params={{ value: option?.maskedValue ?? '' }} kinds={{ value: method === 'SMS' ? 'phone' : 'email' }} /></p>
      )}
      <Form form={form} onSubmit={submit} aria-labelledby={TITLE_ID}>
        {pin ? <PinField name="code" /> : <SecurityCodeField name="code" />}
        <div className="registration__actions">
          <SubmitButton>{t('registration.next')}</SubmitButton>
        </div>
      </Form>
      {pin ? null : <ResendCode id={id} validationId={validationId} onSent={codeSent} />}
    </RegistrationPage>
  );
}

/** The wrong-code message, with the tries the server says are left (triesLeft) when it says so. */
export function wrongCode(pin: boolean, plain: MessageKey, data: unknown): Message {
  const left = typeof data === 'object' && data !== null ? (data as Record<string, unknown>).triesLeft : undefined;
  if (typeof left !== 'number' || left < 1) return plain;
  if (left === 1) return pin ? 'registration.pin.wrong.one' : 'registration.code.wrong.one';
  return { key: pin ? 'registration.pin.wrong.other' : 'registration.code.wrong.other', params: { count: left } };
}

/**
 * Spec §2.4, §9: resend, with a spinner shown at least a second, at most 3
 * times. The server counts them (the same 3, per option, kept across a
 * reload) and refuses the fourth: 403 EXCEEDED_EMAIL_RESENDS for a code by
 * email (the resend-email roadblock), EXCEEDED_RESENDS for an SMS (the
 * resend-code one); the page asks it rather than counting alone.
 */
function ResendCode({ id, validationId, onSent }: { id: string; validationId: string; onSent: () => void }) {
  const clients = useApiClients();
  const response = useRegistrationResponse();
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState(false);
  const [refused, setRefused] = useState<Message | null>(null);
  const busy = useRef(false);

  const resend = async () => {
    if (busy.current) return;
    busy.current = true;
    setSending(true);
    setSent(false);
    setRefused(null);
    const [result] = await Promise.all([response.send(() => registrationApi(clients).sendCode(id, validationId), 'other'), wait(MIN_SPINNER_MS)]);
    busy.current = false;
    setSending(false);
    if (!result) return;
    const { outcome } = result;
    if (outcome.kind === 'continue') {
      updateFlow((s) => ({ registration: { ...s.registration, resendTwoFactor: (s.registration?.resendTwoFactor ?? 0) + 1 } }));
      setSent(true);
      onSent();
      return;
    }
    if (outcome.kind === 'message') setRefused(outcomeMessage(outcome));
    else if (outcome.kind === 'returned') response.roadblock('technical');
  };

  return (
    <ResendLink texts={RESEND_TEXTS} sending={sending} sent={sent} refused={refused} onResend={() => void resend()}>
      {response.dialog}
    </ResendLink>
  );
}
