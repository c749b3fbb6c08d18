// Text helpers shared by the rules, written to give the same answers as
// internal/rules/text.go: Unicode's White_Space property (Go unicode.IsSpace),
// case changes of A-Z only (full Unicode case mapping differs between Go and
// JavaScript: ß, ﬁ, dotless i), lengths in code points (Go runes).

/** No rule examines more than this many UTF-8 bytes (Go MaxInputBytes). */
export const MAX_INPUT_BYTES = 1024;

/** UTF-8 length of s, as the server will receive it. */
export function utf8Length(s: string): number {
  let n = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

/** More than MAX_INPUT_BYTES; never walks more than that many units. */
export function tooLong(s: string): boolean {
  // Every UTF-16 unit is at least one UTF-8 byte.
  return s.length > MAX_INPUT_BYTES || utf8Length(s) > MAX_INPUT_BYTES;
}

/** A lone surrogate is what a JavaScript string has where Go sees invalid UTF-8. */
export function wellFormed(s: string): boolean {
  return !/\p{Cs}/u.test(s);
}

/** Whether a rule may examine s at all (Go usable). */
export function usable(s: string): boolean {
  return !tooLong(s) && wellFormed(s);
}

/** Trims White_Space from both ends (String.prototype.trim uses another set). */
export function trimSpace(s: string): string {
  return s.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, '');
}

/** Removes white space and dashes typed or inserted by masks between groups. */
export function stripSeparators(s: string): string {
  return s.replace(/[-\p{White_Space}]/gu, '');
}

/** Trims s and turns every run of white space inside it into one space. */
export function collapseSpaces(s: string): string {
  return trimSpace(s).replace(/\p{White_Space}+/gu, ' ');
}

export function upperAscii(s: string): string {
  return s.replace(/[a-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 32));
}

export function lowerAscii(s: string): string {
  return s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

/** Length in code points (Go utf8.RuneCountInString). */
export function codePoints(s: string): number {
  return [...s].length;
}
