import { useEffect } from 'react';
import { useLocation, useSearch } from 'wouter';
import { useT } from '@/i18n/i18n';
import { websealOutcome } from '@/lib/flow/error-catalogue';
import { roadblockPath } from '@/lib/flow/roadblocks';
import { updateFlow } from '@/lib/flow/state';
import { usePageTitle } from '@/lib/page-title';
import { useSite } from '@/lib/site/site-context';

/**
 * /webseal.do?error=CODE, where the web SSO sends the browser back when a
 * sign-in fails (spec §8.5): back to login (with the login error for the
 * login-error codes), the forgot-password or technical roadblock (flag set),
 * or the other application, the brand's marketing site.
 */
export default function WebsealRoute() {
  const t = useT();
  const search = useSearch();
  const [, navigate] = useLocation();
  const { brand, language } = useSite();
  const otherApplication = brand.links.marketing[language];
  usePageTitle(t('webseal.title'));

  useEffect(() => {
    const outcome = websealOutcome(new URLSearchParams(search).get('error'));
    switch (outcome.kind) {
      case 'login':
        navigate('/', { replace: true });
        break;
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
  }, [search, navigate, otherApplication]);

  return (
    <section className="page page--narrow" aria-labelledby="webseal-title">
      <h1 id="webseal-title">{t('webseal.title')}</h1>
    </section>
  );
}
