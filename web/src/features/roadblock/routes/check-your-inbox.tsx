import { Link } from 'wouter';
import { useT } from '@/i18n/i18n';
import { usePageTitle } from '@/lib/page-title';

/** Spec §2.1 /check-your-inbox: where the token-expired roadblock lands once a new reset link is emailed. */
export default function CheckYourInboxRoute() {
  const t = useT();
  usePageTitle(t('checkInbox.title'));
  return (
    <section className="page page--narrow" aria-labelledby="check-inbox-title">
      <h1 id="check-inbox-title">{t('checkInbox.title')}</h1>
      <p>{t('checkInbox.text')}</p>
      <Link href="/" className="button button--primary">
        {t('checkInbox.backToLogin')}
      </Link>
    </section>
  );
}
