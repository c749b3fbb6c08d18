import { describe, expect, it } from 'vitest';
import { lookup } from './lookup';

describe('lookup', () => {
  const table: Record<string, string> = { NOT_FOUND: 'gone' };
  it.each([
    { key: 'NOT_FOUND', want: 'gone' },
    { key: 'OTHER', want: undefined },
    { key: 'toString', want: undefined },
    { key: '__proto__', want: undefined },
  ])('$key', ({ key, want }) => {
    expect(lookup(table, key)).toBe(want);
  });
});
