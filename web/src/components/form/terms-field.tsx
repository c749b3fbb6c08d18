import { useT } from '@/i18n/i18n';
import { useSite } from '@/lib/site/site-context';
import { CheckboxField } from './checkbox-field';

/**
 * Terms checkbox (spec §5): "I have read and accept the Terms of Use", the
 * link going to the brand's terms in the page's language (a new tab, so the
 * form keeps what was typed).
 */
export function TermsField({ name, disabled }: { name: string; disabled?: boolean }) {
  const t = useT();
  const { brand, language } = useSite();
  const [before = '', after = ''] = t('form.terms').split('{terms}');
  return (
    <CheckboxField
      name={name}
      disabled={disabled}
      label={
        <>
          {before}
          <a href={brand.links.terms[language]} target="_blank" rel="noopener noreferrer">
            {t('form.termsLink')}
            <span className="visually-hidden">{` ${t('form.opensInNewTab')}`}</span>
          </a>
          {after}
        </>
      }
    />
  );
}
