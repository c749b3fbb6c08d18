import { useRef, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { useT } from '@/i18n/i18n';
import { useApiClients } from '@/lib/api/use-api';
import { usePageTitle } from '@/lib/page-title';
import { inSection } from '@/lib/site/in-section';
import { errorCodeOf } from '@/lib/flow/error-catalogue';
import '@/features/account/account.css';

/**
 * /email-undo?token=: the link the former address of an account receives
 * when its email changes (issue 31). Nothing happens on opening it (mail
 * scanners open links): the button undoes the change, after which the
 * customer chooses a new password from the restored address.
 */
export default inSection('security', EmailUndo);

type State = 'ready' | 'busy' | 'done' | 'invalid' | 'failed';

function EmailUndo() {
  const t = useT();
  const clients = useApiClients();
  const search = useSearch();
  // Read once: the address bar loses it after use (the reset page does the same).
  const [token] = useState(() => new URLSearchParams(search).get('token') ?? '');
  const [, navigate] = useLocation();
  const [state, setState] = useState<State>(token ? 'ready' : 'invalid');
  const statusRef = useRef<HTMLParagraphElement>(null);
  usePageTitle(t('security.undo.title'));

  const undo = async () => {
    setState('busy');
    const answer = await clients.second.request('post', '/email-undo', { body: { token } }).catch(() => null);
    if (answer?.status === 204) setState('done');
    else if (answer && (errorCodeOf(answer.data) === 'UNDO_INVALID' || answer.status === 400)) setState('invalid');
    else return setState('failed'); // the link stays, to try again
    navigate('/email-undo', { replace: true });
    statusRef.current?.focus();
  };

  const message = {
    ready: '',
    busy: '',
    done: t('security.undo.done'),
    invalid: t(token ? 'security.undo.invalid' : 'security.undo.missing'),
    failed: t('security.undo.failed'),
  }[state];
  return (
    <section className="page page--narrow email-undo" aria-labelledby="email-undo-title">
      <h1 id="email-undo-title">{t('security.undo.title')}</h1>
      {state === 'ready' || state === 'busy' || state === 'failed' ? (
        <>
          <p>{t('security.undo.intro')}</p>
          <button
            type="button"
            className="button button--primary"
            disabled={state === 'busy'}
            aria-busy={state === 'busy'}
            onClick={() => void undo()}
          >
            {t('security.undo.submit')}
          </button>
        </>
      ) : null}
      <p role="status" tabIndex={-1} ref={statusRef}>
        {message}
      </p>
      {state === 'done' ? (
        <Link href="/forgot" className="button button--primary">
          {t('security.undo.forgot')}
        </Link>
      ) : null}
      {state === 'invalid' ? <Link href="/">{t('security.undo.login')}</Link> : null}
    </section>
  );
}
