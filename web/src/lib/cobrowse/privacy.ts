// What a co-browsing agent may see (issue 26): the ONE list. Everything the
// consent dialog promises is generated from it (features/cobrowse/dialogs.tsx,
// its texts in the `cobrowse` message section), and the recorder's options
// come from it (features/cobrowse/recorder.ts), so the promise and the code
// cannot drift apart.
//
// The agent sees the page's structure and its public text: headings, labels,
// buttons, links, the portal's own messages. Never:
// - a value typed or chosen in any field, whatever its type (hidden
//   included): every value leaves as the fixed mask INPUT_MASK;
// - a value that belongs to the customer: the component that renders it
//   marks it with data-private="<kind>" (privateMark); rrweb blocks the
//   element (an empty box of its size, no text, no attribute) and ignores
//   its changes. PrivateKind is a type, so a component can only mark a kind
//   this list (and therefore the dialog) names;
// - a secret the portal holds but never displays (the sign-in post's
//   password and one-time ticket): it is never an element of the page at all
//   (lib/flow/sso-form.ts adds the fields to the post in its formdata event).
//
// This module is in the portal's first JavaScript (the form components mark
// their values), so it holds names only; the texts live in the lazy section.

/** The attribute that marks an element whose content belongs to the customer. */
export const PRIVATE_ATTRIBUTE = 'data-private';

/** What a masked field's value is replaced by, whatever its length (the server accepts nothing else). */
export const INPUT_MASK = '••••••';

/** The customer's values, as the dialog names them. Each kind is marked where it is rendered. */
export const PRIVATE_KINDS = {
  /** Who the customer is. */
  identity: ['name', 'email', 'address', 'phone', 'dateOfBirth', 'postalCode', 'driverLicence'],
  /** Their contracts. */
  policies: ['policyNumber'],
  /** What proves who they are. */
  secrets: ['password', 'securityCode', 'pin', 'pinLetter', 'signInTicket'],
} as const;

export type PrivateGroup = keyof typeof PRIVATE_KINDS;
export type PrivateKind = (typeof PRIVATE_KINDS)[PrivateGroup][number];

/** The dialog's "will see" lines, in order. */
export const AGENT_SEES = ['pages', 'publicText', 'pointer'] as const;
/** The dialog's "will never see" lines, in order: the private groups, then what is outside the recording. */
export const AGENT_NEVER_SEES = ['typing', 'identity', 'policies', 'secrets', 'outside', 'control'] as const;

/** The props that mark an element as the customer's: spread them on the element that renders the value. */
export function privateMark(kind: PrivateKind): { 'data-private': PrivateKind } {
  return { [PRIVATE_ATTRIBUTE]: kind } as { 'data-private': PrivateKind };
}

/** Every private kind, in the list's order. */
export function privateKinds(): PrivateKind[] {
  return Object.values(PRIVATE_KINDS).flat();
}
