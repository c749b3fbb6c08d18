import { useEffect, useRef, useState } from 'react';
import { Redirect } from '@/lib/navigation/shown-location';
import { EmailField } from '@/components/form/email-field';
import { Form, SubmitButton } from '@/components/form/form';
import { PhoneField, SecurityCodeField } from '@/components/form/masked-field';
import { fieldId, useForm } from '@/components/form/use-form';
import { isMessageKey, type MessageKey } from '@/i18n/catalog';
import { useT } from '@/i18n/i18n';
import { useApiClients } from '@/lib/api/use-api';
import { rememberedEmail, rememberEmail } from '@/lib/flow/cookies';
import { checkEmail } from '@/lib/rules/email';
import { checkPhone } from '@/lib/rules/phone';
import { checkSecurityCode } from '@/lib/rules/security-code';
import { errorCodeOf, useReauth, type Answer } from '@/features/account/reauth';

type Kind = 'email' | 'phone';

/** A phone number as spec §5 writes it (999-999-9999); an email as it is. */
const shown = (value: string) => (/^\d{10}$/.test(value) ? `${value.slice(0, 3)}-${value.slice(3, 6)}-${value.slice(6)}` : value);

const fieldOf = (data: unknown, field: string): string | undefined => {
  const fields = typeof data === 'object' && data !== null ? (data as { fields?: unknown }).fields : undefined;
  const key = typeof fields === 'object' && fields !== null ? (fields as Record<string, unknown>)[field] : undefined;
  return typeof key === 'string' ? key : undefined;
};

const texts = {
  email: {
    title: 'security.email.title',
    intro: 'security.email.intro',
    label: 'security.email.new',
    submit: 'security.email.submit',
    sent: 'security.email.sent',
    done: 'security.email.done',
  },
  phone: {
    title: 'security.phone.title',
    intro: 'security.phone.intro',
    label: 'security.phone.new',
    submit: 'security.phone.submit',
    sent: 'security.phone.sent',
    done: 'security.phone.done',
  },
} as const satisfies Record<Kind, Record<string, MessageKey>>;

/**
 * My account's email or cell phone change (issue 31): the new address or
 * number, after a fresh proof (useReauth asks inline when the server wants
 * one), then the code sent to it. A new email is also the username: the
 * remembered email of the login page follows it, and `onChanged` tells the
 * page. Texts in the `security` message section.
 */
