import { useT } from '@/i18n/i18n';
import { NoticePage } from '@/components/notice-page/notice-page';

/** Spec §2.1 /check-your-inbox: where the token-expired roadblock lands once a new reset link is emailed. */
export default function CheckYourInboxRoute() {
  const t = useT();
  return (
    <NoticePage headingId="check-inbox-title" title={t('checkInbox.title')} text={t('checkInbox.text')} backToLogin={t('checkInbox.backToLogin')} />
  );
}
