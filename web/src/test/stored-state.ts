import { describe, expect, it } from 'vitest';

/** What a tab may have left in sessionStorage that is no stored state at all: every parser reads it as its initial value. */
const garbage = [null, '', 'not json', '[1]', '[1,2]', '"text"'];

/**
 * The table of a stored-state parser (the flow state, the reset progress):
 * the garbage and the given raw values that fall back to the initial value,
 * then what each readable raw value gives.
 */
export function describeParse<T>(
  name: string,
  parse: (raw: string | null) => T,
  initial: T,
  cases: { raw: string; expected?: T }[],
): void {
  describe(name, () => {
    const table: { raw: string | null; expected?: T }[] = [...garbage.map((raw) => ({ raw })), ...cases];
    it.each(table)('$raw', ({ raw, expected }) => {
      expect(parse(raw)).toEqual(expected ?? initial);
    });
  });
}
