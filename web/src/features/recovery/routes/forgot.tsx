import { Link, useLocation } from 'wouter';
import { FormAside } from '@/components/form-aside/form-aside';
import { EmailField } from '@/components/form/email-field';
import { Form, SubmitButton } from '@/components/form/form';
import { useForm } from '@/components/form/use-form';
import { useT } from '@/i18n/i18n';
import { useApiClients } from '@/lib/api/use-api';
import { rememberedEmail } from '@/lib/flow/cookies';
import { outcomeMessage } from '@/lib/flow/error-catalogue';
import { startReset } from '@/lib/flow/reset-state';
import { readFlow } from '@/lib/flow/state';
import { usePageTitle } from '@/lib/page-title';
import { checkEmail } from '@/lib/rules/email';
import { recoveryApi } from '@/features/recovery/api';
import { fieldKey } from '@/features/recovery/field-errors';
import { useRecoveryResponse } from '@/features/recovery/use-recovery-response';
import '@/features/recovery/recovery.css';

/**
 * /forgot (spec §2.1, §2.3): the email of the account. The server answers
 * the same for any well-formed email, so the visitor always moves on to
 * /verify with the request's ids.
 */
export default function ForgotRoute() {
  const t = useT();
  const clients = useApiClients();
  const { send, roadblock, dialog } = useRecoveryResponse();
  const [, navigate] = useLocation();
  usePageTitle(t('recovery.forgot.title'));
  const form = useForm({
    email: { rule: checkEmail, initial: readFlow().resetPassword?.emailResetPWD ?? rememberedEmail() },
  });

  const submit = async ({ email }: { email: string }) => {
    const result = await send(() => recoveryApi(clients).requestReset(email), 'reset-request');
    if (!result) return;
    const started = result.answer.value;
    if (result.outcome.kind === 'continue' && started) {
      startReset({ ...started, email });
      navigate('/verify');
      return;
    }
    const key = fieldKey(result.answer.data, 'email');
    if (result.outcome.kind === 'returned' && key) form.setError('email', key);
    else if (result.outcome.kind === 'message') form.setFormError(outcomeMessage(result.outcome));
    // Anything else the request gives no meaning to (a success without ids, a 404) is technical.
    else if (result.outcome.kind === 'returned' || result.outcome.kind === 'continue') roadblock('technical');
  };

  return (
    <section className="page page--narrow recovery" aria-labelledby="forgot-title">
      <h1 id="forgot-title">{t('recovery.forgot.title')}</h1>
      <p>{t('recovery.forgot.text')}</p>
      <Form form={form} onSubmit={submit} aria-labelledby="forgot-title">
        <EmailField name="email" autoComplete="username" />
        <SubmitButton>{t('recovery.forgot.submit')}</SubmitButton>
      </Form>
      <p className="recovery__links">
        <Link href="/">{t('recovery.backToLogin')}</Link>
      </p>
      <FormAside />
      {dialog}
    </section>
  );
}
