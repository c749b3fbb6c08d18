import { useId, useState, type KeyboardEvent } from 'react';
import { useT } from '@/i18n/i18n';
import { isMessageKey } from '@/i18n/catalog';
import { useSite } from '@/lib/site/site-context';
import type { Language } from '@/lib/site/types';
import { telHref } from '@/lib/site/tel';

/**
 * Spec §2.7 header: logo, technical phone number, province dropdown, language
 * toggle. On phones (below 768 px, shell.css) it is one row of 44 px targets:
 * the phone number is an icon link (its text stays its accessible name), and
 * province and language sit in a panel behind a disclosure button, so the
 * page's own content starts above the fold. From tablet width up the button
 * is hidden and the panel always shows.
 */
export function Header() {
  const t = useT();
  const { brand, language, province, provinceConfig, provinceLanguages, setLanguage } = useSite();
  const panelId = useId();
  const [open, setOpen] = useState(false);
  const other: Language = language === 'en' ? 'fr' : 'en';
  const phone = provinceConfig?.phone;
  const provinceKey = `province.${province}`;
  const provinceName = isMessageKey(provinceKey) ? t(provinceKey) : province.toUpperCase();
  // Escape closes the open panel and gives focus back to its button.
  const onPanelKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'Escape' || !open) return;
    setOpen(false);
    document.getElementById(`${panelId}-button`)?.focus();
  };
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
              <span className="site-header__phone-label">{t('header.phoneLabel')} </span>
              <a href={telHref(phone)}>
                <svg className="site-header__icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
                  <path d="M6.6 10.8a15.1 15.1 0 0 0 6.6 6.6l2.2-2.2a1 1 0 0 1 1-.25 11.4 11.4 0 0 0 3.6.57 1 1 0 0 1 1 1V20a1 1 0 0 1-1 1A17 17 0 0 1 3 4a1 1 0 0 1 1-1h3.5a1 1 0 0 1 1 1c0 1.25.2 2.45.57 3.57a1 1 0 0 1-.25 1z" />
                </svg>
                <span className="site-header__phone-number">{phone}</span>
              </a>
            </p>
          ) : null}
          <button
            type="button"
            id={`${panelId}-button`}
            className="outline-button site-header__menu-button"
            aria-expanded={open}
            aria-controls={panelId}
            onClick={() => setOpen((value) => !value)}
          >
            <span className="visually-hidden">
              {t('header.settings', { province: provinceName, language: t('header.languageName') })}
            </span>
            <span aria-hidden="true">
              {province.toUpperCase()} · {language.toUpperCase()}
            </span>
            <svg className="site-header__chevron" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
              <path d="M7 10l5 5 5-5z" />
            </svg>
          </button>
          <div
            id={panelId}
            className={open ? 'site-header__settings site-header__settings--open' : 'site-header__settings'}
            onKeyDown={onPanelKeyDown}
          >
            <ProvinceSelect />
            {provinceLanguages.includes(other) ? (
              <button type="button" className="site-header__language" lang={other} onClick={() => setLanguage(other)}>
                {t('header.languageToggle')}
              </button>
            ) : null}
          </div>
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
