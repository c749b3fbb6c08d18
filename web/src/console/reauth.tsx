import { useState } from 'react';
import { Form, SubmitButton } from '@/components/form/form';
import { TextField } from '@/components/form/text-field';
import { useForm } from '@/components/form/use-form';
import { useT } from '@/i18n/i18n';
import { checkSecurityCode } from '@/lib/rules/security-code';
import { call } from './api';
import { ConfirmDialog, Dialog, DialogActions } from './dialog';
import { errorMessage } from './errors';

/**
 * Asked when an action answers 401 REAUTH_REQUIRED: a fresh code from the
 * authenticator (POST /session/reauth); onDone retries the action.
 */
export function ReauthDialog({ onDone, onCancel }: { onDone: () => void; onCancel: () => void }) {
  const t = useT();
  const form = useForm({ code: { rule: checkSecurityCode } });
  const [done, setDone] = useState(false);
  const submit = async (values: { code: string }) => {
    const answer = await call('post', '/session/reauth', { body: { code: values.code } });
    if (answer.status === 200 || answer.status === 204) {
      setDone(true);
      onDone();
      return;
    }
    form.setFormError(answer.errorCode === 'INVALID_CODE' ? 'console.code.invalid' : errorMessage(answer.errorCode));
  };
  if (done) return null;
  return (
    <Dialog title={t('console.reauth.title')} onClose={onCancel}>
      <p>{t('console.reauth.text')}</p>
      <Form form={form} onSubmit={submit}>
        <TextField name="code" label={t('console.code.code')} autoComplete="one-time-code" inputMode="numeric" maxLength={12} />
        <DialogActions onCancel={onCancel}>
          <SubmitButton>{t('console.reauth.submit')}</SubmitButton>
        </DialogActions>
      </Form>
    </Dialog>
  );
}

/**
 * The re-auth dialog for an action kept while it asks (pending): done, the
 * action is retried; either way the page forgets it (onClear).
 */
export function ReauthRetry<T>({ pending, onClear, retry }: { pending: T; onClear: () => void; retry: (pending: T) => void }) {
  return (
    <ReauthDialog
      onCancel={onClear}
      onDone={() => {
        onClear();
        retry(pending);
      }}
    />
  );
}

/** An action a page waits on the staff member for: a yes first, then a fresh code if the call asked for one. */
export type Pending<T> = { step: 'confirm' | 'reauth'; action: T };

/** Whether a call's answer asks for a fresh code: then its action waits for one (the reauth step). */
export function askedReauth<T>(answer: { errorCode: string }, action: T, setPending: (pending: Pending<T>) => void): boolean {
  if (answer.errorCode !== 'REAUTH_REQUIRED') return false;
  setPending({ step: 'reauth', action });
  return true;
}

/**
 * The dialog of a pending action: its confirmation (title and question of
 * the page; yes runs it), or the re-auth dialog that runs it again. Either
 * way out, onClose forgets it.
 */
export function PendingDialogs<T>({
  pending,
  onClose,
  run,
  title,
  question,
}: {
  pending: Pending<T> | null;
  onClose: () => void;
  run: (action: T) => void;
  title: (action: T) => string;
  question: (action: T) => string;
}) {
  if (!pending) return null;
  const { action } = pending;
  if (pending.step === 'reauth') return <ReauthRetry pending={action} onClear={onClose} retry={run} />;
  return (
    <ConfirmDialog title={title(action)} onConfirm={() => run(action)} onCancel={onClose}>
      <p>{question(action)}</p>
    </ConfirmDialog>
  );
}
