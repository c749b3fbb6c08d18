import { useEffect } from 'react';
import { useLocation, useSearch } from 'wouter';
import { useT } from '@/i18n/i18n';
import { useApiClients, type ApiClients } from '@/lib/api/use-api';
import { holdTokenNext, tokenApi, tokenNext } from '@/lib/flow/email-token';
import { websealOutcome } from '@/lib/flow/error-catalogue';
import { roadblockPath } from '@/lib/flow/roadblocks';
import { readFlow, updateFlow } from '@/lib/flow/state';
import { usePageTitle } from '@/lib/page-title';
import { useSite } from '@/lib/site/site-context';

/**
 * /webseal.do?error=CODE, where the web SSO sends the browser back when a
 * sign-in fails (spec §8.5): back to login (with the login error for the
 * login-error codes), the forgot-password or technical roadblock (flag set),
 * or the other application, the brand's marketing site. 0x00000000 with an
 * email token held reads it again without src (spec §7): an action other
 * than token-expired opens its page, anything else drops the token for the login.
 */
export default function WebsealRoute() {
  const t = useT();
  const search = useSearch();
  const [, navigate] = useLocation();
  const { brand, language } = useSite();
  const clients = useApiClients();
  const otherApplication = brand.links.marketing[language];
  usePageTitle(t('webseal.title'));

  useEffect(() => {
    const outcome = websealOutcome(new URLSearchParams(search).get('error'));
    switch (outcome.kind) {
      case 'login': {
        const held = readFlow().emailToken;
        if (!held) navigate('/', { replace: true });
        else void routeToken(clients, held.token).then((to) => navigate(to, { replace: true }));
        break;
      }
      case 'login-error':
        updateFlow({ loginError: true });
        navigate('/', { replace: true });
        break;
      case 'roadblock':
        updateFlow({ roadblocked: true, errorCode: null });
        navigate(roadblockPath(outcome.page), { replace: true });
        break;
      case 'other-application':
        window.location.replace(otherApplication);
        break;
    }
  }, [search, navigate, otherApplication, clients]);

  return (
    <section className="page page--narrow" aria-labelledby="webseal-title">
      <h1 id="webseal-title">{t('webseal.title')}</h1>
    </section>
  );
}

/**
 * Spec §7 GET tokens/{token} for the web SSO's 0x00000000: the page of the
 * token's action (read without src: the password page asks no date of
 * birth), or / with the token dropped (token-expired, 404, any failure).
 */
async function routeToken(clients: ApiClients, token: string): Promise<string> {
  const answer = await tokenApi(clients)
    .read(token, '')
    .catch(() => null);
  const next = answer ? tokenNext(answer) : null;
  if (next && (next.kind === 'registration' || next.kind === 'reset')) return holdTokenNext(next, token, '') ?? '/';
  updateFlow({ emailToken: null });
  return '/';
}
