import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { Redirect } from '@/lib/navigation/shown-location';
import { Form, SubmitButton } from '@/components/form/form';
import { SecurityCodeField } from '@/components/form/masked-field';
import { PasswordField } from '@/components/form/password-field';
import { fieldId, useForm } from '@/components/form/use-form';
import type { MessageKey } from '@/i18n/catalog';
import { useT } from '@/i18n/i18n';
import { useApiClients } from '@/lib/api/use-api';
import { checkLoginPassword } from '@/lib/rules/login-password';
import { checkSecurityCode } from '@/lib/rules/security-code';
import { getPasskey, passkeysSupported } from '@/lib/webauthn/webauthn';

/** An API answer as the second client gives it. */
export type Answer = { status: number; data: unknown };

export const errorCodeOf = (data: unknown) =>
  typeof data === 'object' && data !== null ? (data as { errorCode?: unknown }).errorCode : undefined;

/** The answer of a security change whose session's last proof is too old. */
export const needsReauth = (a: Answer) => a.status === 403 && errorCodeOf(a.data) === 'REAUTH_REQUIRED';

/**
 * Re-authentication (issue 31): a security change on My account runs its
 * call through `run`; when the server answers 403 REAUTH_REQUIRED (the
 * session's last proof is older than 10 minutes), `prompt` asks inline for
 * the password or a code emailed to the account's address, then the call
 * is made again. Cancelling gives back the 403 answer. Render `prompt`
 * where the change's form is; texts are in the `security` message section.
 */
export function useReauth(): { run: (call: () => Promise<Answer>) => Promise<Answer>; prompt: ReactNode } {
  const [pending, setPending] = useState<((proved: boolean) => void) | null>(null);
  // What had the focus when the change began (its button, a field): once the
  // prompt is gone, the focus goes back there (issue 32) instead of falling
  // to <body> with the prompt's « Confirm » button.
  const returnTo = useRef<Element | null>(null);
  const run = useCallback(async (call: () => Promise<Answer>) => {
    const from = document.activeElement;
    const answer = await call();
    if (!needsReauth(answer)) return answer;
    returnTo.current = from;
    const proved = await new Promise<boolean>((resolve) => {
      // A proof given in another change's prompt on the page counts here too.
      const elsewhere = () => resolve(true);
      proofListeners.add(elsewhere);
      setPending(() => (ok: boolean) => {
        proofListeners.delete(elsewhere);
        resolve(ok);
      });
    });
    setPending(null);
    return proved ? call() : answer;
  }, []);
  // After each render of the change's component: the element the change
  // began on takes the focus back once the prompt is gone and it can have it
  // again (a button stays disabled until its change's answer), unless the
  // change's outcome has put the focus somewhere already.
  useLayoutEffect(() => {
    const el = returnTo.current;
    if (pending || !el) return;
    if (!el.isConnected || el === document.body) {
      returnTo.current = null;
      return;
    }
    if ((el as HTMLButtonElement).disabled) return;
    returnTo.current = null;
    if (document.activeElement === null || document.activeElement === document.body) (el as HTMLElement).focus();
  });
  return { run, prompt: pending ? <ReauthPrompt onDone={pending} /> : null };
}

/** The prompts waiting on this page: one proof answers them all. */
const proofListeners = new Set<() => void>();

