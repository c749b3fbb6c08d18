import { useState } from 'react';
import { DateOfBirthField } from '@/components/form/date-of-birth-field';
import { Form, SubmitButton } from '@/components/form/form';
import { PhoneField, PostalCodeField } from '@/components/form/masked-field';
import { PasswordField } from '@/components/form/password-field';
import { TermsField } from '@/components/form/terms-field';
import { fieldId, useForm } from '@/components/form/use-form';
import { useT } from '@/i18n/i18n';
import { PrivateText } from '@/i18n/private-text';
import type { MessageKey } from '@/i18n/catalog';
import { useApiClients } from '@/lib/api/use-api';
import { errorCodeOf, outcomeMessage } from '@/lib/flow/error-catalogue';
import { readFlow, useFlow } from '@/lib/flow/state';
import { checkDateOfBirth } from '@/lib/rules/date-of-birth';
import { checkPassword } from '@/lib/rules/password';
import { checkPasswordConfirmation } from '@/lib/rules/password-confirmation';
import { checkPhone } from '@/lib/rules/phone';
import { checkPostalCode } from '@/lib/rules/postal-code';
import { pass } from '@/lib/rules/result';
import { checkTerms } from '@/lib/rules/terms';
import { registrationApi, type TokenProof } from '@/features/registration/api';
import { fieldKey } from '@/features/registration/field-key';
import { useRegistrationResponse } from '@/features/registration/use-registration-response';
import { useRegisteredSignIn } from '@/features/registration/use-registered-sign-in';
import { RegistrationPage } from '@/features/registration/components/registration-page';

const TITLE_ID = 'registration-password-title';

/**
 * What the token variant asks besides the password (spec §2.4, §3): the
 * cell phone for a UBI driver, else the postal code and the date of birth
 * unless the token was read without src (web SSO). null: no email token,
 * the legacy page.
 */
interface TokenVariant {
  token: string;
  proof: 'postalCode' | 'phone';
  dateOfBirth: boolean;
}

function tokenVariant(): TokenVariant | null {
  const { emailToken, registration } = readFlow();
  if (!emailToken) return null;
  // Spec §3 token flow: cellPhone, or postalCode, or postalCode with dateOfBirth.
  if (registration?.ubiDriver) return { token: emailToken.token, proof: 'phone', dateOfBirth: false };
  return { token: emailToken.token, proof: 'postalCode', dateOfBirth: emailToken.emailSource !== '' };
}

/** Spec §8.3 Create 1002 in the token variant: which answers did not match, on the proof's field. */
function wrongProof(variant: TokenVariant): MessageKey {
  if (variant.proof === 'phone') return 'registration.password.wrongCellPhone';
  return variant.dateOfBirth ? 'registration.password.wrongPostalCode' : 'registration.password.wrongPostalCodeOnly';
}

/** A field the variant does not show: always valid, never sent. */
const unused = () => pass('');

/**
 * /registration/account-creation/password (spec §2.4): the password, its
 * confirmation and the terms. 201 creates the account; the new
 * policyholder is signed in through the SSO form post (email and password)
 * and lands on /my-account. Spec §8.3 Create: 2002 and 2003 are messages,
 * 1003 the login-difficulties roadblock. With an email token held (the
 * token variant) it also asks the proof of identity; 1002 says it did not
 * match, 403 WRONG_CELLPHONE is the 24-hour lock (wrong-cellphone
 * roadblock), and success deletes the token before signing in.
 */
export function AccountPassword() {
  const t = useT();
  const clients = useApiClients();
  const { registration } = useFlow();
  const response = useRegistrationResponse();
  const { leaving, finish } = useRegisteredSignIn(response);
  // Read once: signing in clears the token while the page stays until the SSO answers.
  const [variant] = useState(tokenVariant);
  const email = registration?.email ?? '';
  const form = useForm({
    postalCode: { rule: variant?.proof === 'postalCode' ? checkPostalCode : unused },
    phone: { rule: variant?.proof === 'phone' ? (input: string) => checkPhone(input, true) : unused },
    dateOfBirth: { rule: variant?.dateOfBirth ? (input: string) => checkDateOfBirth(input, new Date()) : unused },
    // The password may not contain the email (spec §5): the rule compares with it.
    email: { initial: email },
    password: { rule: checkPassword, with: 'email' },
    passwordConfirmation: { rule: checkPasswordConfirmation, with: 'password' },
    terms: { rule: checkTerms, initial: false },
  });
  const id = registration?.id ?? '';

  const submit = async (values: { postalCode: string; phone: string; dateOfBirth: string; password: string; passwordConfirmation: string }) => {
    const proof: TokenProof | undefined = variant
      ? {
          ...(variant.proof === 'phone' ? { cellPhone: values.phone } : { postalCode: values.postalCode }),
          ...(variant.dateOfBirth ? { dateOfBirth: values.dateOfBirth } : {}),
        }
      : undefined;
    const result = await response.send(() => registrationApi(clients).create(id, values.password, values.passwordConfirmation, proof), 'create');
    if (!result) return;
    const { answer, outcome } = result;
    if (outcome.kind === 'continue') {
      // Spec §7: the token is deleted after the account is created.
      await finish(answer.value?.email, values.password, variant?.token);
      return;
    }
    if (variant && errorCodeOf(answer.data) === '1002') {
      form.setError(variant.proof, wrongProof(variant));
      document.getElementById(fieldId(form.id, variant.proof))?.focus();
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
    <RegistrationPage titleId={TITLE_ID} title={t('registration.password.title')} dialog={response.dialog}>
      <p>{email ? <PrivateText id="registration.password.text" params={{ email }} kinds={{ email: 'email' }} /> : t('registration.password.textNoEmail')}</p>
      {variant ? <p>{t('registration.password.tokenText')}</p> : null}
      <Form form={form} onSubmit={submit} aria-labelledby={TITLE_ID}>
        {variant?.proof === 'postalCode' ? <PostalCodeField name="postalCode" /> : null}
        {variant?.proof === 'phone' ? <PhoneField name="phone" label={t('registration.password.cellPhone')} /> : null}
        {variant?.dateOfBirth ? <DateOfBirthField name="dateOfBirth" /> : null}
        <PasswordField name="password" autoComplete="new-password" label={t('registration.password.password')} hint={t('protectAccount.passwordInfo')} />
        <PasswordField name="passwordConfirmation" autoComplete="new-password" label={t('registration.password.confirmation')} />
        <TermsField name="terms" />
        <div className="registration__actions">
          <SubmitButton disabled={leaving}>{t('registration.password.submit')}</SubmitButton>
        </div>
      </Form>
    </RegistrationPage>
  );
}
