import { DemoForm } from '@/features/dev-forms/components/demo-form';
import { useT } from '@/i18n/i18n';
import { usePageTitle } from '@/lib/page-title';
import '@/features/dev-forms/dev-forms.css';

/** /_dev/forms (--dev only): every form component of issue 3 in each of its states, in the page's language. */
export default function DevFormsRoute() {
  const t = useT();
  usePageTitle(t('devForms.title'));
  return (
    <div className="page dev-forms">
      <h1>{t('devForms.title')}</h1>
      <p>{t('devForms.intro')}</p>
      <div className="dev-forms__states">
        <DemoForm state="empty" />
        <DemoForm state="filled" />
        <DemoForm state="error" />
        <DemoForm state="disabled" />
      </div>
    </div>
  );
}
