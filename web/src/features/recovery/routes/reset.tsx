import { useEffect, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { Redirect } from '@/lib/navigation/shown-location';
import { FormAside } from '@/components/form-aside/form-aside';
import { Form, SubmitButton } from '@/components/form/form';
import { PhoneField, PostalCodeField } from '@/components/form/masked-field';
import { fieldId, useForm } from '@/components/form/use-form';
import { messageText, useT } from '@/i18n/i18n';
import type { Message, MessageKey } from '@/i18n/catalog';
import { useApiClients } from '@/lib/api/use-api';
import { errorCodeOf, outcomeMessage } from '@/lib/flow/error-catalogue';
import { finishReset, readResetProgress, tokenReceived } from '@/lib/flow/reset-state';
import { readFlow, updateFlow } from '@/lib/flow/state';
import { usePageTitle } from '@/lib/page-title';
import { checkPassword } from '@/lib/rules/password';
import { checkPasswordConfirmation } from '@/lib/rules/password-confirmation';
import { checkPhone } from '@/lib/rules/phone';
import { checkPostalCode } from '@/lib/rules/postal-code';
import { pass } from '@/lib/rules/result';
import { useSite } from '@/lib/site/site-context';
import { forgetOnLeaving, postToSso } from '@/lib/flow/sso-form';
import { useOnce } from '@/lib/use-once';
import { recoveryApi, type PasswordRequest } from '@/features/recovery/api';
import { NewPasswordFields } from '@/features/recovery/components/new-password-fields';
import { fieldKey } from '@/features/recovery/field-errors';
import { RESET_ACTION } from '@/features/recovery/limits';
import { useRecoveryResponse } from '@/features/recovery/use-recovery-response';
import '@/features/recovery/recovery.css';

/**
 * What /reset asks (spec §2.3): with a temporary password held (from
 * sign-in), only the new password; otherwise a proof of identity with the
 * reset token, the postal code or, for a UBI driver, the cell phone.
 */
export type ResetVariant =
  | { kind: 'temporary'; id: string; temp: string; email: string }
  | { kind: 'postalCode' | 'phone'; id: string; token: string; email: string };

/** The variant of the flow state, or null when no reset is under way (/reset then redirects to /). */
export function resetVariant(): ResetVariant | null {
  const reset = readFlow().resetPassword;
  if (!reset?.id) return null;
  const email = reset.email ?? reset.emailResetPWD ?? '';
  if (reset.isTempPWD && reset.temp) return { kind: 'temporary', id: reset.id, temp: reset.temp, email };
  const { token, ubiDriver } = readResetProgress();
  if (!token) return null;
  return { kind: ubiDriver ? 'phone' : 'postalCode', id: reset.id, token, email };
}

/**
 * /reset (spec §2.1, §2.3). /reset?token=… (an emailed link) first trades
 * the link's token for a reset token.
 */
export default function ResetRoute() {
  const linkToken = new URLSearchParams(useSearch()).get('token');
  if (linkToken) return <LinkExchange token={linkToken} />;
  return <ResetPage />;
}

function LinkExchange({ token }: { token: string }) {
  const t = useT();
  const clients = useApiClients();
  const { send, roadblock, dialog } = useRecoveryResponse();
  const [, navigate] = useLocation();
  // 429 RATE_LIMITED (or BUSY): the link was not used; it works once the wait is over.
  const [refused, setRefused] = useState<Message | null>(null);
  usePageTitle(t('recovery.reset.checkingLink'));
  // The link works once: the exchange is sent once per page, StrictMode's
  // second effect run included.
  useOnce(() => {
    void (async () => {
      const result = await send(() => recoveryApi(clients).exchangeLink(token), 'reset-link');
      if (!result) return;
      const { answer, outcome } = result;
      if (outcome.kind === 'continue' && answer.value) {
        if (answer.value.action !== RESET_ACTION) {
          navigate('/', { replace: true }); // spec §4.2: any other action goes to /
          return;
        }
        finishReset(); // a link starts a recovery of its own
        tokenReceived(answer.value);
        // The token leaves the address bar (and the history) once used.
        navigate('/reset', { replace: true });
        return;
      }
      if (outcome.kind === 'message' && answer.status === 429) {
        setRefused(outcomeMessage(outcome));
        return;
      }
      if (outcome.kind === 'returned' || outcome.kind === 'continue' || outcome.kind === 'message') roadblock('technical');
    })();
  });

  return (
    <section className="page page--narrow recovery" aria-labelledby="reset-link-title" aria-busy={!refused}>
      <h1 id="reset-link-title">{t('recovery.reset.checkingLink')}</h1>
      <div role="alert" className={refused ? 'form-alert' : undefined}>
        {refused ? <p>{messageText(t, refused)}</p> : null}
      </div>
      {dialog}
    </section>
  );
}

function ResetPage() {
  // Read once: the state is cleared when the password changes, while the
  // page stays on screen until the SSO's answer replaces it.
  const [variant] = useState(resetVariant);
  if (!variant) return <Redirect to="/" replace />;
  return <ResetForm variant={variant} />;
}

const intro: Record<ResetVariant['kind'], MessageKey> = {
  temporary: 'recovery.reset.textTemporary',
  postalCode: 'recovery.reset.text',
  phone: 'recovery.reset.textUbi',
};

/** A field the variant does not show: always valid, never sent. */
const unused = () => pass('');

function ResetForm({ variant }: { variant: ResetVariant }) {
  const t = useT();
  const clients = useApiClients();
  const { brand, language } = useSite();
  const { send, roadblock, dialog } = useRecoveryResponse();
  const [, navigate] = useLocation();
  const [leaving, setLeaving] = useState(false);
  usePageTitle(t('recovery.reset.title'));
  const form = useForm({
    postalCode: { rule: variant.kind === 'postalCode' ? checkPostalCode : unused },
    phone: { rule: variant.kind === 'phone' ? (input: string) => checkPhone(input, true) : unused },
    // Spec §5: no part of the email in the password (unknown after an emailed link: the server checks it).
    password: { rule: (input: string) => checkPassword(input, variant.email) },
    passwordConfirmation: { rule: checkPasswordConfirmation, with: 'password' },
  });

  // Back from the account page, the browser may show this page from its
  // cache: the reset is over, so the visitor goes to the login.
  useEffect(() => {
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) navigate('/', { replace: true });
    };
    window.addEventListener('pageshow', onPageShow);
    return () => window.removeEventListener('pageshow', onPageShow);
  }, [navigate]);

  type Field = 'postalCode' | 'phone' | 'password' | 'passwordConfirmation';
  const showError = (field: Field, key: MessageKey) => {
    form.setError(field, key);
    document.getElementById(fieldId(form.id, field))?.focus();
  };

  const submit = async (values: { postalCode: string; phone: string; password: string }) => {
    const body: PasswordRequest =
      variant.kind === 'temporary'
        ? { password: values.password, tempPassword: variant.temp }
        : variant.kind === 'phone'
          ? { password: values.password, token: variant.token, cellPhone: values.phone }
          : { password: values.password, token: variant.token, postalCode: values.postalCode };
    const result = await send(() => recoveryApi(clients).setPassword(variant.id, body), 'password');
    if (!result) return;
    const { answer, outcome } = result;
    if (outcome.kind === 'continue') {
      const email = answer.value?.email;
      if (!email) return roadblock('technical');
      // An invitation's email token (reset-password-login) was the proof: the server has spent it.
      // Both go with the page, not before the post (forgetOnLeaving).
      forgetOnLeaving(() => {
        finishReset();
        updateFlow({ emailToken: null });
      });
      setLeaving(true);
      postToSso(brand.sso.loginUrl[language], { username: email, password: values.password });
      return;
    }
    const code = errorCodeOf(answer.data);
    const proof = variant.kind === 'temporary' ? null : variant.kind;
    if (code === '1002' && proof) {
      // Spec §8.3 Password set 1002: the postal code or phone is wrong.
      return showError(proof, fieldKey(answer.data, proof) ?? (outcome.kind === 'message' ? outcome.key : 'password.error.securityAnswers'));
    }
    if (code === '2001' || code === '2002') {
      // Spec §8.3: the rule the password breaks when the server names it, else the catalogue's message.
      const fallback: MessageKey = outcome.kind === 'message' ? outcome.key : 'password.error.violation';
      return showError('password', fieldKey(answer.data, 'password') ?? fallback);
    }
    if (code === '3005' && variant.kind === 'temporary') {
      // The temporary password held no longer matches: the login asks for it again.
      finishReset();
      updateFlow({ loginError: true });
      navigate('/');
      return;
    }
    if (outcome.kind === 'returned') {
      // A rule of a field on this page (the server checks them too); anything else is technical.
      const shown: Field[] = proof ? [proof, 'password', 'passwordConfirmation'] : ['password', 'passwordConfirmation'];
      for (const field of shown) {
        const key = fieldKey(answer.data, field);
        if (key) return showError(field, key);
      }
      roadblock('technical');
      return;
    }
    if (outcome.kind === 'message') form.setFormError(outcomeMessage(outcome));
  };

  return (
    <section className="page page--narrow recovery" aria-labelledby="reset-title">
      <h1 id="reset-title">{t('recovery.reset.title')}</h1>
      <p>{t(intro[variant.kind])}</p>
      <Form form={form} onSubmit={submit} aria-labelledby="reset-title">
        {variant.kind === 'postalCode' ? <PostalCodeField name="postalCode" /> : null}
        {variant.kind === 'phone' ? <PhoneField name="phone" label={t('recovery.reset.cellPhone')} /> : null}
        <NewPasswordFields />
        <SubmitButton disabled={leaving}>{t('recovery.reset.submit')}</SubmitButton>
      </Form>
      <FormAside />
      {dialog}
    </section>
  );
}
