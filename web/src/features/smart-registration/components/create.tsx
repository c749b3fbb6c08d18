import { Link } from 'wouter';
import { Form, SubmitButton } from '@/components/form/form';
import { PasswordField } from '@/components/form/password-field';
import { TermsField } from '@/components/form/terms-field';
import { fieldId, useForm } from '@/components/form/use-form';
import { isMessageKey } from '@/i18n/catalog';
import { useT } from '@/i18n/i18n';
import { PrivateText } from '@/i18n/private-text';
import { outcomeMessage } from '@/lib/flow/error-catalogue';
import { readFlow, updateFlow, useFlow } from '@/lib/flow/state';
import { checkPassword } from '@/lib/rules/password';
import { checkPasswordConfirmation } from '@/lib/rules/password-confirmation';
import { checkTerms } from '@/lib/rules/terms';
import { invalidFields } from '@/features/smart-registration/api';
import { holdCredentials } from '@/features/smart-registration/credentials';
import { useSmartSend } from '@/features/smart-registration/use-smart-send';
import { SmartPage } from './smart-page';

/**
 * /create-an-account/account-creation/create (also /create-an-account/create),
 * spec §2.5, §4.1: the password, its confirmation and the terms. 201 is the
 * account: the username (account-info) and the password are held in memory
 * for the confirmation page. 400s by their code (spec §8.2).
 */
export function Create() {
  const t = useT();
  const smart = useSmartSend();
  const { smartRegistration } = useFlow();
  const email = smartRegistration?.email ?? '';
  const form = useForm({
    // The password may not contain the email (spec §5): the rule compares with it.
    email: { initial: email },
    password: { rule: checkPassword, with: 'email' },
    passwordConfirmation: { rule: checkPasswordConfirmation, with: 'password' },
    terms: { rule: checkTerms, initial: false },
  });

  const submit = async ({ password, passwordConfirmation }: { password: string; passwordConfirmation: string }) => {
    const result = await smart.send((api) => api.create(password, passwordConfirmation));
    if (!result) return;
    const { answer, outcome } = result;
    if (outcome.kind === 'continue') {
      const info = await smart.send((api) => api.accountInfo());
      if (info?.outcome.kind !== 'continue') return;
      const username = info.answer.value?.username ?? readFlow().smartRegistration?.email;
      if (!username) return smart.roadblock('technical');
      holdCredentials({ username, password });
      return smart.follow();
    }
    if (outcome.kind === 'message' && outcome.errorCode === 'PASSWORD_POLICY_VIOLATION') {
      form.setError('password', 'errorPasswordContainsEmail');
      document.getElementById(fieldId(form.id, 'password'))?.focus();
      return;
    }
    if (outcome.kind === 'message' && outcome.errorCode === 'EMAIL_ALREADY_EXISTS') {
      // The email was taken meanwhile: the session asks for another (ASK_NEW_USERNAME), whose page says so.
      updateFlow((s) => (s.smartRegistration ? { smartRegistration: { ...s.smartRegistration, taken: email } } : {}));
      return smart.follow();
    }
    if (outcome.kind === 'message') return form.setFormError(outcomeMessage(outcome));
    if (outcome.kind === 'returned' && outcome.errorCode === 'VALIDATION') {
      const invalid = Object.entries(invalidFields(answer.data)).filter(
        (e): e is ['password' | 'passwordConfirmation' | 'terms', string] => ['password', 'passwordConfirmation', 'terms'].includes(e[0]) && isMessageKey(e[1]),
      );
      if (invalid.length === 0) return smart.roadblock('technical');
      for (const [name, key] of invalid) form.setError(name, key as Parameters<typeof form.setError>[1]);
    }
  };

  return (
    <SmartPage title={t('smartRegistration.create.title')} dialog={smart.dialog}>
      <p>{email ? <PrivateText id="smartRegistration.create.text" params={{ email }} kinds={{ email: 'email' }} /> : t('smartRegistration.create.textNoEmail')}</p>
      <Form form={form} onSubmit={submit}>
        {form.formError === 'accountAlreadyExists' ? (
          <p>
            <Link href="/">{t('smartRegistration.identification.signIn')}</Link>
          </p>
        ) : null}
        <PasswordField name="password" autoComplete="new-password" label={t('smartRegistration.create.password')} hint={t('protectAccount.passwordInfo')} />
        <PasswordField name="passwordConfirmation" autoComplete="new-password" label={t('smartRegistration.create.confirmation')} />
        <TermsField name="terms" />
        <div className="smart-registration__actions">
          <SubmitButton>{t('smartRegistration.create.submit')}</SubmitButton>
        </div>
      </Form>
    </SmartPage>
  );
}
