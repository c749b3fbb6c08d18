import { fail, pass, type RuleResult } from './result';
import { trimSpace, usable } from './text';

/** Spec §9's ages, inclusive. */
export const MIN_AGE = 16;
export const MAX_AGE = 100;

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Date of birth (spec §5): strictly YYYY-MM-DD, a real date (29 February only
 * in leap years), age 16 to 100 inclusive on today's local calendar date.
 * Age counts completed years; a 29 February birthday falls on 1 March in
 * common years.
 */
export function checkDateOfBirth(input: string, today: Date): RuleResult {
  if (!usable(input)) return fail('birthDate', 'errorDateOfBirthFormat');
  const s = trimSpace(input);
  if (s === '') return fail('birthDate', 'errorDateOfBirthRequired');
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(s);
  if (!m) return fail('birthDate', 'errorDateOfBirthFormat');
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) {
    return fail('birthDate', 'errorDateOfBirthFormat');
  }
  const tm = today.getMonth() + 1;
  let age = today.getFullYear() - year;
  if (tm < month || (tm === month && today.getDate() < day)) age--;
  if (age < MIN_AGE || age > MAX_AGE) return fail('birthDate', 'errorDateOfBirthAge');
  return pass(s);
}
