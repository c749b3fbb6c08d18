import { emailEqual } from './email';
import { fail, pass, type RuleResult } from './result';
import { trimSpace, usable } from './text';

/** Email retype (spec §5): equal to the email, both trimmed, ignoring case. */
export function checkEmailConfirmation(input: string, email: string): RuleResult {
  if (!usable(input)) return fail('emailConfirmation', 'errorEmailConfirm');
  const s = trimSpace(input);
  if (s === '') return fail('emailConfirmation', 'errorEmailConfirmRequired');
  if (!emailEqual(s, email)) return fail('emailConfirmation', 'errorEmailConfirm');
  return pass(s);
}
