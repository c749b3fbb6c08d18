import { Link, useLocation } from 'wouter';
import { EmailTwiceForm, useEmailTwiceForm } from '@/components/form/email-twice';
import { useT } from '@/i18n/i18n';
import { useApiClients } from '@/lib/api/use-api';
import { errorCodeOf, outcomeMessage } from '@/lib/flow/error-catalogue';
import { readFlow, updateFlow, useFlow } from '@/lib/flow/state';
import { optionsOf, registrationApi } from '@/features/registration/api';
import { afterEmail, ATTEMPTS } from '@/features/registration/flow';
import { fieldKey } from '@/features/registration/field-key';
import { useRegistrationResponse } from '@/features/registration/use-registration-response';
import { RegistrationPage } from '@/features/registration/components/registration-page';

const TITLE_ID = 'registration-email-title';

/**
 * /registration/account-creation/email (no email on file: the person gives
 * the one to sign in with) and /new-email (the email on file belongs to
 * another account: another one, with cancel). Both ask the email twice.
 * Spec §4.2 email submission: taken, a message and a count (3: more than one
 * profile); ask-password, password-validation; ask-email-code,
 * validation/email; 202, email-sent.
 */
export function AccountEmail({ mode }: { mode: 'email' | 'new-email' }) {
  const t = useT();
  const clients = useApiClients();
  const { registration } = useFlow();
  const response = useRegistrationResponse();
  const [, navigate] = useLocation();
  const fresh = mode === 'new-email';
  const title = fresh ? t('registration.newEmail.title') : t('registration.email.title');
  const form = useEmailTwiceForm();
  const { setFormError } = form;
  const id = registration?.id ?? '';
  const optionId = registration?.nextOption?.id ?? '';

  const submit = async ({ email }: { email: string; emailConfirmation: string }) => {
    const result = await response.send(() => registrationApi(clients).validate(id, optionId, email), 'registration-email');
    if (!result) return;
    const { answer, outcome } = result;
    if (outcome.kind === 'continue') {
      const value = answer.value;
      const [next] = value && 'twoFactorValidations' in value ? optionsOf(value.twoFactorValidations) : [];
      const target = afterEmail(answer.status, next);
      if (!target || 'roadblock' in target) return response.roadblock('technical');
      updateFlow((s) => ({
        registration: {
          ...s.registration,
          email,
          nextOption: next,
          // A code went to this email: validation/email checks it with this option.
          ...(next?.method === 'ask-email-code' ? { selectedTwoFactor: next.id, resendTwoFactor: 0 } : {}),
        },
      }));
      navigate(target.to);
      return;
    }
    if (outcome.kind === 'message' && answer.status === 404 && errorCodeOf(answer.data) === 'EMAIL_ALREADY_EXISTS') {
      const taken = (readFlow().registration?.emailTaken ?? 0) + 1;
      // The 404 set the roadblocked flag (§8.1); the page stays and counts.
      updateFlow((s) => ({ registration: { ...s.registration, emailTaken: taken } }));
      if (taken >= ATTEMPTS) return response.roadblock('more-than-one-profile');
      setFormError({ key: 'registration.email.taken', params: { email } });
      return;
    }
    const invalid = fieldKey(answer.data);
    // Any other 404 (an unknown registration or option) is no answer this page can show.
    if (answer.status === 404) return response.roadblock('technical');
    if (outcome.kind === 'message') setFormError(outcomeMessage(outcome));
    else if (outcome.kind === 'returned' && invalid) setFormError(invalid.key);
    else if (outcome.kind === 'returned') response.roadblock('technical');
  };

  const cancel = () => {
    navigate('/');
    updateFlow({ registration: null, emailToken: null });
  };

  return (
    <RegistrationPage
      titleId={TITLE_ID}
      title={title}
      back={fresh ? null : <Link href="/">{t('registration.backToLogin')}</Link>}
      dialog={response.dialog}
    >
      <p>{fresh ? t('registration.newEmail.text') : t('registration.email.text')}</p>
      <EmailTwiceForm
        form={form}
        onSubmit={submit}
        aria-labelledby={TITLE_ID}
        confirmationLabel={t('registration.email.confirmation')}
        submit={t('registration.next')}
        actionsClassName="registration__actions"
        secondary={fresh ? { label: t('registration.cancel'), onClick: cancel } : null}
      />
    </RegistrationPage>
  );
}
