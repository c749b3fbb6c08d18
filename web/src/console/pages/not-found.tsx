import { Link } from 'wouter';
import { useT } from '@/i18n/i18n';
import { PageHeading } from '@/console/heading';

export function NotFoundPage() {
  const t = useT();
  return (
    <section className="console-page" aria-labelledby="console-not-found-title">
      <PageHeading id="console-not-found-title">{t('console.notFound.title')}</PageHeading>
      <p>
        <Link href="/">{t('console.customer.back')}</Link>
      </p>
    </section>
  );
}
