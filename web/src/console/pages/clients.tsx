import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';
import type { components } from '@/lib/api/schema';
import { lookup } from '@/lib/lookup';
import { useOnce } from '@/lib/use-once';
import { call } from '@/console/api';
import { ConsoleField } from '@/console/field';
import { ErrorAlert } from '@/console/alert';
import { when } from '@/console/chat/format';
import { errorMessage } from '@/console/errors';
import { PageHeading } from '@/console/heading';
import { BrandField, useServedBrands } from '@/console/period';
import { askedReauth, PendingDialogs, type Pending } from '@/console/reauth';
import { useSession } from '@/console/session';

type Client = components['schemas']['ConsoleClient'];
type NewClient = components['schemas']['ConsoleClientAddRequest'];

/** A refusal's field (the server's JSON name) and its message. */
type Refusal = { field: string; key: MessageKey };

const invalidKeys: Record<string, MessageKey> = {
  brand: 'console.clients.invalid.brand',
  name: 'console.clients.invalid.name',
  type: 'console.clients.invalid.type',
  redirectUris: 'console.clients.invalid.redirectUris',
  backchannelLogoutUri: 'console.clients.invalid.backchannelLogoutUri',
  signingAlg: 'console.clients.invalid.signingAlg',
};

/** The refusal of a failed call: the field the server named, or the page's message for its code. */
export function clientRefusal(errorCode: string, fields: Record<string, string>): Refusal {
  const field = Object.keys(fields)[0] ?? '';
  if (errorCode === 'VALIDATION') return { field, key: lookup(invalidKeys, field) ?? 'console.clients.invalid.client' };
  return { field: '', key: errorMessage(errorCode) };
}

/** The redirect URIs of the text box: one a line, blank lines left out. */
export function redirectLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

type Action = { kind: 'add'; body: NewClient } | { kind: 'disable'; client: Client };

/** What an add answered: the client and, for a confidential one, its secret (kept in this page's state only). */
type Added = { client: Client; secret: string };

/**
 * /clients (admin, issue 30): the OpenID Connect clients of the brands
 * served; register one (a confidential client's secret is shown once, then
 * forgotten), disable one.
 */
