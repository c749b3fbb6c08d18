import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';
import type { components } from '@/lib/api/schema';
import { call, type Role } from '@/console/api';
import { errorMessage } from '@/console/errors';
import { PageHeading } from '@/console/heading';
import { askedReauth, PendingDialogs, type Pending } from '@/console/reauth';
import { useSession } from '@/console/session';
import { ALL_BRANDS } from '@/console/period';
import { Table } from '@/console/table';
import { ErrorAlert } from '@/console/alert';

type Member = components['schemas']['ConsoleStaffMember'];

const roleKey = { agent: 'console.role.agent', supervisor: 'console.role.supervisor', admin: 'console.role.admin' } as const;

function staffError(code: string): MessageKey {
  if (code === 'STAFF_EXISTS') return 'console.staff.exists';
  if (code === 'STAFF_SELF') return 'console.staff.self';
  if (code === 'VALIDATION') return 'console.staff.invalid';
  return errorMessage(code);
}

type Action = { kind: 'add' } | { kind: 'disable'; member: Member };

/** /staff (admin): the staff members; add one (the set-up link is shown once), disable one. */
export function StaffPage() {
  const t = useT();
  const id = useId();
  const { me } = useSession();
  const [members, setMembers] = useState<Member[] | null>(null);
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('agent');
  const [brands, setBrands] = useState<string[]>([]);
  const [link, setLink] = useState('');
  const [error, setError] = useState<MessageKey | null>(null);
  const [pending, setPending] = useState<Pending<Action> | null>(null);

  const load = useCallback(async () => {
    const answer = await call('get', '/staff');
    if (answer.status === 200) setMembers(answer.data?.staff ?? []);
    else setError(errorMessage(answer.errorCode));
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const run = async (action: Action) => {
    setPending(null);
    const answer =
      action.kind === 'add'
        ? await call('post', '/staff', { body: { email: email.trim(), name: name.trim(), role, brands } })
        : await call('post', '/staff/{id}/disable', { params: { id: action.member.id } });
    if (askedReauth(answer, action, setPending)) return;
    if (answer.status !== 200) {
      setError(staffError(answer.errorCode));
      return;
    }
    setError(null);
    if (action.kind === 'add') {
      setLink((answer.data as { setupLink?: string } | null)?.setupLink ?? '');
      setEmail('');
      setName('');
    }
    void load();
  };

  const add = (event: FormEvent) => {
    event.preventDefault();
    if (email.trim() === '' || name.trim() === '') {
      setError('console.staff.invalid');
      return;
    }
    setLink('');
    setPending({ step: 'confirm', action: { kind: 'add' } });
  };

  return (
    <section className="console-page" aria-labelledby="console-staff-title">
      <PageHeading id="console-staff-title">{t('console.staff.title')}</PageHeading>
      {members ? (
        <Table
          caption={t('console.staff.title')}
          rows={members}
          rowKey={(m) => m.id}
          columns={[
            { label: t('console.customer.name'), cell: (m) => m.name },
            { label: t('console.customer.email'), cell: (m) => m.email },
            { label: t('console.staff.role'), cell: (m) => t(roleKey[m.role]) },
            { label: t('console.staff.brands'), cell: (m) => (m.brands.length === 0 ? t('console.staff.allBrands') : m.brands.join(', ')) },
            {
              label: t('console.customer.status'),
              cell: (m) => (m.disabled ? t('console.state.disabled') : m.enrolled ? t('console.staff.enrolled') : t('console.staff.pending')),
            },
            {
              label: t('console.action.heading'),
              cell: (m) =>
                !m.disabled && m.id !== me?.id ? (
                  <button type="button" className="console-button console-button--quiet" onClick={() => setPending({ step: 'confirm', action: { kind: 'disable', member: m } })}>
                    {t('console.staff.disable', { email: m.email })}
                  </button>
                ) : null,
            },
          ]}
        />
      ) : (
        <p role="status">{t('console.loading')}</p>
      )}

      <h2 id={`${id}-add`}>{t('console.staff.add')}</h2>
      <form onSubmit={add} aria-labelledby={`${id}-add`} noValidate>
        <div className="console-field">
          <label htmlFor={`${id}-email`}>{t('console.customer.email')}</label>
          <input id={`${id}-email`} type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
        </div>
        <div className="console-field">
          <label htmlFor={`${id}-name`}>{t('console.customer.name')}</label>
          <input id={`${id}-name`} autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="console-field">
          <label htmlFor={`${id}-role`}>{t('console.staff.role')}</label>
          <select id={`${id}-role`} value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {(['agent', 'supervisor', 'admin'] as const).map((r) => (
              <option key={r} value={r}>
                {t(roleKey[r])}
              </option>
            ))}
          </select>
        </div>
        <fieldset className="console-fieldset">
          <legend>{t('console.staff.brandsLegend')}</legend>
          {ALL_BRANDS.map((b) => (
            <label key={b}>
              <input
                type="checkbox"
                checked={brands.includes(b)}
                onChange={(e) => setBrands(e.target.checked ? [...brands, b] : brands.filter((x) => x !== b))}
              />{' '}
              {b}
            </label>
          ))}
        </fieldset>
        <button type="submit" className="console-button">
          {t('console.staff.add')}
        </button>
      </form>
      <ErrorAlert error={error} />
      <div role="status" className={link ? 'console-done' : undefined}>
        {link ? (
          <p>
            {t('console.staff.link')} <code className="console-secret" data-testid="setup-link">{link}</code>
          </p>
        ) : null}
      </div>
      <PendingDialogs
        pending={pending}
        onClose={() => setPending(null)}
        run={(action) => void run(action)}
        title={(action) => (action.kind === 'add' ? t('console.staff.add') : t('console.staff.disableTitle'))}
        question={(action) =>
          action.kind === 'add'
            ? t('console.staff.confirmAdd', { email: email.trim(), role: t(roleKey[role]) })
            : t('console.staff.confirmDisable', { email: action.member.email })
        }
      />
    </section>
  );
}
