import { expect, it } from 'vitest';
import { formatPolicyNumber } from './policy-number';

it.each([
  { number: 'BEL1000', mask: 'AAA-AAAA', expected: 'BEL-1000' },
  { number: 'INT100000', mask: 'AAA-AAAAAA', expected: 'INT-100000' },
  { number: 'INT100000', mask: 'AAAAAAAAA', expected: 'INT100000' },
  { number: 'BEL100', mask: 'AAA-AAAA', expected: 'BEL100' },
  { number: 'BEL10000', mask: 'AAA-AAAA', expected: 'BEL10000' },
  { number: 'BEL1000', mask: '', expected: 'BEL1000' },
  { number: '', mask: 'AAA-AAAA', expected: '' },
])('$number with $mask is $expected', ({ number, mask, expected }) => {
  expect(formatPolicyNumber(number, mask)).toBe(expected);
});
