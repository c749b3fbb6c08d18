import { normalizePassword } from './normalize-password';
import { fail, pass, type RuleResult } from './result';
import { usable } from './text';

/** Password retype (spec §5): equal to the password once both are normalized. */
export function checkPasswordConfirmation(input: string, password: string): RuleResult {
  if (!usable(input)) return fail('passwordConfirmation', 'errorPasswordDontMatch');
  const s = normalizePassword(input);
  if (s === '') return fail('passwordConfirmation', 'errorPasswordConfirmRequired');
  if (!usable(password) || s !== normalizePassword(password)) {
    return fail('passwordConfirmation', 'errorPasswordDontMatch');
  }
  return pass(s);
}
