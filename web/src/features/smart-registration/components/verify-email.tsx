import { useEffect, useState } from 'react';
import { EmailTwiceForm, useEmailTwiceForm } from '@/components/form/email-twice';
import type { Message } from '@/i18n/catalog';
import { messageText, useT } from '@/i18n/i18n';
import { PrivateText } from '@/i18n/private-text';
import { outcomeMessage } from '@/lib/flow/error-catalogue';
import { updateFlow, useFlow } from '@/lib/flow/state';
import { decodeSession } from '@/features/smart-registration/session';
import { useSmartSend, type SmartSend } from '@/features/smart-registration/use-smart-send';
import { SmartPage } from './smart-page';

/**
 * /create-an-account/verify/email, the choose-username screen (spec §2.5):
 * CONFIRM_USERNAME offers the email on file (confirm it, or choose
 * another); ASK_NEW_USERNAME asks for one. A code goes to an email before
 * it becomes the username (the code page), unless it already went there.
 */
export function VerifyEmail() {
  const t = useT();
  const smart = useSmartSend();
  const { smartRegistration } = useFlow();
  const onFile = decodeSession(smartRegistration?.token)?.step === 'CONFIRM_USERNAME' ? smartRegistration?.email : undefined;
  const [choosing, setChoosing] = useState(!onFile);
  const [taken, setTaken] = useState(smartRegistration?.taken);
  return (
    <SmartPage title={t('smartRegistration.email.title')} dialog={smart.dialog}>
      {onFile && !choosing ? (
        <ConfirmEmail
          email={onFile}
          smart={smart}
          onChooseAnother={(email) => {
            setTaken(email);
            setChoosing(true);
          }}
        />
      ) : (
        <ChooseEmail smart={smart} taken={taken} onCancel={onFile ? () => setChoosing(false) : undefined} />
      )}
    </SmartPage>
  );
}

/** The email on file: kept (a code goes to it unless the first one did), or another chosen (taken: it was found used meanwhile). */
function ConfirmEmail({ email, smart, onChooseAnother }: { email: string; smart: SmartSend; onChooseAnother: (taken?: string) => void }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Message | null>(null);
  const confirm = async () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    const result = await smart.send((api) => api.confirmEmail());
    setBusy(false);
    if (!result) return;
    const { outcome } = result;
    if (outcome.kind === 'continue') {
      // A code goes to it when the first one went elsewhere: the code page says where.
      const option = { id: '', optionName: 'EMAIL' as const, data: result.answer.value?.email ?? email };
      updateFlow((s) => (s.smartRegistration ? { smartRegistration: { ...s.smartRegistration, option, resends: 0 } } : {}));
      return smart.follow();
    }
    // Spec §8.2 EMAIL_ALREADY_EXISTS: another account took it meanwhile; the session asks for another.
    if (outcome.kind === 'message' && outcome.errorCode === 'EMAIL_ALREADY_EXISTS') return onChooseAnother(email);
    if (outcome.kind === 'message') setError(outcomeMessage(outcome));
    else if (outcome.kind === 'returned') smart.roadblock('technical');
  };
  return (
    <>
      <div role="alert" className={error ? 'form-alert' : undefined}>
        {error ? <p>{messageText(t, error)}</p> : null}
      </div>
      <p><PrivateText id="smartRegistration.email.confirmText" params={{ email }} kinds={{ email: 'email' }} /></p>
      <div className="smart-registration__actions">
        <button type="button" className="button button--primary" disabled={busy} aria-busy={busy || undefined} onClick={() => void confirm()}>
          {t('smartRegistration.email.useThis')}
        </button>
        <button type="button" className="button button--secondary" onClick={() => onChooseAnother()}>
          {t('smartRegistration.email.chooseAnother')}
        </button>
      </div>
    </>
  );
}

/**
 * Another email: a code goes to it (the code page); one already used says
 * so and another may be typed. Past a verified code the server has no step
 * to go back to: Back returns to the email on file, when there is one.
 */
function ChooseEmail({ smart, taken, onCancel }: { smart: SmartSend; taken: string | undefined; onCancel: (() => void) | undefined }) {
  const t = useT();
  const form = useEmailTwiceForm();
  const { setFormError } = form;
  useEffect(() => {
    if (taken) setFormError({ key: 'smartRegistration.email.taken', params: { email: taken } });
  }, [taken, setFormError]);
  const submit = async ({ email }: { email: string }) => {
    const result = await smart.send((api) => api.chooseUsername(email));
    if (!result) return;
    const { outcome } = result;
    if (outcome.kind === 'continue') {
      const option = { id: '', optionName: 'EMAIL' as const, data: result.answer.value?.email ?? email };
      updateFlow((s) => (s.smartRegistration ? { smartRegistration: { ...s.smartRegistration, email, option, resends: 0, taken: undefined } } : {}));
      return smart.follow();
    }
    // Spec §8.2 EMAIL_ALREADY_EXISTS: said with the address; another may be typed (the session is unchanged).
    if (outcome.kind === 'message' && outcome.errorCode === 'EMAIL_ALREADY_EXISTS') {
      return form.setFormError({ key: 'smartRegistration.email.taken', params: { email } });
    }
    if (outcome.kind === 'message') form.setFormError(outcomeMessage(outcome));
    else if (outcome.kind === 'returned') smart.roadblock('technical');
  };
  return (
    <>
      <p>{t('smartRegistration.email.chooseText')}</p>
      <EmailTwiceForm
        form={form}
        onSubmit={submit}
        confirmationLabel={t('smartRegistration.email.confirmation')}
        submit={t('smartRegistration.next')}
        actionsClassName="smart-registration__actions"
        secondary={onCancel ? { label: t('smartRegistration.back'), onClick: onCancel } : null}
      />
    </>
  );
}
