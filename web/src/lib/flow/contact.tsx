import { useId } from 'react';
import { telHref } from '@/lib/site/tel';
import { useT } from '@/i18n/i18n';
import { useSite } from '@/lib/site/site-context';
import { hoursLines, type HoursLine } from './hours';

const dayKeys = {
  weekdays: 'contact.weekdays',
  saturday: 'contact.saturday',
  sunday: 'contact.sunday',
} as const satisfies Record<HoursLine['days'], string>;

/**
 * The province's phone number (a tel: link) and opening hours, as the
 * roadblock cards and the soft roadblock show them (spec §2.6). A province
 * without hours (intact) shows the number only.
 */
export function ContactDetails() {
  const t = useT();
  const { provinceConfig, language } = useSite();
  const hoursId = useId();
  const phone = provinceConfig?.phone;
  const lines = hoursLines(provinceConfig?.hours, language);
  return (
    <div className="contact-details">
      {phone ? (
        <p className="contact-details__phone">
          {t('contact.callUs')} <a href={telHref(phone)}>{phone}</a>
        </p>
      ) : null}
      {lines.length > 0 ? (
        <>
          <h3 id={hoursId} className="contact-details__hours-title">
            {t('contact.hoursTitle')}
          </h3>
          <dl className="contact-details__hours" aria-labelledby={hoursId}>
            {lines.map((l) => (
              <div key={l.days}>
                <dt>{t(dayKeys[l.days])}</dt>
                <dd>{l.open && l.close ? t('contact.hoursRange', { open: l.open, close: l.close }) : t('contact.closed')}</dd>
              </div>
            ))}
          </dl>
        </>
      ) : null}
    </div>
  );
}
