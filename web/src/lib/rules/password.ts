import { commonForms, keyboardWalk } from './common-forms';
import { normalizePassword } from './normalize-password';
import { fail, pass, type RuleResult } from './result';
import { codePoints, lowerAscii, tooLong, trimSpace, wellFormed } from './text';

/** Spec §9's password lengths, in characters after normalization. */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 64;

// Shorter pieces of an email's local part ("jo", "a1") are too common in
// ordinary words to refuse.
const EMAIL_PART_MIN_LENGTH = 3;

/**
 * Password (spec §5), as internal/rules Password checks it, except the
 * blocklist of common passwords, which only the server holds (it is never
 * downloaded). In order: empty -> errorPasswordRequired; a control or
 * formatting character -> errorPasswordInvalidCharacter; 10 to 64 characters
 * with an upper-case letter, a lower-case letter, a digit and a special
 * character (not a letter, digit or white space) -> protectAccount.passwordInfo;
 * no part of the email's local part (itself and its runs of 3 or more
 * letters and digits, ignoring case) -> errorPasswordContainsEmail; no form
 * that is a keyboard walk (common-forms.ts, the part of the common-password
 * check the browser can make) -> errorPasswordCommon.
 * The value is the normalized password to send.
 */
export function checkPassword(input: string, email: string): RuleResult {
  if (tooLong(input)) return fail('password', 'protectAccount.passwordInfo');
  if (!wellFormed(input)) return fail('password', 'errorPasswordInvalidCharacter');
  const s = normalizePassword(input);
  if (s === '') return fail('password', 'errorPasswordRequired');
  let upper = false;
  let lower = false;
  let digit = false;
  let special = false;
  for (const ch of s) {
    if (/[\p{Cc}\p{Cf}]/u.test(ch)) return fail('password', 'errorPasswordInvalidCharacter');
    if (/\p{Lu}/u.test(ch)) upper = true;
    else if (/\p{Ll}/u.test(ch)) lower = true;
    else if (/\p{Nd}/u.test(ch)) digit = true;
    else if (!/[\p{L}\p{White_Space}]/u.test(ch)) special = true;
  }
  const n = codePoints(s);
  if (n < PASSWORD_MIN_LENGTH || n > PASSWORD_MAX_LENGTH || !upper || !lower || !digit || !special) {
    return fail('password', 'protectAccount.passwordInfo');
  }
  if (containsEmailPart(s, email)) return fail('password', 'errorPasswordContainsEmail');
  if (commonForms(s).some(keyboardWalk)) return fail('password', 'errorPasswordCommon');
  return pass(s);
}

function containsEmailPart(password: string, email: string): boolean {
  const e = trimSpace(email);
  const at = e.lastIndexOf('@');
  if (at < 0) return false;
  const pw = lowerAscii(password);
  const local = lowerAscii(e.slice(0, at));
  const parts = [...local.split(/[^a-z0-9]+/), local];
  return parts.some((p) => codePoints(p) >= EMAIL_PART_MIN_LENGTH && pw.includes(p));
}
