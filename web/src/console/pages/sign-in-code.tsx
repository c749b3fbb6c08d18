import { useState } from 'react';
import { useLocation } from 'wouter';
import { Form, SubmitButton } from '@/components/form/form';
import { TextField } from '@/components/form/text-field';
import { useForm } from '@/components/form/use-form';
import { useT } from '@/i18n/i18n';
import { fail, pass, type RuleResult } from '@/lib/rules/result';
import { checkSecurityCode } from '@/lib/rules/security-code';
import { call, readMe } from '@/console/api';
import { errorMessage } from '@/console/errors';
import { PageHeading } from '@/console/heading';
import { useSession } from '@/console/session';

const TITLE_ID = 'console-code-title';

/** A recovery code: what was typed, without spaces; required. */
export function checkRecoveryCode(input: string): RuleResult {
  const s = input.replace(/\s+/g, '');
  return s === '' ? fail('code', 'errorCodeRequired') : pass(s);
}

/** /sign-in/code: the authenticator's code, or one of the recovery codes. */
export function SignInCodePage() {
  const t = useT();
  const [, navigate] = useLocation();
  const { setMe } = useSession();
  const [recovery, setRecovery] = useState(false);
  const form = useForm({ code: { rule: recovery ? checkRecoveryCode : checkSecurityCode } });
  const submit = async (values: { code: string }) => {
    const answer = await call('post', '/session/totp', { body: recovery ? { recoveryCode: values.code } : { code: values.code } });
    if (answer.status === 200) {
      const me = readMe(answer.data?.staff);
      setMe(me);
      navigate('/');
      return;
    }
    if (answer.errorCode === 'INVALID_CODE') form.setFormError('console.code.invalid');
    else if (answer.errorCode === 'SIGN_IN_REQUIRED' || answer.errorCode === 'INVALID_CREDENTIALS') form.setFormError('console.code.expired');
    else form.setFormError(errorMessage(answer.errorCode));
  };
  const toggle = () => {
    form.restart({ code: '' });
    setRecovery(!recovery);
  };
  return (
    <section className="console-page console-page--narrow" aria-labelledby={TITLE_ID}>
      <PageHeading id={TITLE_ID}>{t('console.code.title')}</PageHeading>
      <p>{recovery ? t('console.code.recoveryText') : t('console.code.text')}</p>
      <Form form={form} onSubmit={submit} aria-labelledby={TITLE_ID}>
        {recovery ? (
          <TextField key="recovery" name="code" label={t('console.code.recovery')} autoComplete="off" autoCapitalize="none" />
        ) : (
          <TextField key="totp" name="code" label={t('console.code.code')} autoComplete="one-time-code" inputMode="numeric" maxLength={12} />
        )}
        <SubmitButton>{t('console.code.submit')}</SubmitButton>
      </Form>
      <p>
        <button type="button" className="console-link" onClick={toggle}>
          {recovery ? t('console.code.useTotp') : t('console.code.useRecovery')}
        </button>
      </p>
    </section>
  );
}
