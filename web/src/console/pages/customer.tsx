import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Link } from 'wouter';
import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';
import type { components } from '@/lib/api/schema';
import { call, type Answer } from '@/console/api';
import { Dialog, DialogActions } from '@/console/dialog';
import { ErrorAlert } from '@/console/alert';
import { errorMessage } from '@/console/errors';
import { PageHeading } from '@/console/heading';
import { ReauthDialog } from '@/console/reauth';
import { StateBadges, StatusText } from './search';
import { Table } from '@/console/table';

export type CustomerAccount = components['schemas']['ConsoleCustomerDetail'];

/** The invitation sources of spec §9 (emailtoken.Sources). */
const SOURCES = ['edoc', 'BA', 'mrkt'] as const;

export type ActionName = 'unlock' | 'disable' | 'enable' | 'temporaryPassword' | 'resetEmail' | 'invitation' | 'removePasskeys';

/**
 * An action's messages: console.action.<name> its button, console.confirm.<name>
 * its question, console.done.<name> what happened (the temporary password: it was emailed).
 */
const messagesOf = (name: ActionName): { label: MessageKey; confirm: MessageKey; done: MessageKey } => ({
  label: `console.action.${name}`,
  confirm: `console.confirm.${name}`,
  done: name === 'temporaryPassword' ? 'console.done.temporaryPasswordEmail' : `console.done.${name}`,
});

/** The actions that apply to an account in its state. */
export function actionsFor(account: CustomerAccount): ActionName[] {
  const list: ActionName[] = [];
  if (account.locked) list.push('unlock');
  list.push(account.disabled ? 'enable' : 'disable');
  if (!account.disabled) list.push('temporaryPassword', 'resetEmail');
  list.push('invitation');
  if ((account.passkeys ?? 0) > 0) list.push('removePasskeys');
  return list;
}

function when(iso: string | undefined | null, language: string): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(language === 'fr' ? 'fr-CA' : 'en-CA');
}

type Outcome = { kind: 'done'; key: MessageKey; password?: string } | { kind: 'error'; key: MessageKey } | null;

