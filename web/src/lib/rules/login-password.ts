import { normalizePassword } from './normalize-password';
import { fail, pass, type RuleResult } from './result';
import { usable } from './text';

/**
 * Login password (spec §5: only required). The value is the normalized
 * password, the same string sign-up hashed.
 */
export function checkLoginPassword(input: string): RuleResult {
  if (!usable(input)) return fail('loginPassword', 'protectAccount.passwordInfo');
  const s = normalizePassword(input);
  if (s === '') return fail('loginPassword', 'errorPasswordRequired');
  return pass(s);
}
