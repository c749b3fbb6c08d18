import { fail, pass, type RuleResult } from './result';
import { stripSeparators, upperAscii, usable } from './text';

/** PIN (spec §5): 8 letters A-Z or digits, upper-cased; white space and dashes ignored. */
export function checkPin(input: string): RuleResult {
  if (!usable(input)) return fail('pin', 'errorPinFormat');
  const s = upperAscii(stripSeparators(input));
  if (s === '') return fail('pin', 'errorPinRequired');
  if (!/^[A-Z0-9]{8}$/.test(s)) return fail('pin', 'errorPinFormat');
  return pass(s);
}