/** /customers/:id: the account, its policies and audit, and the actions (each confirmed in a dialog). */
export function CustomerPage({ id }: { id: string }) {
  const t = useT();
  const language = document.documentElement.lang;
  const [answer, setAnswer] = useState<Answer<CustomerAccount> | null>(null);
  const [action, setAction] = useState<ActionName | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const statusRef = useRef<HTMLDivElement>(null);
  const load = useCallback(async () => {
    setAnswer(await call('get', '/customers/{id}', { params: { id } }));
  }, [id]);
  useEffect(() => {
    void load();
  }, [load]);
  // What happened takes the focus as the dialog goes, before the account is
  // read again: the action's own button may go with that reading (Unlock
  // once unlocked, Disable becoming Enable), and the focus with it, while
  // the agent already acts on the page (issue 32: never <body>).
  useEffect(() => {
    if (outcome?.kind === 'done') statusRef.current?.focus();
  }, [outcome]);
  if (!answer) return <p role="status">{t('console.loading')}</p>;
  if (answer.status !== 200 || !answer.data) {
    const key: MessageKey = answer.status === 404 ? 'console.customer.notFound' : errorMessage(answer.errorCode);
    return (
      <section className="console-page" aria-labelledby="console-customer-title">
        <PageHeading id="console-customer-title">{t('console.customer.title')}</PageHeading>
        <p className="console-error" role="alert">
          {t(key)}
        </p>
        <p>
          <Link href="/">{t('console.customer.back')}</Link>
        </p>
      </section>
    );
  }
  const account = answer.data;
  const policies = account.policies ?? [];
  const audit = account.events ?? [];
  const signIns = account.lastSignIns ?? [];
  const registrations = account.openRegistrations ?? [];
  return (
    <section className="console-page" aria-labelledby="console-customer-title">
      <p>
        <Link href="/">{t('console.customer.back')}</Link>
      </p>
      <PageHeading id="console-customer-title">{account.name || account.email}</PageHeading>
      <dl className="console-facts">
        <dt>{t('console.customer.email')}</dt>
        <dd>{account.email}</dd>
        <dt>{t('console.customer.brand')}</dt>
        <dd>{account.brand}</dd>
        <dt>{t('console.customer.status')}</dt>
        <dd>
          <StatusText status={account.status} /> <StateBadges locked={Boolean(account.locked)} disabled={Boolean(account.disabled)} />
        </dd>
        <dt>{t('console.customer.language')}</dt>
        <dd>{account.language === 'fr' ? 'Français' : 'English'}</dd>
        {account.phone ? (
          <>
            <dt>{t('console.customer.phone')}</dt>
            <dd>{account.phone}</dd>
          </>
        ) : null}
        <dt>{t('console.customer.failedAttempts')}</dt>
        <dd>{account.failedAttempts ?? 0}</dd>
        <dt>{t('console.customer.passkeys')}</dt>
        <dd>{account.passkeys ?? 0}</dd>
        {account.lockedUntil ? (
          <>
            <dt>{t('console.customer.lockedUntil')}</dt>
            <dd>{when(account.lockedUntil, language)}</dd>
          </>
        ) : null}
        {account.deletionAt ? (
          <>
            <dt>{t('console.customer.deletion')}</dt>
            <dd>
              <span className="console-badge console-badge--bad">{t('console.customer.deletionPending', { date: when(account.deletionAt, language) })}</span>
            </dd>
          </>
        ) : null}
      </dl>

      <h2 id="console-actions-title">{t('console.action.heading')}</h2>
      <div className="console-actions" role="group" aria-labelledby="console-actions-title">
        {actionsFor(account).map((name) => (
          <button key={name} type="button" className="console-button" onClick={() => setAction(name)}>
            {t(messagesOf(name).label)}
          </button>
        ))}
      </div>
      <div role="status" ref={statusRef} tabIndex={-1} className={outcome?.kind === 'done' ? 'console-done' : undefined}>
        {outcome?.kind === 'done' ? (
          <p>
            {t(outcome.key)}
            {outcome.password ? (
              <>
                {' '}
                <code className="console-secret" data-testid="temporary-password">
                  {outcome.password}
                </code>
              </>
            ) : null}
          </p>
        ) : null}
      </div>
      <ErrorAlert error={outcome?.kind === 'error' ? outcome.key : null} />
      {action ? (
        <ActionDialog
          id={id}
          account={account}
          action={action}
          onClose={() => setAction(null)}
          onOutcome={(result) => {
            setAction(null);
            setOutcome(result);
            // The account as it is now (the status has the focus meanwhile).
            if (result?.kind === 'done') void load();
          }}
        />
      ) : null}

      <h2>{t('console.customer.policies')}</h2>
      {policies.length === 0 ? (
        <p>{t('console.customer.none')}</p>
      ) : (
        <Table
          rows={policies}
          rowKey={(p) => p.number}
          columns={[
            { label: t('console.customer.policyNumber'), cell: (p) => p.number },
            { label: t('console.customer.policyKind'), cell: (p) => p.kind ?? '' },
            { label: t('console.customer.policyRole'), cell: (p) => p.role ?? '' },
          ]}
        />
      )}

      <h2>{t('console.customer.signIns')}</h2>
      {signIns.length === 0 ? (
        <p>{t('console.customer.none')}</p>
      ) : (
        <ul>
          {signIns.map((at, i) => (
            <li key={i}>{when(at, language)}</li>
          ))}
        </ul>
      )}

      <h2>{t('console.customer.registrations')}</h2>
      {registrations.length === 0 ? (
        <p>{t('console.customer.none')}</p>
      ) : (
        <ul>
          {registrations.map((r) => (
            <li key={r.id}>{t('console.customer.registration', { created: when(r.createdAt, language), expires: when(r.expiresAt, language) })}</li>
          ))}
        </ul>
      )}

      <h2>{t('console.customer.audit')}</h2>
      {audit.length === 0 ? (
        <p>{t('console.customer.none')}</p>
      ) : (
        <Table
          rows={audit}
          rowKey={(_, i) => i}
          columns={[
            { label: t('console.customer.auditAt'), cell: (row) => when(row.at, language) },
            {
              label: t('console.customer.auditEvent'),
              cell: (row) => (
                <>
                  {row.event}
                  {row.detail ? <span className="console-detail"> {row.detail}</span> : null}
                </>
              ),
            },
            { label: t('console.customer.auditOutcome'), cell: (row) => row.outcome },
            { label: t('console.customer.auditActor'), cell: (row) => row.actor },
          ]}
        />
      )}
    </section>
  );
}

