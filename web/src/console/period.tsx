import { useT } from '@/i18n/i18n';
import { useSession } from './session';
import { ALL_BRANDS } from './pages/search';

export interface Period {
  /** yyyy-mm-dd, '' for none */
  from: string;
  /** yyyy-mm-dd, included; '' for none */
  to: string;
  /** a brand id, '' for all the member's brands */
  brand: string;
}

/** From, to (included) and brand fields: the audit export's and the transcript search's. */
export function PeriodFields({ id, value, onChange }: { id: string; value: Period; onChange: (next: Period) => void }) {
  const t = useT();
  const { me } = useSession();
  const brands = me && me.brands.length > 0 ? me.brands : ALL_BRANDS;
  return (
    <>
      <div className="console-field">
        <label htmlFor={`${id}-from`}>{t('console.audit.from')}</label>
        <input id={`${id}-from`} type="date" value={value.from} onChange={(e) => onChange({ ...value, from: e.target.value })} />
      </div>
      <div className="console-field">
        <label htmlFor={`${id}-to`}>{t('console.audit.to')}</label>
        <input id={`${id}-to`} type="date" value={value.to} onChange={(e) => onChange({ ...value, to: e.target.value })} />
      </div>
      <div className="console-field">
        <label htmlFor={`${id}-brand`}>{t('console.search.brand')}</label>
        <select id={`${id}-brand`} value={value.brand} onChange={(e) => onChange({ ...value, brand: e.target.value })}>
          <option value="">{t('console.search.allBrands')}</option>
          {brands.map((b) => (
            <option key={b} value={b}>
              {b}
            </option>
          ))}
        </select>
      </div>
    </>
  );
}