export function ClientsPage() {
  const t = useT();
  const id = useId();
  const { language } = useSession();
  const brands = useServedBrands();
  const [clients, setClients] = useState<Client[] | null>(null);
  const [brand, setBrand] = useState(brands[0] ?? '');
  const [name, setName] = useState('');
  const [type, setType] = useState<NewClient['type']>('confidential');
  const [thirdParty, setThirdParty] = useState(false);
  const [redirects, setRedirects] = useState('');
  const [backchannel, setBackchannel] = useState('');
  const [signingAlg, setSigningAlg] = useState<NonNullable<NewClient['signingAlg']>>('ES256');
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [pending, setPending] = useState<Pending<Action> | null>(null);
  const [added, setAdded] = useState<Added | null>(null);

  const load = useCallback(async () => {
    const answer = await call('get', '/clients');
    if (answer.status === 200) setClients(answer.data?.clients ?? []);
    else setRefusal(clientRefusal(answer.errorCode, answer.fields));
  }, []);
  useOnce(() => void load());

  const run = async (action: Action) => {
    setPending(null);
    const answer =
      action.kind === 'add'
        ? await call('post', '/clients', { body: action.body })
        : await call('post', '/clients/{id}/disable', { params: { id: action.client.id } });
    if (askedReauth(answer, action, setPending)) return;
    if (answer.status !== 200) {
      setRefusal(clientRefusal(answer.errorCode, answer.fields));
      return;
    }
    setRefusal(null);
    if (action.kind === 'add' && answer.data && 'client' in answer.data) {
      setAdded({ client: answer.data.client, secret: answer.data.clientSecret ?? '' });
      setName('');
      setRedirects('');
      setBackchannel('');
    }
    void load();
  };

  const add = (event: FormEvent) => {
    event.preventDefault();
    setAdded(null);
    const body: NewClient = { brand, name: name.trim(), type, thirdParty, redirectUris: redirectLines(redirects), signingAlg };
    if (backchannel.trim() !== '') body.backchannelLogoutUri = backchannel.trim();
    if (body.name === '' || body.redirectUris.length === 0) {
      setRefusal({ field: body.name === '' ? 'name' : 'redirectUris', key: 'console.clients.missing' });
      return;
    }
    setPending({ step: 'confirm', action: { kind: 'add', body } });
  };

  const errorId = `${id}-error`;
  /** A field's ARIA: invalid and described by the refusal when it names the field, else described by its hint. */
  const described = (field: string, hint?: string) =>
    refusal?.field === field ? { 'aria-invalid': true, 'aria-describedby': errorId } : hint ? { 'aria-describedby': hint } : {};

  return (
    <section className="console-page" aria-labelledby="console-clients-title">
      <PageHeading id="console-clients-title">{t('console.clients.title')}</PageHeading>
      <p>{t('console.clients.intro')}</p>
      {added ? <AddedClient added={added} onHide={() => setAdded(null)} /> : null}

      <h2 id={`${id}-list`}>{t('console.clients.list')}</h2>
      {clients === null ? (
        <p role="status">{t('console.loading')}</p>
      ) : clients.length === 0 ? (
        <p>{t('console.clients.none')}</p>
      ) : (
        <ul className="console-clients" aria-labelledby={`${id}-list`}>
          {clients.map((c) => (
            <li key={c.id} className="console-client">
              <h3>
                {c.name} <span className="console-badge">{c.brand}</span>{' '}
                {c.disabledAt ? <span className="console-badge console-badge--bad">{t('console.state.disabled')}</span> : null}
              </h3>
              <dl className="console-facts">
                <dt>{t('console.clients.id')}</dt>
                <dd>
                  <code>{c.id}</code>
                </dd>
                <dt>{t('console.clients.type')}</dt>
                <dd>{t(c.type === 'public' ? 'console.clients.kindPublic' : 'console.clients.kindConfidential')}</dd>
                <dt>{t('console.clients.party')}</dt>
                <dd>{t(c.thirdParty ? 'console.clients.partyThird' : 'console.clients.partyFirst')}</dd>
                <dt>{t('console.clients.redirects')}</dt>
                <dd>
                  <ul className="console-clients__uris">
                    {c.redirectUris.map((u) => (
                      <li key={u}>{u}</li>
                    ))}
                  </ul>
                </dd>
                <dt>{t('console.clients.backchannelShort')}</dt>
                <dd>{c.backchannelLogoutUri || t('console.clients.backchannelNone')}</dd>
                <dt>{t('console.clients.signingAlg')}</dt>
                <dd>{c.signingAlg}</dd>
                <dt>{t('console.clients.created')}</dt>
                <dd>{when(c.createdAt, language)}</dd>
                <dt>{t('console.customer.status')}</dt>
                <dd>{c.disabledAt ? `${t('console.state.disabled')} (${when(c.disabledAt, language)})` : t('console.clients.active')}</dd>
              </dl>
              {c.disabledAt ? null : (
                <button type="button" className="console-button console-button--quiet" onClick={() => setPending({ step: 'confirm', action: { kind: 'disable', client: c } })}>
                  {t('console.clients.disable', { name: c.name })}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}

      {/* The form comes with the list, not before it: the list arriving
          pushed a form painted first down the page (issue 32: CLS 0.09 at 320 px). */}
      {clients === null ? null : (
        <>
          <h2 id={`${id}-add`}>{t('console.clients.add')}</h2>
          <form onSubmit={add} aria-labelledby={`${id}-add`} noValidate>
            <BrandField id={id} value={brand} onChange={setBrand} />
            <ConsoleField id={`${id}-name`} label={t('console.clients.name')} hint={t('console.clients.nameHint')}>
              {(hintId) => <input id={`${id}-name`} autoComplete="off" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} {...described('name', hintId)} />}
            </ConsoleField>
            <fieldset className="console-fieldset">
              <legend>{t('console.clients.type')}</legend>
              {(['confidential', 'public'] as const).map((k) => (
                <label key={k}>
                  <input type="radio" name={`${id}-type`} value={k} checked={type === k} onChange={() => setType(k)} />{' '}
                  {t(k === 'public' ? 'console.clients.typePublic' : 'console.clients.typeConfidential')}
                </label>
              ))}
            </fieldset>
            <div className="console-field">
              <label>
                <input type="checkbox" checked={thirdParty} onChange={(e) => setThirdParty(e.target.checked)} /> {t('console.clients.thirdParty')}
              </label>
            </div>
            <ConsoleField id={`${id}-redirects`} label={t('console.clients.redirectUris')} hint={t('console.clients.redirectUrisHint')}>
              {(hintId) => (
                <textarea
                  id={`${id}-redirects`}
                  rows={3}
                  spellCheck={false}
                  autoComplete="off"
                  value={redirects}
                  onChange={(e) => setRedirects(e.target.value)}
                  {...described('redirectUris', hintId)}
                />
              )}
            </ConsoleField>
            <ConsoleField id={`${id}-backchannel`} label={t('console.clients.backchannel')}>
              <input
                id={`${id}-backchannel`}
                type="url"
                autoComplete="off"
                spellCheck={false}
                value={backchannel}
                onChange={(e) => setBackchannel(e.target.value)}
                {...described('backchannelLogoutUri')}
              />
            </ConsoleField>
            <ConsoleField id={`${id}-alg`} label={t('console.clients.signingAlg')} hint={t('console.clients.signingAlgHint')}>
              {(hintId) => (
                <select id={`${id}-alg`} value={signingAlg} onChange={(e) => setSigningAlg(e.target.value === 'RS256' ? 'RS256' : 'ES256')} {...described('signingAlg', hintId)}>
                  <option value="ES256">ES256</option>
                  <option value="RS256">RS256</option>
                </select>
              )}
            </ConsoleField>
            <button type="submit" className="console-button">
              {t('console.clients.add')}
            </button>
          </form>
        </>
      )}
      <ErrorAlert id={errorId} error={refusal?.key ?? null} />
      <PendingDialogs
        pending={pending}
        onClose={() => setPending(null)}
        run={(action) => void run(action)}
        title={(action) => t(action.kind === 'add' ? 'console.clients.add' : 'console.clients.disableTitle')}
        question={(action) =>
          action.kind === 'add'
            ? t('console.clients.confirmAdd', { name: action.body.name, brand: action.body.brand })
            : t('console.clients.confirmDisable', { name: action.client.name, brand: action.client.brand })
        }
      />
    </section>
  );
}

/**
 * The client just registered: its id and, for a confidential client, its
 * secret with a copy button and the warning that it is shown this once.
 * The secret lives in the page's state only: hidden, or the page left, it
 * is gone.
 */
function AddedClient({ added, onHide }: { added: Added; onHide: () => void }) {
  const t = useT();
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const [copied, setCopied] = useState<MessageKey | null>(null);
  useEffect(() => {
    heading.current?.focus();
  }, [added]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(added.secret);
      setCopied('console.clients.copied');
    } catch {
      setCopied('console.clients.copyFailed');
    }
  };
  return (
    <section className="console-done" aria-labelledby={`${id}-added`}>
      <h2 id={`${id}-added`} ref={heading} tabIndex={-1}>
        {t('console.clients.added')}
      </h2>
      <dl className="console-facts">
        <dt>{t('console.clients.name')}</dt>
        <dd>{added.client.name}</dd>
        <dt>{t('console.clients.id')}</dt>
        <dd>
          <code className="console-secret" data-testid="client-id">
            {added.client.id}
          </code>
        </dd>
        {added.secret ? (
          <>
            <dt>{t('console.clients.secret')}</dt>
            <dd>
              <code className="console-secret" data-testid="client-secret">
                {added.secret}
              </code>
            </dd>
          </>
        ) : null}
      </dl>
      {added.secret ? (
        <>
          <p>
            <strong>{t('console.clients.secretWarning')}</strong>
          </p>
          <div className="console-actions">
            <button type="button" className="console-button" onClick={() => void copy()}>
              {t('console.clients.copy')}
            </button>
            <button type="button" className="console-button console-button--quiet" onClick={onHide}>
              {t('console.clients.hideSecret')}
            </button>
          </div>
          <p role="status">{copied ? t(copied) : null}</p>
        </>
      ) : null}
    </section>
  );
}
