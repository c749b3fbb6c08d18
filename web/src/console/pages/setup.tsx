import { useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { Form, SubmitButton } from '@/components/form/form';
import { PasswordField } from '@/components/form/password-field';
import { TextField } from '@/components/form/text-field';
import { fieldId, useForm } from '@/components/form/use-form';
import { isMessageKey } from '@/i18n/catalog';
import { useT } from '@/i18n/i18n';
import { checkPassword } from '@/lib/rules/password';
import { checkPasswordConfirmation } from '@/lib/rules/password-confirmation';
import { checkSecurityCode } from '@/lib/rules/security-code';
import { call, readMe } from '@/console/api';
import { errorMessage } from '@/console/errors';
import { PageHeading } from '@/console/heading';
import type { components } from '@/lib/api/schema';
import { QrCode } from '@/console/qr-code';
import { useSession } from '@/console/session';

const TITLE_ID = 'console-setup-title';

type SetupLink = components['schemas']['StaffSetup'];

/** The set-up token: the fragment of the link (/setup#token), never sent to a server by the browser. */
function tokenOf(hash: string): string {
  return decodeURIComponent(hash.replace(/^#/, ''));
}

/** The secret in groups of four, easier to type into an app. */
export function groupSecret(secret: string): string {
  return secret.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');
}

type State = { kind: 'loading' } | { kind: 'invalid' } | { kind: 'form'; link: SetupLink } | { kind: 'codes'; codes: string[] };

/**
 * /setup#token: the one-time link of `guichet staff add`. The QR code of the
 * otpauth URI and the secret as text, then a password, its confirmation and
 * the app's first code; the answer's recovery codes are shown once.
 */
export function SetupPage() {
  const t = useT();
  const [token] = useState(() => tokenOf(window.location.hash));
  const [state, setState] = useState<State>({ kind: 'loading' });
  useEffect(() => {
    if (token === '') {
      setState({ kind: 'invalid' });
      return;
    }
    let live = true;
    void call('get', '/setup/{token}', { params: { token } }).then((answer) => {
      if (!live) return;
      setState(answer.status === 200 && answer.data ? { kind: 'form', link: answer.data } : { kind: 'invalid' });
    });
    return () => {
      live = false;
    };
  }, [token]);
  if (state.kind === 'loading') return <p role="status">{t('console.loading')}</p>;
  if (state.kind === 'invalid')
    return (
      <section className="console-page console-page--narrow" aria-labelledby={TITLE_ID}>
        <PageHeading id={TITLE_ID}>{t('console.setup.title')}</PageHeading>
        <p>{t('console.setup.invalidLink')}</p>
      </section>
    );
  if (state.kind === 'codes') return <RecoveryCodes codes={state.codes} />;
  return <SetupForm token={token} link={state.link} onDone={(codes) => setState({ kind: 'codes', codes })} />;
}

function SetupForm({ token, link, onDone }: { token: string; link: SetupLink; onDone: (codes: string[]) => void }) {
  const t = useT();
  const { setMe } = useSession();
  const form = useForm({
    email: { initial: link.email },
    password: { rule: checkPassword, with: 'email' },
    passwordConfirmation: { rule: checkPasswordConfirmation, with: 'password' },
    code: { rule: checkSecurityCode },
  });
  const submit = async (values: { password: string; code: string }) => {
    const answer = await call('post', '/setup/{token}', {
      params: { token },
      body: { password: values.password, code: values.code },
    });
    if (answer.status === 200) {
      // Signed in by the answer; the recovery codes are shown before the console.
      setMe(readMe(answer.data?.staff));
      onDone(answer.data?.recoveryCodes ?? []);
      return;
    }
    const passwordKey = answer.fields.password;
    if (passwordKey && isMessageKey(passwordKey)) {
      form.setError('password', passwordKey);
      document.getElementById(fieldId(form.id, 'password'))?.focus();
      return;
    }
    if (answer.errorCode === 'INVALID_CODE') {
      form.setError('code', 'console.code.invalid');
      document.getElementById(fieldId(form.id, 'code'))?.focus();
    } else if (answer.status === 404) form.setFormError('console.setup.invalidLink');
    else form.setFormError(errorMessage(answer.errorCode));
  };
  return (
    <section className="console-page console-page--narrow" aria-labelledby={TITLE_ID}>
      <PageHeading id={TITLE_ID}>{t('console.setup.title')}</PageHeading>
      <p>{t('console.setup.intro', { name: link.name, email: link.email })}</p>
      <h2>{t('console.setup.appTitle')}</h2>
      <p>{t('console.setup.scan')}</p>
      <QrCode value={link.otpauthUri} label={t('console.setup.qrLabel')} />
      <p>
        {t('console.setup.secret')} <code className="console-secret" data-testid="setup-secret">{groupSecret(link.secret)}</code>
      </p>
      <h2>{t('console.setup.passwordTitle')}</h2>
      <Form form={form} onSubmit={submit} aria-labelledby={TITLE_ID}>
        <PasswordField name="password" autoComplete="new-password" hint={t('protectAccount.passwordInfo')} />
        <PasswordField name="passwordConfirmation" autoComplete="new-password" label={t('console.setup.confirmation')} />
        <TextField name="code" label={t('console.setup.code')} autoComplete="one-time-code" inputMode="numeric" maxLength={12} />
        <SubmitButton>{t('console.setup.submit')}</SubmitButton>
      </Form>
    </section>
  );
}

function RecoveryCodes({ codes }: { codes: string[] }) {
  const t = useT();
  const [, navigate] = useLocation();
  return (
    <section className="console-page console-page--narrow" aria-labelledby="console-codes-title">
      <PageHeading id="console-codes-title">{t('console.setup.codesTitle')}</PageHeading>
      <p>{t('console.setup.codesText')}</p>
      <ol className="console-codes" aria-label={t('console.setup.codesTitle')}>
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <button type="button" className="console-button" onClick={() => navigate('/')}>
        {t('console.setup.continue')}
      </button>
    </section>
  );
}
