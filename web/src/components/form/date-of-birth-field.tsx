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

/** How many digits the day and the year take. */
const partLength = { day: 2, year: 4 } as const;

const digits = (value: string, length: number) => value.replace(/[^0-9]/g, '').slice(0, length);

interface DigitsPartProps {
  part: keyof typeof partLength;
  id: string;
  /** The field's name; the input is named `${name}-${part}`. */
  name: string;
  label: string;
  value: string;
  onChange: (event: ChangeEvent<HTMLInputElement>) => void;
  invalid: true | undefined;
}

/** The day or the year: a labelled numeric input of partLength digits, filled from the birthday autofill. */
function DigitsPart({ part, id, name, label, value, onChange, invalid }: DigitsPartProps) {
  return (
    <div className={`date-field__part date-field__part--${part}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={`${name}-${part}`}
        className="field__input"
        inputMode="numeric"
        autoComplete={`bday-${part}`}
        maxLength={partLength[part]}
        value={value}
        onChange={onChange}
        aria-invalid={invalid}
      />
    </div>
  );
}

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
      const value = part === 'month' ? event.target.value : digits(event.target.value, partLength[part]);
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
        <DigitsPart part="day" id={field.id} name={name} label={t('form.day')} value={parts.day} onChange={change('day')} invalid={invalid} />
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
        <DigitsPart part="year" id={`${field.id}-year`} name={name} label={t('form.year')} value={parts.year} onChange={change('year')} invalid={invalid} />
      </div>
      <FieldError id={field.errorId} message={field.error} />
    </fieldset>
  );
}
