// Policy numbers arrive as letters and digits; the brand's mask (brand file,
// e.g. AAA-AAAA) says where its separators go. A, 9, X, * and _ hold a
// character; anything else is shown as is.
const SLOT = /[A9X*_]/;

/** The number written with the mask, or as it came when it does not fit the mask. */
export function formatPolicyNumber(number: string, mask: string): string {
  const slots = [...mask].filter((c) => SLOT.test(c)).length;
  if (slots === 0 || number.length !== slots) return number;
  let next = 0;
  return [...mask].map((c) => (SLOT.test(c) ? number[next++] : c)).join('');
}
