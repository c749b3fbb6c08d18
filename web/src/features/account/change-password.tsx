import { useState } from 'react';
import { Redirect } from '@/lib/navigation/shown-location';
import { Form, SubmitButton } from '@/components/form/form';
import { PasswordField } from '@/components/form/password-field';
import { fieldId, useForm } from '@/components/form/use-form';
import type { MessageKey } from '@/i18n/catalog';
import { useT } from '@/i18n/i18n';
import { useApiClients } from '@/lib/api/use-api';
import { checkLoginPassword } from '@/lib/rules/login-password';
import { checkPassword } from '@/lib/rules/password';
import { checkPasswordConfirmation } from '@/lib/rules/password-confirmation';
import { isMessageKey } from '@/i18n/catalog';
import { inSection } from '@/lib/site/in-section';

/**
 * My account's password change (issue 31): the current password, then the
 * new one twice under spec §5's rules (and not holding the email). The
 * server checks the current one as a sign-in does; this device stays signed
 * in and every other one is signed out.
 */
export const ChangePassword = inSection('security', PasswordChangeForm);

type Answer = { status: number; data: unknown };

const fieldOf = (data: unknown, field: string): string | undefined => {
  if (typeof data !== 'object' || data === null) return undefined;
  const fields = (data as { fields?: unknown }).fields;
  if (typeof fields !== 'object' || fields === null) return undefined;
  const key = (fields as Record<string, unknown>)[field];
  return typeof key === 'string' ? key : undefined;
};
const codeOf = (data: unknown) => (typeof data === 'object' && data !== null ? (data as { errorCode?: unknown }).errorCode : undefined);

function PasswordChangeForm({ email }: { email: string }) {
  const t = useT();
  const clients = useApiClients();
  const [done, setDone] = useState(false);
  const [signedOut, setSignedOut] = useState(false);
  const form = useForm({
    currentPassword: { rule: checkLoginPassword },
    password: { rule: (input: string) => checkPassword(input, email) },
    passwordConfirmation: { rule: checkPasswordConfirmation, with: 'password' },
  });

  const showError = (field: 'currentPassword' | 'password', key: MessageKey) => {
    form.setError(field, key);
    document.getElementById(fieldId(form.id, field))?.focus();
  };

  const submit = async (values: { currentPassword: string; password: string }) => {
    setDone(false);
    let answer: Answer;
    try {
      answer = await clients.second.request('post', '/me/password', {
        body: { currentPassword: values.currentPassword, newPassword: values.password },
      });
    } catch {
      form.setFormError('security.password.failed');
      return;
    }
    if (answer.status === 204) {
      setDone(true);
      form.restart({ currentPassword: '', password: '', passwordConfirmation: '' }); // nothing of it stays on screen
      return;
    }
    if (answer.status === 401) return setSignedOut(true);
    if (answer.status === 429) return form.setFormError('security.password.tooMany');
    if (codeOf(answer.data) === 'WRONG_CURRENT_PASSWORD') return showError('currentPassword', 'security.password.currentWrong');
    const rule = fieldOf(answer.data, 'password');
    if (answer.status === 400 && rule && isMessageKey(rule)) return showError('password', rule);
    form.setFormError('security.password.failed');
  };

  if (signedOut) return <Redirect to="/" replace />;
  return (
    <section className="change-password" aria-labelledby="change-password-title">
      <h2 id="change-password-title">{t('security.password.title')}</h2>
      <p>{t('security.password.intro')}</p>
      <Form form={form} onSubmit={submit} aria-labelledby="change-password-title">
        <PasswordField name="currentPassword" autoComplete="current-password" label={t('security.password.current')} />
        <PasswordField name="password" autoComplete="new-password" label={t('security.password.new')} hint={t('protectAccount.passwordInfo')} />
        <PasswordField name="passwordConfirmation" autoComplete="new-password" label={t('security.password.confirm')} />
        <SubmitButton>{t('security.password.submit')}</SubmitButton>
      </Form>
      <p role="status">{done ? t('security.password.done') : ''}</p>
    </section>
  );
}
