import { useEffect, useRef, useState } from 'react';
import { EmailField } from '@/components/form/email-field';
import { FieldError, Form, SubmitButton, useField } from '@/components/form/form';
import { PasswordField } from '@/components/form/password-field';
import { fieldId, useForm } from '@/components/form/use-form';
import { useT } from '@/i18n/i18n';
import { rememberedEmail, rememberEmail } from '@/lib/flow/cookies';
import { readFlow, updateFlow } from '@/lib/flow/state';
import { checkEmail } from '@/lib/rules/email';
import { checkLoginPassword } from '@/lib/rules/login-password';
import { useLoginFlow } from '@/features/login/use-login-flow';
import { conditionalSupported, passkeysSupported } from '@/lib/webauthn/webauthn';

/**
 * Spec §2.2 login form: email, password and 'remember me'. The remembered
 * email (cookie, 6 months) fills the email and ticks the box; unticking it
 * forgets the email at once. Server answers show in the form's alert region,
 * and after a wrong password the password takes the focus, selected.
 */
export function LoginForm({ titleId }: { titleId: string }) {
  const t = useT();
  const { signIn, signInWithPasskey, leaving, dialog } = useLoginFlow();
  const [passkeys] = useState(passkeysSupported);
  const form = useForm({
    email: { rule: checkEmail, initial: rememberedEmail() },
    password: { rule: checkLoginPassword },
    remember: { initial: rememberedEmail() !== '' },
  });
  const { setFormError } = form;

  // /webseal.do sends the visitor back here with the login error to show once.
  useEffect(() => {
    if (!readFlow().loginError) return;
    updateFlow({ loginError: false });
    setFormError('login.error');
  }, [setFormError]);

  // The browser's autofill offers this site's passkeys on the email field
  // (conditional mediation): the request waits until the visitor picks one.
  const autofill = useRef<AbortController | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    autofill.current = abort;
    void conditionalSupported().then(async (ok) => {
      if (!ok || abort.signal.aborted) return;
      const message = await signInWithPasskey('conditional', abort.signal);
      if (message && !abort.signal.aborted) setFormError(message);
    });
    return () => abort.abort();
  }, [signInWithPasskey, setFormError]);

  const withPasskey = async () => {
    // One request at a time: the button's replaces the autofill's.
    autofill.current?.abort();
    const message = await signInWithPasskey();
    if (message) form.setFormError(message);
  };

  const submit = async (values: { email: string; password: string; remember: boolean }) => {
    rememberEmail(values.remember ? values.email : null);
    const message = await signIn(values.email, values.password);
    if (!message) return;
    form.setFormError(message);
    // Back to the password, selected, so the next try replaces it. (Emptying
    // it would show "Enter your password" as soon as the visitor leaves it.)
    const password = document.getElementById(fieldId(form.id, 'password'));
    if (password instanceof HTMLInputElement) {
      password.focus();
      password.select();
    }
  };

  return (
    <>
      <Form form={form} onSubmit={submit} aria-labelledby={titleId} className="login-form">
        <EmailField name="email" autoComplete="username webauthn" />
        <PasswordField name="password" autoComplete="current-password" />
        <RememberMe />
        <SubmitButton disabled={leaving}>{t('login.submit')}</SubmitButton>
      </Form>
      {passkeys ? (
        <button type="button" className="button button--secondary login-form__passkey" disabled={leaving} onClick={() => void withPasskey()}>
          {t('login.passkey')}
        </button>
      ) : null}
      {dialog}
    </>
  );
}

function RememberMe() {
  const t = useT();
  const field = useField('remember', 'checkbox');
  return (
    <div className="field field--checkbox">
      <input
        id={field.id}
        name="remember"
        type="checkbox"
        className="field__checkbox"
        checked={field.input}
        onChange={(event) => {
          field.setInput(event.target.checked);
          if (!event.target.checked) rememberEmail(null);
        }}
        aria-describedby={field.describedBy(false)}
      />
      <label htmlFor={field.id}>{t('login.rememberMe')}</label>
      <FieldError id={field.errorId} message={field.error} />
    </div>
  );
}
