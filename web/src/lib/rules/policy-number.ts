import { fail, pass, type RuleResult } from './result';
import { stripSeparators, upperAscii, usable } from './text';

/**
 * A brand's policy-number format (SiteConfig brand.policyNumber): length
 * letters or digits, shown with mask. Mask slots: X, * or _ a letter or a
 * digit, A a letter, 9 a digit; other characters are literals. An empty mask
 * is length slots of X.
 */
export interface PolicyFormat {
  length: number;
  mask: string;
}

const POLICY_MAX_LENGTH = 30;

const SLOTS: Record<string, RegExp> = {
  X: /^[A-Z0-9]$/,
  '*': /^[A-Z0-9]$/,
  _: /^[A-Z0-9]$/,
  A: /^[A-Z]$/,
  '9': /^[0-9]$/,
};

function slots(format: PolicyFormat): RegExp[] {
  if (format.mask === '') return Array.from({ length: Math.max(format.length, 0) }, () => /^[A-Z0-9]$/);
  return [...format.mask].flatMap((c) => SLOTS[c] ?? []);
}

/** Whether the format can be used (Go PolicyFormat.Check). */
export function policyFormatValid(format: PolicyFormat): boolean {
  return (
    Number.isInteger(format.length) &&
    format.length >= 1 &&
    format.length <= POLICY_MAX_LENGTH &&
    slots(format).length === format.length
  );
}

/**
 * Policy number (spec §5) in the brand's format: upper-cased, white space and
 * dashes ignored, normalized to the letters and digits alone ("abc-1234"
 * gives "ABC1234"). An unusable format refuses every value.
 */
export function checkPolicyNumber(input: string, format: PolicyFormat): RuleResult {
  if (!usable(input)) return fail('policyNumber', 'errorPolicyNumberFormat');
  const s = upperAscii(stripSeparators(input));
  if (s === '') return fail('policyNumber', 'errorPolicyNumberRequired');
  if (!policyFormatValid(format) || s.length !== format.length) return fail('policyNumber', 'errorPolicyNumberFormat');
  const accept = slots(format);
  const chars = [...s];
  if (chars.length !== accept.length || chars.some((c, i) => !accept[i]?.test(c))) {
    return fail('policyNumber', 'errorPolicyNumberFormat');
  }
  return pass(s);
}
