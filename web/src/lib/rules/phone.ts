import { fail, pass, type RuleResult } from './result';
import { usable } from './text';

/**
 * Phone (spec §5), typed as 999-999-9999: the value is the 10 digits alone,
 * as the API sends it; white space, dashes, dots and parentheses are ignored.
 * When required is false an empty value passes as ''.
 */
export function checkPhone(input: string, required: boolean): RuleResult {
  if (!usable(input)) return fail('phone', 'errorPhoneFormat');
  const s = input.replace(/[-.()\p{White_Space}]/gu, '');
  if (s === '') return required ? fail('phone', 'errorPhoneRequired') : pass('');
  if (!/^[0-9]{10}$/.test(s)) return fail('phone', 'errorPhoneFormat');
  return pass(s);
}
