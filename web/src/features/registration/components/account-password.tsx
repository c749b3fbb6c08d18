import { FormAside } from '@/components/form-aside/form-aside';
import { Form, SubmitButton } from '@/components/form/form';
import { PasswordField } from '@/components/form/password-field';
import { TermsField } from '@/components/form/terms-field';
import { fieldId, useForm } from '@/components/form/use-form';
import { useT } from '@/i18n/i18n';
import { useApiClients } from '@/lib/api/use-api';
import { outcomeMessage } from '@/lib/flow/error-catalogue';
import { useFlow } from '@/lib/flow/state';
import { usePageTitle } from '@/lib/page-title';
import { checkPassword } from '@/lib/rules/password';
import { checkPasswordConfirmation } from '@/lib/rules/password-confirmation';
import { checkTerms } from '@/lib/rules/terms';
import { registrationApi } from '@/features/registration/api';
import { fieldKey } from '@/features/registration/field-key';
import { useRegistrationResponse } from '@/features/registration/use-registration-response';
import { useSignIn } from '@/lib/flow/use-sign-in';

const TITLE_ID = 'registration-password-title';

/**
 * /registration/account-creation/password (spec §2.4): the password, its
 * confirmation and the terms. 201 creates the account; the new
 * policyholder is signed in through the SSO form post (email and password)
 * and lands on /my-account. Spec §8.3 Create: 2002 and 2003 are messages,
 * 1003 the login-difficulties roadblock.
 */
export function AccountPassword() {
  const t = useT();
  const clients = useApiClients();
  const { registration } = useFlow();
  const response = useRegistrationResponse();
  const { leaving, signIn } = useSignIn();
  usePageTitle(t('registration.password.title'));
  const email = registration?.email ?? '';
  const form = useForm({
    // The password may not contain the email (spec §5): the rule compares with it.
    email: { initial: email },
    password: { rule: checkPassword, with: 'email' },
    passwordConfirmation: { rule: checkPasswordConfirmation, with: 'password' },
    terms: { rule: checkTerms, initial: false },
  });
  const id = registration?.id ?? '';

  const submit = async (values: { password: string; passwordConfirmation: string }) => {
    const result = await response.send(() => registrationApi(clients).create(id, values.password, values.passwordConfirmation), 'create');
    if (!result) return;
    const { answer, outcome } = result;
    if (outcome.kind === 'continue') {
      const username = answer.value?.email;
      if (!username) return response.roadblock('technical');
      signIn(username, values.password);
      return;
    }
    if (outcome.kind === 'message' && (outcome.errorCode === '2002' || outcome.errorCode === '2003')) {
      // Spec §8.3 Create: the password's content or a character: the password field says so.
      form.setError('password', fieldKey(answer.data)?.key ?? outcome.key);
      document.getElementById(fieldId(form.id, 'password'))?.focus();
      return;
    }
    if (outcome.kind === 'message') form.setFormError(outcomeMessage(outcome));
    else if (outcome.kind === 'returned' && fieldKey(answer.data)) form.setFormError(fieldKey(answer.data)?.key ?? null);
    else if (outcome.kind === 'returned') response.roadblock('technical');
  };

  return (
    <section className="page page--narrow registration" aria-labelledby={TITLE_ID}>
      <h1 id={TITLE_ID}>{t('registration.password.title')}</h1>
      <p>{email ? t('registration.password.text', { email }) : t('registration.password.textNoEmail')}</p>
      <Form form={form} onSubmit={submit} aria-labelledby={TITLE_ID}>
        <PasswordField name="password" autoComplete="new-password" label={t('registration.password.password')} hint={t('protectAccount.passwordInfo')} />
        <PasswordField name="passwordConfirmation" autoComplete="new-password" label={t('registration.password.confirmation')} />
        <TermsField name="terms" />
        <div className="registration__actions">
          <SubmitButton disabled={leaving}>{t('registration.password.submit')}</SubmitButton>
        </div>
      </Form>
      <FormAside />
      {response.dialog}
    </section>
  );
}
