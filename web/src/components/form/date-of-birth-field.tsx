import { privateMark } from '@/lib/cobrowse/privacy';
import { useState, type ChangeEvent, type FocusEvent } from 'react';
import { useT } from '@/i18n/i18n';
import { useSite } from '@/lib/site/site-context';
import { FieldError, useField } from './form';

interface DateParts {
  day: string;
  month: string;
  year: string;
}

/** The parts of a YYYY-MM-DD value (or of one being typed); anything else gives empty parts. */
export function splitDate(value: string): DateParts {
  const m = /^([0-9]{0,4})-([0-9]{0,2})-([0-9]{0,2})$/.exec(value);
  return m ? { year: m[1] ?? '', month: m[2] ?? '', day: m[3] ?? '' } : { day: '', month: '', year: '' };
}

/**
 * The value the date-of-birth rule checks: YYYY-MM-DD with a one-digit day
 * padded; '' when nothing is given (the rule says 'required'), a partial
 * date otherwise (the rule says 'format').
 */
export function assembleDate({ day, month, year }: DateParts): string {
  if (day === '' && month === '' && year === '') return '';
  return `${year}-${month}-${day.length === 1 ? `0${day}` : day}`;
}

/** Month names of the page's language, January first. */
export function monthNames(language: string): string[] {
  const format = new Intl.DateTimeFormat(`${language}-CA`, { month: 'long', timeZone: 'UTC' });
  return Array.from({ length: 12 }, (_, m) => format.format(new Date(Date.UTC(2000, m, 1))));
}

const digits = (value: string, length: number) => value.replace(/[^0-9]/g, '').slice(0, length);

export interface DateOfBirthFieldProps {
  name: string;
  /** Defaults to "Date of birth". */
  legend?: string;
  disabled?: boolean;
}

/**
 * Date of birth (spec §5): day (2 digits), month (a dropdown of month names),
 * year (4 digits) in a fieldset; the form gets YYYY-MM-DD. The message is
 * the fieldset's description; the summary's link leads to the day.
 */
export function DateOfBirthField({ name, legend, disabled }: DateOfBirthFieldProps) {
  const t = useT();
  const { language } = useSite();
  const field = useField(name);
  // What was typed stays as typed ("5", not "05"); the form holds the assembled date.
  const [parts, setParts] = useState(() => splitDate(field.input));
  const invalid = field.error ? true : undefined;

  function change(part: keyof DateParts) {
    return (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
      const value = part === 'month' ? event.target.value : digits(event.target.value, part === 'day' ? 2 : 4);
      const next = { ...parts, [part]: value };
      setParts(next);
      field.setInput(assembleDate(next));
    };
  }

  // Checked when the focus leaves the group, not between its parts.
  function leave(event: FocusEvent<HTMLFieldSetElement>) {
    if (!event.currentTarget.contains(event.relatedTarget as Node | null)) field.onBlur();
  }

  return (
    <fieldset
      className={field.error ? 'field field--group field--invalid' : 'field field--group'}
      aria-describedby={field.describedBy(false)}
      onBlur={leave}
      disabled={disabled}
      {...privateMark('dateOfBirth')}
    >
      <legend className="field__label">{legend ?? t('form.dateOfBirth')}</legend>
      <div className="date-field">
        <div className="date-field__part date-field__part--day">
          <label htmlFor={field.id}>{t('form.day')}</label>
          <input
            id={field.id}
            name={`${name}-day`}
            className="field__input"
            inputMode="numeric"
            autoComplete="bday-day"
            maxLength={2}
            value={parts.day}
            onChange={change('day')}
            aria-invalid={invalid}
          />
        </div>
        <div className="date-field__part date-field__part--month">
          <label htmlFor={`${field.id}-month`}>{t('form.month')}</label>
          <select
            id={`${field.id}-month`}
            name={`${name}-month`}
            className="field__input"
            autoComplete="bday-month"
            value={parts.month}
            onChange={change('month')}
            aria-invalid={invalid}
          >
            <option value="">{t('form.choose')}</option>
            {monthNames(language).map((month, i) => (
              <option key={month} value={String(i + 1).padStart(2, '0')}>
                {month}
              </option>
            ))}
          </select>
        </div>
        <div className="date-field__part date-field__part--year">
          <label htmlFor={`${field.id}-year`}>{t('form.year')}</label>
          <input
            id={`${field.id}-year`}
            name={`${name}-year`}
            className="field__input"
            inputMode="numeric"
            autoComplete="bday-year"
            maxLength={4}
            value={parts.year}
            onChange={change('year')}
            aria-invalid={invalid}
          />
        </div>
      </div>
      <FieldError id={field.errorId} message={field.error} />
    </fieldset>
  );
}
