import { useT } from '@/i18n/i18n';
import { ConsoleField } from './field';
import { useSession } from './session';

/** Every brand of the portal (config/brands); a member serving some sees those only. */
export const ALL_BRANDS = ['belair', 'bna', 'intact', 'scotia', 'servus'];

export interface Period {
  /** yyyy-mm-dd, '' for none */
  from: string;
  /** yyyy-mm-dd, included; '' for none */
  to: string;
  /** a brand id, '' for all the member's brands */
  brand: string;
}

/** The brands a staff member serves (all of them when none is named). */
export function useServedBrands(): string[] {
  const { me } = useSession();
  return me && me.brands.length > 0 ? me.brands : ALL_BRANDS;
}

/** A brand of those the member serves; `all` adds 'All my brands' (''). */
export function BrandField({ id, value, onChange, all = false }: { id: string; value: string; onChange: (brand: string) => void; all?: boolean }) {
  const t = useT();
  const brands = useServedBrands();
  return (
    <ConsoleField id={`${id}-brand`} label={t('console.search.brand')}>
      <select id={`${id}-brand`} value={value} onChange={(e) => onChange(e.target.value)}>
        {all ? <option value="">{t('console.search.allBrands')}</option> : null}
        {brands.map((b) => (
          <option key={b} value={b}>
            {b}
          </option>
        ))}
      </select>
    </ConsoleField>
  );
}

/** From, to (included) and brand fields: the audit export's and the transcript search's. */
export function PeriodFields({ id, value, onChange }: { id: string; value: Period; onChange: (next: Period) => void }) {
  const t = useT();
  return (
    <>
      <ConsoleField id={`${id}-from`} label={t('console.audit.from')}>
        <input id={`${id}-from`} type="date" value={value.from} onChange={(e) => onChange({ ...value, from: e.target.value })} />
      </ConsoleField>
      <ConsoleField id={`${id}-to`} label={t('console.audit.to')}>
        <input id={`${id}-to`} type="date" value={value.to} onChange={(e) => onChange({ ...value, to: e.target.value })} />
      </ConsoleField>
      <BrandField id={id} value={value.brand} onChange={(brand) => onChange({ ...value, brand })} all />
    </>
  );
}
