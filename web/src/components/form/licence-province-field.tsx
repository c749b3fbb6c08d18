import { useT } from '@/i18n/i18n';
import { isMessageKey } from '@/i18n/catalog';
import { useSite } from '@/lib/site/site-context';
import { controlProps, FieldFrame, useField } from './form';

/** The value of the licence-province choice for a province without a licence rule. */
export const OTHER_PROVINCE = 'other';

/**
 * Licence province (spec §5): the brand's provinces with a licence rule,
 * then "Other"; DriverLicenceField takes its mask from the choice.
 */
export function LicenceProvinceField({ name, label, disabled }: { name: string; label?: string; disabled?: boolean }) {
  const t = useT();
  const { brand } = useSite();
  const field = useField(name);
  const provinces = brand.provinces.filter((p) => p.license).map((p) => p.key);
  return (
    <FieldFrame binding={field} label={label ?? t('form.licenceProvince')}>
      <select {...controlProps(field, name, false)} autoComplete="off" disabled={disabled}>
        <option value="">{t('form.choose')}</option>
        {provinces.map((key) => {
          const message = `province.${key}`;
          return (
            <option key={key} value={key}>
              {isMessageKey(message) ? t(message) : key.toUpperCase()}
            </option>
          );
        })}
        <option value={OTHER_PROVINCE}>{t('form.licenceProvinceOther')}</option>
      </select>
    </FieldFrame>
  );
}
