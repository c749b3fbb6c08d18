import { useId } from 'react';
import { useT } from '@/i18n/i18n';
import { isMessageKey } from '@/i18n/catalog';
import { useSite } from '@/lib/site/site-context';
import type { Language } from '@/lib/site/types';

/** tel: URI of a North American number written in any format ("1 800 555-0101"). */
export function telHref(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  if (digits.length === 10) return `tel:+1${digits}`;
  if (digits.length === 11 && digits.startsWith('1')) return `tel:+${digits}`;
  return `tel:${digits}`;
}

/** Spec §2.7 header: logo, technical phone number, province dropdown, language toggle. */
export function Header() {
  const t = useT();
  const { brand, language, provinceConfig, provinceLanguages, setLanguage } = useSite();
  const other: Language = language === 'en' ? 'fr' : 'en';
  const phone = provinceConfig?.phone;
  return (
    <header className="site-header">
      <div className="site-header__inner">
        <a
          className="site-header__logo"
          href={brand.links.marketing[language]}
          aria-label={t('header.logoLabel', { brand: brand.name })}
        >
          {/* The French logo writes the name as the brand does in French; the
              server falls back to the English file or draws the name. */}
          <img src={`/brands/${brand.id}/logo${language === 'fr' ? '.fr' : ''}.svg`} alt={brand.name} width="180" height="40" />
        </a>
        <div className="site-header__tools">
          {phone ? (
            <p className="site-header__phone">
              {t('header.phoneLabel')} <a href={telHref(phone)}>{phone}</a>
            </p>
          ) : null}
          <ProvinceSelect />
          {provinceLanguages.includes(other) ? (
            <button type="button" className="site-header__language" lang={other} onClick={() => setLanguage(other)}>
              {t('header.languageToggle')}
            </button>
          ) : null}
        </div>
      </div>
    </header>
  );
}

function ProvinceSelect() {
  const t = useT();
  const id = useId();
  const { brand, province, setProvince } = useSite();
  // Only menu provinces are offered; a hidden one reached by ?province= stays
  // listed while it is the current one, so the control never misstates it.
  const options = brand.provinces.filter((p) => p.menu || p.key === province);
  return (
    <div className="province-select">
      <label htmlFor={id}>{t('header.province')}</label>
      <select id={id} value={province} onChange={(event) => setProvince(event.target.value)}>
        {options.map((p) => {
          const key = `province.${p.key}`;
          return (
            <option key={p.key} value={p.key}>
              {isMessageKey(key) ? t(key) : p.key.toUpperCase()}
            </option>
          );
        })}
      </select>
    </div>
  );
}
