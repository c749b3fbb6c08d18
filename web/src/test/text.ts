/**
 * A text matcher for a sentence that holds a customer's value: the value is
 * its own element (Private, lib/cobrowse/privacy.ts), so the sentence is
 * split; this matches the innermost element whose whole text matches.
 */
export function fullText(expected: string | RegExp) {
  const matches = (text: string) => (typeof expected === 'string' ? text === expected : expected.test(text));
  return (_content: string, element: Element | null) =>
    Boolean(element) && matches(element!.textContent ?? '') && ![...element!.children].some((child) => matches(child.textContent ?? ''));
}
