// Input masks of spec §5 (phone 999-999-9999, postal code A9A 9A9, policy
// number and driver licence from the brand file). Slot characters are those
// of the rules (lib/rules/policy-number.ts): A a letter, 9 a digit, X * _ a
// letter or a digit; any other character is a literal shown between groups.
// Letters are upper-cased as typed; anything that is not a letter or digit is
// dropped, so a value pasted with or without its separators comes out the same.

import { lookup } from '@/lib/lookup';

export const PHONE_MASK = '999-999-9999';
export const POSTAL_CODE_MASK = 'A9A 9A9';

const SLOTS: Record<string, RegExp> = {
  A: /[A-Z]/,
  '9': /[0-9]/,
  X: /[A-Z0-9]/,
  '*': /[A-Z0-9]/,
  _: /[A-Z0-9]/,
};

function slot(c: string | undefined): RegExp | undefined {
  return c === undefined ? undefined : lookup(SLOTS, c);
}

/** Whether a mask character stands for a typed character. */
export function isSlot(c: string): boolean {
  return slot(c) !== undefined;
}

/** Number of typed characters the mask holds. */
export function slotCount(mask: string): number {
  return [...mask].filter(isSlot).length;
}

export interface Conformed {
  value: string;
  /** Where the caret goes: after the last kept character typed before the old caret, and past a separator after it. */
  caret: number;
}

export interface ConformOptions {
  /** How many leading letters or digits to drop, given all of them (phone: a leading country code 1). */
  skipLeading?: (chars: string) => number;
}

/**
 * Fits input into mask. The letters and digits of input fill the slots in
 * order, upper-cased (ASCII); one that a slot refuses is dropped, as is
 * whatever no longer fits. A literal is written only when a character follows
 * it. caret is the caret position in input; the result's caret is the
 * matching position in the value.
 */
export function conform(mask: string, input: string, caret = input.length, options: ConformOptions = {}): Conformed {
  const chars: { c: string; at: number }[] = [];
  for (let at = 0; at < input.length; at++) {
    const c = (input[at] ?? '').replace(/[a-z]/, (l) => l.toUpperCase());
    if (/[A-Z0-9]/.test(c)) chars.push({ c, at });
  }
  const skip = options.skipLeading?.(chars.map((ch) => ch.c).join('')) ?? 0;
  let value = '';
  let outCaret = 0;
  let literals = 0; // how many of the value's characters, from its end, are a literal that follows the caret
  let next = 0; // position in mask
  for (const { c, at } of chars.slice(skip)) {
    let literal = '';
    let p = next;
    while (p < mask.length && !isSlot(mask[p] ?? '')) literal += mask[p++];
    const accept = slot(mask[p]);
    if (!accept) break; // the mask is full
    if (!accept.test(c)) continue;
    if (at >= caret && outCaret === value.length) literals = literal.length;
    value += literal + c;
    next = p + 1;
    if (at < caret) outCaret = value.length;
  }
  // The caret goes past a separator that follows it, as a visitor reads it:
  // "514-|555" stays there after a refused character, not "514|-555".
  return { value, caret: outCaret + literals };
}

/** The phone mask drops the country code of a pasted +1 514 555-0123. */
export const phoneOptions: ConformOptions = {
  skipLeading: (chars) => (chars.length === 11 && chars.startsWith('1') ? 1 : 0),
};

/** Letters or digits with no separators, up to length (the generic licence rule, a PIN). */
export function freeMask(length: number): string {
  return 'X'.repeat(Math.max(0, length));
}
