import { FormAside } from '@/components/form-aside/form-aside';
import { Link } from 'wouter';
import { Form, SubmitButton } from '@/components/form/form';
import { PasswordField } from '@/components/form/password-field';
import { fieldId, useForm } from '@/components/form/use-form';
import { useT } from '@/i18n/i18n';
import { useApiClients } from '@/lib/api/use-api';
import { outcomeMessage } from '@/lib/flow/error-catalogue';
import { useFlow } from '@/lib/flow/state';
import { usePageTitle } from '@/lib/page-title';
import { checkLoginPassword } from '@/lib/rules/login-password';
import { registrationApi } from '@/features/registration/api';
import { useRegistrationResponse } from '@/features/registration/use-registration-response';
import { useSignIn } from '@/lib/flow/use-sign-in';

const TITLE_ID = 'registration-password-validation-title';

/**
 * /registration/password-validation (spec §2.4, §4.2): a UBI driver whose
 * email is already a policyholder's account links the policy to it with
 * that account's password; success deletes the email token and signs in.
 */
export function PasswordValidation() {
  const t = useT();
  const clients = useApiClients();
  const { registration } = useFlow();
  const response = useRegistrationResponse();
  const { leaving, signIn } = useSignIn();
  usePageTitle(t('registration.passwordValidation.title'));
  const form = useForm({ password: { rule: checkLoginPassword } });
  const id = registration?.id ?? '';
  const email = registration?.nextOption?.maskedValue || registration?.email || '';

  const submit = async ({ password }: { password: string }) => {
    const result = await response.send(() => registrationApi(clients).authenticate(id, password), 'authentication');
    if (!result) return;
    const { answer, outcome } = result;
    if (outcome.kind === 'continue') {
      const username = answer.value?.email;
      if (!username) return response.roadblock('technical');
      // Spec §4.2: success deletes the email token and logs the user in.
      signIn(username, password);
      return;
    }
    if (outcome.kind === 'message') {
      form.setFormError(outcomeMessage(outcome));
      const input = document.getElementById(fieldId(form.id, 'password'));
      if (input instanceof HTMLInputElement) {
        input.focus();
        input.select();
      }
      return;
    }
    if (outcome.kind === 'returned') response.roadblock('technical');
  };

  return (
    <section className="page page--narrow registration" aria-labelledby={TITLE_ID}>
      <h1 id={TITLE_ID}>{t('registration.passwordValidation.title')}</h1>
      <p>{t('registration.passwordValidation.text', { email })}</p>
      <Form form={form} onSubmit={submit} aria-labelledby={TITLE_ID}>
        <PasswordField name="password" autoComplete="current-password" />
        <div className="registration__actions">
          <SubmitButton disabled={leaving}>{t('registration.passwordValidation.submit')}</SubmitButton>
        </div>
      </Form>
      <p className="registration__links">
        <Link href="/forgot">{t('login.forgot')}</Link>
      </p>
      <FormAside />
      {response.dialog}
    </section>
  );
}
