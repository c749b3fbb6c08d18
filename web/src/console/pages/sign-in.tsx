import { useLocation } from 'wouter';
import { EmailField } from '@/components/form/email-field';
import { Form, SubmitButton } from '@/components/form/form';
import { PasswordField } from '@/components/form/password-field';
import { useForm } from '@/components/form/use-form';
import { useT } from '@/i18n/i18n';
import { checkEmail } from '@/lib/rules/email';
import { checkLoginPassword } from '@/lib/rules/login-password';
import { call } from '@/console/api';
import { PageHeading } from '@/console/heading';
import { useSession } from '@/console/session';
import { errorMessage } from '@/console/errors';

const TITLE_ID = 'console-sign-in-title';

/** /sign-in: email and password; the second factor follows on /sign-in/code. */
export function SignInPage() {
  const t = useT();
  const [, navigate] = useLocation();
  const { ended } = useSession();
  const form = useForm({ email: { rule: checkEmail }, password: { rule: checkLoginPassword } });
  const submit = async (values: { email: string; password: string }) => {
    const answer = await call('post', '/session', { body: { email: values.email, password: values.password } });
    if (answer.status === 200) {
      navigate('/sign-in/code');
      return;
    }
    form.setFormError(answer.errorCode === 'INVALID_CREDENTIALS' ? 'console.signIn.invalid' : errorMessage(answer.errorCode));
  };
  return (
    <section className="console-page console-page--narrow" aria-labelledby={TITLE_ID}>
      <PageHeading id={TITLE_ID}>{t('console.signIn.title')}</PageHeading>
      {ended ? (
        <p role="alert" className="console-error">
          {t('console.error.signInRequired')}
        </p>
      ) : null}
      <Form form={form} onSubmit={submit} aria-labelledby={TITLE_ID}>
        <EmailField name="email" autoComplete="username" />
        <PasswordField name="password" autoComplete="current-password" />
        <SubmitButton>{t('console.signIn.submit')}</SubmitButton>
      </Form>
    </section>
  );
}
