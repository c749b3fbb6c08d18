import { fail, pass, type RuleResult } from './result';
import { stripSeparators, upperAscii, usable } from './text';

/**
 * Postal code (spec §5), pattern A9A 9A9: upper-cased, white space and dashes
 * ignored, normalized with the pattern's one space ("h2x1y4" gives "H2X 1Y4").
 */
export function checkPostalCode(input: string): RuleResult {
  if (!usable(input)) return fail('postalCode', 'errorPostalCodeFormat');
  const s = upperAscii(stripSeparators(input));
  if (s === '') return fail('postalCode', 'errorPostalCodeRequired');
  if (!/^[A-Z][0-9][A-Z][0-9][A-Z][0-9]$/.test(s)) return fail('postalCode', 'errorPostalCodeFormat');
  return pass(`${s.slice(0, 3)} ${s.slice(3)}`);
}
