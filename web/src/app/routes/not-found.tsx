import { useT } from '@/i18n/i18n';
import { NoticePage } from '@/components/notice-page/notice-page';

/** Spec §2.1: page not found, with a button back to login. */
export default function NotFoundRoute() {
  const t = useT();
  return <NoticePage headingId="not-found-title" title={t('notFound.title')} text={t('notFound.text')} backToLogin={t('notFound.backToLogin')} />;
}
