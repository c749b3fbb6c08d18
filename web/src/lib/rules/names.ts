import type { RuleField, RuleKey } from './keys';
import { fail, pass, type RuleResult } from './result';
import { codePoints, collapseSpaces, tooLong, wellFormed } from './text';

/** Spec §9's name lengths, in characters after trimming. */
export const NAME_MIN_LENGTH = 2;
export const NAME_MAX_LENGTH = 254;

/**
 * Letters of any script with their accents (\p{L}, \p{M}), space,
 * apostrophe and hyphen, beginning with a letter, 2 to 254 characters. The
 * value is in NFC, trimmed, its runs of white space collapsed to one space,
 * and ’ replaced by '.
 */
function checkName(input: string, field: RuleField, required: RuleKey, format: RuleKey, length: RuleKey): RuleResult {
  if (tooLong(input)) return fail(field, length);
  if (!wellFormed(input)) return fail(field, format);
  const s = collapseSpaces(input.normalize('NFC')).replaceAll('\u2019', "'");
  if (s === '') return fail(field, required);
  if (!/^\p{L}[\p{L}\p{M} '-]*$/u.test(s)) return fail(field, format);
  const n = codePoints(s);
  if (n < NAME_MIN_LENGTH || n > NAME_MAX_LENGTH) return fail(field, length);
  return pass(s);
}

/** First name (spec §5). */
export function checkFirstName(input: string): RuleResult {
  return checkName(input, 'firstName', 'errorFirstNameRequired', 'errorFirstNameFormat', 'errorFirstNameLength');
}

/** Last name (spec §5). */
export function checkLastName(input: string): RuleResult {
  return checkName(input, 'lastName', 'errorLastNameRequired', 'errorLastNameFormat', 'errorLastNameLength');
}
