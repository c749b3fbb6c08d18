import { Link } from 'wouter';
import { useT } from '@/i18n/i18n';
import { PrivateText } from '@/i18n/private-text';
import { useFlow } from '@/lib/flow/state';
import { usePageTitle } from '@/lib/page-title';

const TITLE_ID = 'registration-email-sent-title';

/** /registration/email-sent (spec §2.4, §4.2 202): a confirmation link went to the email given. */
export function EmailSent() {
  const t = useT();
  const { registration } = useFlow();
  usePageTitle(t('registration.emailSent.title'));
  const email = registration?.email ?? '';
  return (
    <section className="page page--narrow registration" aria-labelledby={TITLE_ID}>
      <h1 id={TITLE_ID}>{t('registration.emailSent.title')}</h1>
      <p>{email ? <PrivateText id="registration.emailSent.text" params={{ email }} kinds={{ email: 'email' }} /> : t('registration.emailSent.textNoEmail')}</p>
      <p>{t('registration.emailSent.expiry')}</p>
      <p className="registration__links">
        <Link href="/">{t('registration.backToLogin')}</Link>
      </p>
    </section>
  );
}
