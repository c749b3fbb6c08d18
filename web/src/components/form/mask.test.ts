// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { conform, freeMask, PHONE_MASK, phoneOptions, POSTAL_CODE_MASK, slotCount } from './mask';

const QC_LICENCE = 'A9999-999999-99';
const AB_LICENCE = '**9999-999';
const NS_LICENCE = 'A____999999999';

describe('conform', () => {
  const cases: { name: string; mask: string; input: string; caret?: number; value: string; at?: number; phone?: boolean }[] = [
    { name: 'empty', mask: PHONE_MASK, input: '', value: '', at: 0 },
    { name: 'phone while typing: no trailing separator', mask: PHONE_MASK, input: '514', value: '514', at: 3 },
    { name: 'phone: separator placed when a digit follows', mask: PHONE_MASK, input: '5145', value: '514-5', at: 5 },
    { name: 'phone pasted bare', mask: PHONE_MASK, input: '5145550123', value: '514-555-0123', at: 12 },
    { name: 'phone pasted formatted', mask: PHONE_MASK, input: '(514) 555.0123', value: '514-555-0123', at: 12 },
    { name: 'phone with country code', mask: PHONE_MASK, input: '+1 514 555 0123', value: '514-555-0123', at: 12, phone: true },
    { name: 'phone: a 1 of ten digits is kept', mask: PHONE_MASK, input: '1514555012', value: '151-455-5012', phone: true },
    { name: 'phone refuses letters', mask: PHONE_MASK, input: '51a4', value: '514', at: 3 },
    { name: 'phone: extra digits dropped', mask: PHONE_MASK, input: '514-555-01234', value: '514-555-0123', at: 12 },
    { name: 'postal code upper-cased', mask: POSTAL_CODE_MASK, input: 'h2x1y4', value: 'H2X 1Y4', at: 7 },
    { name: 'postal code pasted with a dash', mask: POSTAL_CODE_MASK, input: ' h2x-1y4 ', value: 'H2X 1Y4' },
    { name: 'postal code: a digit where a letter goes is dropped', mask: POSTAL_CODE_MASK, input: '2h', value: 'H', at: 1 },
    { name: 'postal code: accented letters are not A-Z', mask: POSTAL_CODE_MASK, input: 'é', value: '' },
    { name: 'qc licence', mask: QC_LICENCE, input: 'a123412345612', value: 'A1234-123456-12' },
    { name: 'qc licence formatted', mask: QC_LICENCE, input: 'A1234-123456-12', value: 'A1234-123456-12' },
    { name: 'ab licence of 6', mask: AB_LICENCE, input: 'ab1234', value: 'AB1234' },
    { name: 'ab licence of 9', mask: AB_LICENCE, input: '1a2345678', value: '1A2345-678' },
    { name: 'ns licence: _ takes letters and digits', mask: NS_LICENCE, input: 'ab1c2345678901', value: 'AB1C2345678901' },
    { name: 'free mask: letters and digits only', mask: freeMask(30), input: 'x1-y2 z3', value: 'X1Y2Z3' },
    { name: 'policy XXX-XXXX', mask: 'XXX-XXXX', input: 'abc1234', value: 'ABC-1234' },
    { name: 'policy AAA-9999 refuses a digit first', mask: 'AAA-9999', input: '1abc1234', value: 'ABC-1234' },
    { name: 'a literal typed by the visitor is not doubled', mask: PHONE_MASK, input: '514-', value: '514', at: 3 },
  ];
  it.each(cases)('$name', ({ mask, input, caret, value, at, phone }) => {
    const got = conform(mask, input, caret ?? input.length, phone ? phoneOptions : {});
    expect(got.value).toBe(value);
    if (at !== undefined) expect(got.caret).toBe(at);
    // Conforming a conformed value changes nothing.
    expect(conform(mask, got.value, got.value.length, phone ? phoneOptions : {}).value).toBe(value);
  });

  const carets: { name: string; mask: string; input: string; caret: number; value: string; at: number }[] = [
    { name: 'digit typed in the middle of a phone', mask: PHONE_MASK, input: '514-5955-012', caret: 6, value: '514-595-5012', at: 6 },
    { name: 'digit typed before a separator', mask: PHONE_MASK, input: '5149-555-012', caret: 4, value: '514-955-5012', at: 5 },
    { name: 'refused character typed mid-value', mask: PHONE_MASK, input: '514-x555', caret: 5, value: '514-555', at: 4 },
    { name: 'postal letter typed at the start', mask: POSTAL_CODE_MASK, input: 'h2x 1y', caret: 1, value: 'H2X 1Y', at: 1 },
    { name: 'caret at 0 stays at 0', mask: PHONE_MASK, input: '5145550123', caret: 0, value: '514-555-0123', at: 0 },
  ];
  it.each(carets)('caret: $name', ({ mask, input, caret, value, at }) => {
    expect(conform(mask, input, caret)).toEqual({ value, caret: at });
  });
});

describe('slotCount', () => {
  it.each([
    [PHONE_MASK, 10],
    [POSTAL_CODE_MASK, 6],
    [QC_LICENCE, 13],
    [AB_LICENCE, 9],
    [NS_LICENCE, 14],
    [freeMask(8), 8],
    ['', 0],
  ])('%s has %d slots', (mask, n) => {
    expect(slotCount(mask)).toBe(n);
  });
});
