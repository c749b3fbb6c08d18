import { useState } from 'react';
import { Link } from 'wouter';
import { DateOfBirthField } from '@/components/form/date-of-birth-field';
import { Form, SubmitButton } from '@/components/form/form';
import { PostalCodeField } from '@/components/form/masked-field';
import { PasswordField } from '@/components/form/password-field';
import { fieldId, useForm } from '@/components/form/use-form';
import { useT } from '@/i18n/i18n';
import { PrivateText } from '@/i18n/private-text';
import { useApiClients } from '@/lib/api/use-api';
import { errorCodeOf, outcomeMessage } from '@/lib/flow/error-catalogue';
import { readFlow, useFlow } from '@/lib/flow/state';
import { checkDateOfBirth } from '@/lib/rules/date-of-birth';
import { checkLoginPassword } from '@/lib/rules/login-password';
import { checkPostalCode } from '@/lib/rules/postal-code';
import { pass } from '@/lib/rules/result';
import { registrationApi } from '@/features/registration/api';
import { useRegistrationResponse } from '@/features/registration/use-registration-response';
import { useRegisteredSignIn } from '@/features/registration/use-registered-sign-in';
import { RegistrationPage } from '@/features/registration/components/registration-page';

const TITLE_ID = 'registration-password-validation-title';

/** A field the page does not show: always valid, never sent. */
const unused = () => pass('');

/**
 * /registration/password-validation (spec §2.4, §4.2): a UBI driver whose
 * email is already a policyholder's account links the policy to it with
 * that account's password; success deletes the email token and signs in.
 * With an email token held (an invitation's ask-password) it also asks the
 * driver's postal code and date of birth and posts accounts/{id}/authentication.
 */
export function PasswordValidation() {
  const t = useT();
  const clients = useApiClients();
  const { registration } = useFlow();
  const response = useRegistrationResponse();
  const { leaving, finish } = useRegisteredSignIn(response);
  // Read once: signing in clears the token while the page stays until the SSO answers.
  const [token] = useState(() => readFlow().emailToken?.token ?? null);
  const form = useForm({
    password: { rule: checkLoginPassword },
    postalCode: { rule: token ? checkPostalCode : unused },
    dateOfBirth: { rule: token ? (input: string) => checkDateOfBirth(input, new Date()) : unused },
  });
  const id = registration?.id ?? '';
  const email = registration?.nextOption?.maskedValue || registration?.email || '';

  const submit = async ({ password, postalCode, dateOfBirth }: { password: string; postalCode: string; dateOfBirth: string }) => {
    const api = registrationApi(clients);
    const result = await response.send(
      () => (token ? api.authenticateWithToken(id, { password, postalCode, dateOfBirth }) : api.authenticate(id, password)),
      'authentication',
    );
    if (!result) return;
    const { answer, outcome } = result;
    if (outcome.kind === 'continue') {
      // Spec §4.2: success deletes the email token and logs the user in.
      await finish(answer.value?.email, password, token);
      return;
    }
    if (token && errorCodeOf(answer.data) === '1002') {
      // The driver's postal code or date of birth: said on the postal code.
      form.setError('postalCode', 'registration.passwordValidation.wrongAnswers');
      document.getElementById(fieldId(form.id, 'postalCode'))?.focus();
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
    <RegistrationPage
      titleId={TITLE_ID}
      title={t('registration.passwordValidation.title')}
      back={<Link href="/forgot">{t('login.forgot')}</Link>}
      dialog={response.dialog}
    >
      <p><PrivateText id={token ? 'registration.passwordValidation.tokenText' : 'registration.passwordValidation.text'} params={{ email }} kinds={{ email: 'email' }} /></p>
      <Form form={form} onSubmit={submit} aria-labelledby={TITLE_ID}>
        <PasswordField name="password" autoComplete="current-password" />
        {token ? <PostalCodeField name="postalCode" /> : null}
        {token ? <DateOfBirthField name="dateOfBirth" /> : null}
        <div className="registration__actions">
          <SubmitButton disabled={leaving}>{t('registration.passwordValidation.submit')}</SubmitButton>
        </div>
      </Form>
    </RegistrationPage>
  );
}
