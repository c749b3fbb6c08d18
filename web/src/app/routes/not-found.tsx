import { Link } from 'wouter';
import { useT } from '@/i18n/i18n';
import { usePageTitle } from '@/lib/page-title';

/** Spec §2.1: page not found, with a button back to login. */
export default function NotFoundRoute() {
  const t = useT();
  usePageTitle(t('notFound.title'));
  return (
    <section className="page page--narrow" aria-labelledby="not-found-title">
      <h1 id="not-found-title">{t('notFound.title')}</h1>
      <p>{t('notFound.text')}</p>
      <Link href="/" className="button button--primary">
        {t('notFound.backToLogin')}
      </Link>
    </section>
  );
}
