import { fail, pass, type RuleResult } from './result';
import { lowerAscii, stripSeparators, upperAscii, usable } from './text';
import { lookup } from '@/lib/lookup';

/** Longest licence of the provinces without a rule of their own (spec §5 "others"). */
export const DRIVER_LICENCE_MAX_LENGTH = 30;

const LENGTHS: Record<string, number[]> = { qc: [13], on: [15], ab: [6, 9], bc: [7], ns: [14] };

/**
 * Driver licence for the licence province (spec §5): letters A-Z or digits,
 * upper-cased, white space and dashes ignored; qc 13, on 15, ab 6 or 9, bc 7,
 * ns 14, other provinces 1 to 30. When the visitor's province has no UBI the
 * field is cleared: the value is '' and it passes.
 */
export function checkDriverLicence(input: string, province: string, ubi: boolean): RuleResult {
  if (!ubi) return pass('');
  if (!usable(input)) return fail('driverLicense', 'validations:driverLicense.format');
  const s = upperAscii(stripSeparators(input));
  if (s === '') return fail('driverLicense', 'validations:driverLicense.required');
  if (!/^[A-Z0-9]+$/.test(s)) return fail('driverLicense', 'validations:driverLicense.format');
  const lengths = lookup(LENGTHS, lowerAscii(province));
  const ok = lengths ? lengths.includes(s.length) : s.length <= DRIVER_LICENCE_MAX_LENGTH;
  return ok ? pass(s) : fail('driverLicense', 'validations:driverLicense.format');
}
