import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import type { Message } from '@/i18n/catalog';
import { messageText, useT } from '@/i18n/i18n';
import { useApiClients } from '@/lib/api/use-api';
import { holdTokenNext, tokenApi, tokenNext } from '@/lib/flow/email-token';
import { outcomeMessage } from '@/lib/flow/error-catalogue';
import { updateFlow } from '@/lib/flow/state';
import { usePageTitle } from '@/lib/page-title';
import { useOnce } from '@/lib/use-once';
import { useRegistrationResponse } from '@/features/registration/use-registration-response';

const TITLE_ID = 'registration-link-title';

/** The link's token, source and language, read once from the address it was opened with. */
function readLink(): { token: string; src: string; lang: string } {
  const query = new URLSearchParams(window.location.search);
  return { token: query.get('token') ?? '', src: query.get('src') ?? '', lang: query.get('lang') ?? '' };
}

/**
 * /registration/link?token=…&src=…[&lang=] (spec §4.2 token routing): the
 * entry of an emailed invitation (edoc, BA, mrkt). The token leaves the
 * address bar and the history at once; the flow keeps it (spec §3 email
 * token) while GET tokens/{token}?src=… is read, and the answer's action
 * opens its page: ask-password password-validation, ask-username new-email,
 * default-password-register account-creation/password, reset-password-login
 * /reset, token-expired its roadblock; anything else (an unknown or
 * malformed token, another source's) says the link is not valid, with the
 * way to /.
 */
export function TokenLink() {
  const t = useT();
  const clients = useApiClients();
  const { send, dialog } = useRegistrationResponse();
  const [, navigate] = useLocation();
  const [link] = useState(readLink);
  // 429: too many links read from this address; the link works once the wait is over.
  const [refused, setRefused] = useState<Message | null>(null);
  // A link the server does not know (a wrong source, a token cut short, another brand's) or an action no page answers.
  const [invalid, setInvalid] = useState(false);
  usePageTitle(t('registration.link.title'));
  // Read once per page, StrictMode's second effect run included.
  useOnce(() => {
    const { token, src, lang } = link;
    if (!token) {
      navigate('/', { replace: true });
      return;
    }
    // The token leaves the address bar (and the history entry) before it is used; the language stays.
    navigate(lang ? `/registration/link?lang=${encodeURIComponent(lang)}` : '/registration/link', { replace: true });
    updateFlow({ emailToken: { token, emailSource: src, startDate: '' }, registration: null });
    void (async () => {
      const result = await send(() => tokenApi(clients).read(token, src), 'other');
      if (!result) return; // no answer: the technical roadblock
      const next = tokenNext(result.answer);
      if (next.kind === 'wait') {
        if (result.outcome.kind === 'message') setRefused(outcomeMessage(result.outcome));
        return;
      }
      const to = holdTokenNext(next, token, src);
      // Spec §4.2 sends anything else to /; the visitor is told why first, with the way there.
      if (next.kind === 'home') setInvalid(true);
      else if (to) navigate(to, { replace: true });
      // failure (5xx): the catalogue has opened its roadblock.
    })();
  });

  return (
    <section className="page page--narrow registration" aria-labelledby={TITLE_ID}>
      <h1 id={TITLE_ID}>{t('registration.link.title')}</h1>
      <p role="status">{refused || invalid ? null : t('registration.link.checking')}</p>
      <div role="alert" className={refused || invalid ? 'form-alert' : undefined}>
        {refused ? <p>{messageText(t, refused)}</p> : null}
        {invalid ? <p>{t('registration.link.invalid')}</p> : null}
      </div>
      {invalid ? (
        <p className="registration__links">
          <Link href="/">{t('registration.backToLogin')}</Link>
        </p>
      ) : null}
      {dialog}
    </section>
  );
}