/** The confirmation of one action; on REAUTH_REQUIRED the re-auth dialog, then the action again. */
function ActionDialog({
  id,
  account,
  action,
  onClose,
  onOutcome,
}: {
  id: string;
  account: CustomerAccount;
  action: ActionName;
  onClose: () => void;
  onOutcome: (outcome: Outcome) => void;
}) {
  const t = useT();
  const fieldIds = useId();
  const spec = messagesOf(action);
  const [delivery, setDelivery] = useState<'show' | 'email'>('show');
  const [policyNumber, setPolicyNumber] = useState(account.policies[0]?.number ?? '');
  const [source, setSource] = useState<(typeof SOURCES)[number]>('edoc');
  const [fieldError, setFieldError] = useState<MessageKey | null>(null);
  const [reauth, setReauth] = useState(false);
  const [busy, setBusy] = useState(false);

  /** The action's call, and the temporary password its answer shows (delivery show). */
  const send = async (): Promise<{ answer: Answer<unknown>; password: string }> => {
    const params = { id };
    switch (action) {
      case 'unlock':
        return { answer: await call('post', '/customers/{id}/unlock', { params }), password: '' };
      case 'disable':
        return { answer: await call('post', '/customers/{id}/disable', { params }), password: '' };
      case 'enable':
        return { answer: await call('post', '/customers/{id}/enable', { params }), password: '' };
      case 'resetEmail':
        return { answer: await call('post', '/customers/{id}/reset-email', { params }), password: '' };
      case 'removePasskeys':
        return { answer: await call('post', '/customers/{id}/passkeys/remove', { params }), password: '' };
      case 'invitation':
        return {
          answer: await call('post', '/customers/{id}/invitation', { params, body: { policyNumber: policyNumber.trim(), source } }),
          password: '',
        };
      case 'temporaryPassword': {
        const answer = await call('post', '/customers/{id}/temporary-password', { params, body: { delivery } });
        return { answer, password: answer.data?.temporaryPassword ?? '' };
      }
    }
  };
  const run = async () => {
    if (action === 'invitation') {
      // The brand's format is the server's to check (400): here only that there is one.
      if (policyNumber.trim() === '') {
        setFieldError('errorPolicyNumberRequired');
        document.getElementById(`${fieldIds}-policy`)?.focus();
        return;
      }
    }
    setBusy(true);
    const { answer, password } = await send();
    setBusy(false);
    if (answer.status === 200 || answer.status === 204) {
      if (action === 'temporaryPassword' && delivery === 'show')
        onOutcome({ kind: 'done', key: 'console.done.temporaryPasswordShow', password });
      else onOutcome({ kind: 'done', key: spec.done });
      return;
    }
    if (answer.errorCode === 'REAUTH_REQUIRED') {
      setReauth(true);
      return;
    }
    if (action === 'invitation' && answer.status === 400) {
      setFieldError('console.invitation.invalid');
      return;
    }
    if (action === 'invitation' && (answer.errorCode === 'POLICY_NUMBER_NOT_FOUND' || answer.errorCode === 'POLICY_INACTIVE')) {
      setFieldError(errorMessage(answer.errorCode));
      return;
    }
    onOutcome({ kind: 'error', key: errorMessage(answer.errorCode) });
  };

  if (reauth)
    return (
      <ReauthDialog
        onCancel={onClose}
        onDone={() => {
          setReauth(false);
          void run();
        }}
      />
    );
  return (
    <Dialog title={t(spec.label)} onClose={onClose}>
      <p>{t(spec.confirm, { email: account.email })}</p>
      {action === 'temporaryPassword' ? (
        <fieldset className="console-fieldset">
          <legend>{t('console.temporary.delivery')}</legend>
          <label>
            <input type="radio" name="delivery" value="show" checked={delivery === 'show'} onChange={() => setDelivery('show')} />{' '}
            {t('console.temporary.show')}
          </label>
          <label>
            <input type="radio" name="delivery" value="email" checked={delivery === 'email'} onChange={() => setDelivery('email')} />{' '}
            {t('console.temporary.email')}
          </label>
        </fieldset>
      ) : null}
      {action === 'invitation' ? (
        <div className="console-field">
          <label htmlFor={`${fieldIds}-policy`}>{t('console.invitation.policyNumber')}</label>
          <input
            id={`${fieldIds}-policy`}
            value={policyNumber}
            onChange={(e) => setPolicyNumber(e.target.value)}
            autoComplete="off"
            aria-invalid={fieldError ? true : undefined}
            aria-describedby={`${fieldIds}-policy-error`}
          />
          <p id={`${fieldIds}-policy-error`} className="console-field__error">
            {fieldError ? t(fieldError) : null}
          </p>
          <label htmlFor={`${fieldIds}-source`}>{t('console.invitation.source')}</label>
          <select id={`${fieldIds}-source`} value={source} onChange={(e) => setSource(e.target.value as (typeof SOURCES)[number])}>
            {SOURCES.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <DialogActions onCancel={onClose}>
        <button type="button" className="console-button" onClick={() => void run()} disabled={busy} aria-busy={busy || undefined}>
          {t('console.confirm.yes')}
        </button>
      </DialogActions>
    </Dialog>
  );
}
