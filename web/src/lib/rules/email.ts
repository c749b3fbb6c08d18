import { fail, pass, type RuleResult } from './result';
import { codePoints, lowerAscii, trimSpace, usable } from './text';

/** Spec §9's email maximum, in characters. */
export const EMAIL_MAX_LENGTH = 79;

// RFC 5321's limit on the part before the @.
const LOCAL_MAX_LENGTH = 64;

// HTML's "valid e-mail address" with a dot-atom local part and a suffix of at
// least 2 letters (or an xn-- label); internal/rules/email.go holds the same.
const EMAIL_PATTERN =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{0,57}[A-Za-z0-9])$/;

/**
 * Email (spec §5): required, at most 79 characters, the pattern above, and a
 * domain whose part before the suffix has at least 2 characters ("a@b.co"
 * fails). Trimmed; the case is kept (compare with emailEqual).
 */
export function checkEmail(input: string): RuleResult {
  if (!usable(input)) return fail('email', 'errorEmailFormat');
  const s = trimSpace(input);
  if (s === '') return fail('email', 'errorEmailRequired');
  if (codePoints(s) > EMAIL_MAX_LENGTH || !EMAIL_PATTERN.test(s)) return fail('email', 'errorEmailFormat');
  const at = s.lastIndexOf('@');
  const domain = s.slice(at + 1);
  if (at > LOCAL_MAX_LENGTH || domain.lastIndexOf('.') < 2) return fail('email', 'errorEmailFormat');
  return pass(s);
}

/** Whether two addresses are the same account name: trimmed, ignoring the case of A-Z. */
export function emailEqual(a: string, b: string): boolean {
  const x = trimSpace(a);
  const y = trimSpace(b);
  return x.length === y.length && lowerAscii(x) === lowerAscii(y);
}