export function ChangeContact({ kind, current = '', onChanged }: { kind: Kind; current?: string; onChanged?: (value: string) => void }) {
  const t = useT();
  const clients = useApiClients();
  const { run, prompt } = useReauth();
  const [sentTo, setSentTo] = useState('');
  const [status, setStatus] = useState('');
  const [signedOut, setSignedOut] = useState(false);
  const statusRef = useRef<HTMLParagraphElement>(null);
  const k = texts[kind];
  const form = useForm({
    value: { rule: kind === 'email' ? checkEmail : (input: string) => checkPhone(input, true) },
  });
  const codeForm = useForm({ code: { rule: checkSecurityCode } });
  const focusField = (f: { id: string }, name: string) => document.getElementById(fieldId(f.id, name))?.focus();

  // Each step's first field takes the focus: the button pressed is gone.
  const step = useRef(false);
  useEffect(() => {
    if (!step.current) {
      step.current = true;
      return;
    }
    if (sentTo) focusField(codeForm, 'code');
    else focusField(form, 'value');
    // Only when the step changes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sentTo]);

  const refused = (answer: Answer | null, field: () => void) => {
    if (answer?.status === 401) return setSignedOut(true);
    if (answer?.status === 429) return setStatus(t('security.contact.sendLimit'));
    field();
  };

  const start = async (values: { value: string }) => {
    setStatus('');
    const step = sentTo;
    const send = () =>
      kind === 'email'
        ? clients.second.request('post', '/me/email', { body: { email: values.value } })
        : clients.second.request('post', '/me/phone', { body: { phone: values.value } });
    const answer = await run(send).catch(() => null);
    if (answer?.status === 204) {
      setSentTo(values.value);
      codeForm.restart({ code: '' });
      setStatus(t(k.sent, { address: shown(values.value) }));
      if (step) focusField(codeForm, 'code'); // a new code: the step stays
      return;
    }
    if (answer?.status === 403 && errorCodeOf(answer.data) === 'REAUTH_REQUIRED') {
      focusField(form, 'value'); // the proof was cancelled: the form stays as it was
      return;
    }
    refused(answer, () => {
      const code = errorCodeOf(answer?.data);
      const rule = fieldOf(answer?.data, kind);
      const key: MessageKey | null =
        code === 'EMAIL_ALREADY_EXISTS'
          ? 'security.email.taken'
          : code === 'EMAIL_CHANGE_PENDING'
            ? 'security.email.pending'
            : code === 'SAME_EMAIL' || code === 'SAME_PHONE'
              ? 'security.contact.same'
              : rule && isMessageKey(rule)
                ? rule
                : null;
      if (answer && answer.status < 500 && key) {
        form.setError('value', key);
        document.getElementById(fieldId(form.id, 'value'))?.focus();
      } else setStatus(t('security.reauth.failed'));
    });
  };

  const confirm = async (values: { code: string }) => {
    const path = kind === 'email' ? '/me/email/confirm' : '/me/phone/confirm';
    const answer = await clients.second.request('post', path, { body: { code: values.code } }).catch(() => null);
    if (answer?.status === 200) {
      const value = (answer.data as Record<Kind, string>)[kind];
      // The login page's remembered email follows, when it was this account's.
      if (kind === 'email' && current && rememberedEmail().toLowerCase() === current.toLowerCase()) rememberEmail(value);
      setSentTo('');
      form.restart({ value: '' });
      setStatus(t(k.done, { address: shown(value) }));
      onChanged?.(value);
      statusRef.current?.focus();
      return;
    }
    refused(answer, () => {
      const code = errorCodeOf(answer?.data);
      const key: MessageKey =
        code === 'INVALID_ACTIVATION_CODE'
          ? 'security.reauth.codeWrong'
          : code === 'EMAIL_ALREADY_EXISTS'
            ? 'security.email.taken'
            : code === 'EMAIL_CHANGE_PENDING'
              ? 'security.email.pending'
              : 'security.reauth.codeEnded';
      codeForm.setError('code', key);
      document.getElementById(fieldId(codeForm.id, 'code'))?.focus();
    });
  };

  if (signedOut) return <Redirect to="/" replace />;
  const titleId = `change-${kind}-title`;
  return (
    <section className={`change-contact change-${kind}`} aria-labelledby={titleId}>
      <h2 id={titleId}>{t(k.title)}</h2>
      <p>{t(k.intro)}</p>
      {sentTo ? (
        <>
          <Form form={codeForm} onSubmit={confirm} aria-labelledby={titleId}>
            <SecurityCodeField name="code" label={t('security.reauth.code')} />
            <SubmitButton>{t('security.reauth.submit')}</SubmitButton>
          </Form>
          <p className="reauth__actions">
            <button type="button" className="link-button" onClick={() => void start({ value: sentTo })}>
              {t(kind === 'email' ? 'security.reauth.sendAgain' : 'security.phone.sendAgain')}
            </button>
            <button type="button" className="link-button" onClick={() => setSentTo('')}>
              {t(kind === 'email' ? 'security.email.another' : 'security.phone.another')}
            </button>
          </p>
        </>
      ) : (
        <Form form={form} onSubmit={start} aria-labelledby={titleId}>
          {kind === 'email' ? (
            <EmailField name="value" autoComplete="email" label={t(k.label)} />
          ) : (
            <PhoneField name="value" label={t(k.label)} />
          )}
          <SubmitButton>{t(k.submit)}</SubmitButton>
        </Form>
      )}
      {prompt}
      <p role="status" tabIndex={-1} ref={statusRef}>
        {status}
      </p>
    </section>
  );
}
