import { fail, pass, type RuleResult } from './result';
import { codePoints, stripSeparators, tooLong, wellFormed } from './text';

/**
 * Security code (spec §5): exactly 6 digits; white space and dashes ignored.
 * Any other length is a 'required' failure, as the spec says.
 */
export function checkSecurityCode(input: string): RuleResult {
  if (tooLong(input)) return fail('code', 'errorCodeRequired');
  if (!wellFormed(input)) return fail('code', 'errorCodeFormat');
  const s = stripSeparators(input);
  if (codePoints(s) !== 6) return fail('code', 'errorCodeRequired');
  if (!/^[0-9]{6}$/.test(s)) return fail('code', 'errorCodeFormat');
  return pass(s);
}