/** Proves who the customer is, by password or by an emailed code. */
export function ReauthPrompt({ onDone }: { onDone: (proved: boolean) => void }) {
  const t = useT();
  const clients = useApiClients();
  const heading = useRef<HTMLHeadingElement>(null);
  const titleId = `reauth-${useId().replace(/[^A-Za-z0-9_-]/g, '')}`;
  const [byCode, setByCode] = useState(false);
  const [status, setStatus] = useState('');
  const [signedOut, setSignedOut] = useState(false);
  const form = useForm({
    password: { rule: (input: string) => (byCode ? { ok: true, value: input } : checkLoginPassword(input)) },
    code: { rule: (input: string) => (byCode ? checkSecurityCode(input) : { ok: true, value: input }) },
  });

  useEffect(() => heading.current?.focus(), []);

  const showError = (field: 'password' | 'code', key: MessageKey) => {
    form.setError(field, key);
    document.getElementById(fieldId(form.id, field))?.focus();
  };

  const sendCode = async () => {
    const answer = await clients.second.request('post', '/me/reauth/code').catch(() => null);
    if (answer?.status === 401) return setSignedOut(true);
    if (answer?.status === 204) {
      setByCode(true);
      form.restart({ password: '', code: '' });
      setStatus(t('security.reauth.codeSent'));
      return;
    }
    setStatus(t(answer?.status === 429 ? 'security.reauth.sendLimit' : 'security.reauth.failed'));
  };

  // A passkey of this account is a proof too (internal/passkey).
  const byPasskey = async () => {
    const begun = await clients.second.request('post', '/me/reauth/passkey').catch(() => null);
    if (begun?.status === 401) return setSignedOut(true);
    const ceremony = begun?.data as { challengeId?: string; options?: unknown } | undefined;
    if (begun?.status !== 200 || !ceremony?.challengeId) {
      return setStatus(t(begun?.status === 404 ? 'security.passkeys.none' : 'security.reauth.failed'));
    }
    let credential;
    try {
      credential = await getPasskey(ceremony.options);
    } catch {
      return setStatus(t('security.passkeys.cancelled'));
    }
    const body = { challengeId: ceremony.challengeId, credential };
    const done = await clients.second.request('post', '/me/reauth/passkey/finish', { body }).catch(() => null);
    if (done?.status === 200) return onDone(true);
    setStatus(t('security.reauth.failed'));
  };

  const submit = async (values: { password: string; code: string }) => {
    const body = byCode ? { code: values.code } : { password: values.password };
    const answer = await clients.second.request('post', '/me/reauth', { body }).catch(() => null);
    if (answer === null) return form.setFormError('security.reauth.failed');
    if (answer.status === 200) {
      form.restart({ password: '', code: '' });
      for (const listener of [...proofListeners]) listener();
      proofListeners.clear();
      return onDone(true);
    }
    if (answer.status === 401) return setSignedOut(true);
    if (answer.status === 429) return form.setFormError('security.password.tooMany');
    switch (errorCodeOf(answer.data)) {
      case 'WRONG_CURRENT_PASSWORD':
        return showError('password', 'security.password.currentWrong');
      case 'INVALID_ACTIVATION_CODE':
        return showError('code', 'security.reauth.codeWrong');
      case 'EXCEEDED_RETRIES_CODE_ACTIVATION':
      case 'CODE_EXPIRED':
        return showError('code', 'security.reauth.codeEnded');
    }
    form.setFormError('security.reauth.failed');
  };

  if (signedOut) return <Redirect to="/" replace />;
  return (
    <section className="reauth" aria-labelledby={titleId}>
      <h3 id={titleId} tabIndex={-1} ref={heading}>
        {t('security.reauth.title')}
      </h3>
      <p>{t(byCode ? 'security.reauth.introCode' : 'security.reauth.intro')}</p>
      <Form form={form} onSubmit={submit} aria-labelledby={titleId}>
        {byCode ? (
          <SecurityCodeField name="code" label={t('security.reauth.code')} />
        ) : (
          <PasswordField name="password" autoComplete="current-password" label={t('security.password.current')} />
        )}
        <SubmitButton>{t('security.reauth.submit')}</SubmitButton>
      </Form>
      <p className="reauth__actions">
        {passkeysSupported() ? (
          <button type="button" className="link-button" onClick={() => void byPasskey()}>
            {t('security.reauth.usePasskey')}
          </button>
        ) : null}
        <button type="button" className="link-button" onClick={() => void sendCode()}>
          {t(byCode ? 'security.reauth.sendAgain' : 'security.reauth.sendCode')}
        </button>
        <button type="button" className="link-button" onClick={() => onDone(false)}>
          {t('security.reauth.cancel')}
        </button>
      </p>
      <p role="status">{status}</p>
    </section>
  );
}
