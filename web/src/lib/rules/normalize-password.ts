/**
 * The form of a password that is hashed and compared (Go NormalizePassword):
 * NFC, leading white space removed, every run of spaces collapsed to one
 * (spec §5). Sign-up, reset and login all send it.
 */
export function normalizePassword(s: string): string {
  return s.normalize('NFC').replace(/^\p{White_Space}+/u, '').replace(/ {2,}/g, ' ');
}
