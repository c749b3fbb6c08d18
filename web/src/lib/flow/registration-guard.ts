// The flow guards of spec §2.4: a legacy registration page (and the
// no-options and pin-difficulties roadblocks) opens only when the visitor
// arrived from an allowed previous page; otherwise / with the query string.
// Shared by the registration feature and the roadblock group.

export const REGISTRATION = '/registration';

/** The pages of legacy registration, by their path under /registration. */
export const REGISTRATION_PAGES = [
  'identification',
  'validation',
  'validation/sms',
  'validation/email',
  'validation/pin',
  'account-creation/email',
  'account-creation/new-email',
  'account-creation/password',
  'password-validation',
  'email-sent',
  'link',
  'confirm-email',
] as const;

export type RegistrationPage = (typeof REGISTRATION_PAGES)[number];

/** A guarded page: a registration page or one of the two roadblocks of the table. */
export type GuardedPage = RegistrationPage | 'roadblock/no-options' | 'roadblock/pin-difficulties';

export const registrationPath = (page: RegistrationPage): string => `${REGISTRATION}/${page}`;

const ALL_VALIDATION: RegistrationPage[] = ['validation', 'validation/sms', 'validation/email', 'validation/pin'];

/**
 * Spec §2.4's table, row by row: the previous pages each page allows.
 * "validation" in a row's list stands for the validation step, the choice
 * and its code pages (a code is typed on validation/sms, /email or /pin, and
 * its success goes to account-creation/password, the table's "password |
 * validation"); "email" in the code pages' rows is validation/email;
 * "account-creation password/email/new-email" are those three pages.
 * Pages the table does not list (identification, password-validation,
 * email-sent, link, an emailed magic link's entry, and confirm-email, the
 * entry of the link an email submission sent) have no row; the route
 * checks the arrival conditions of email-sent and link (needsRegistration,
 * hasLinkToken); confirm-email carries its own proof (the link's token).
 */
export const GUARD_TABLE: Partial<Record<GuardedPage, readonly RegistrationPage[]>> = {
  validation: ['identification', 'validation/sms', 'validation/email', 'validation/pin'],
  'validation/sms': [
    'identification',
    ...ALL_VALIDATION,
    'account-creation/password',
    'account-creation/email',
    'account-creation/new-email',
  ],
  'validation/pin': ['identification', ...ALL_VALIDATION, 'account-creation/password', 'account-creation/email'],
  'validation/email': ['identification', ...ALL_VALIDATION, 'account-creation/password', 'account-creation/new-email'],
  'account-creation/email': ['validation/email'],
  'account-creation/new-email': ['account-creation/password', 'validation/email'],
  'account-creation/password': ALL_VALIDATION,
  'roadblock/no-options': ALL_VALIDATION,
  'roadblock/pin-difficulties': ALL_VALIDATION,
};

/**
 * The moves of spec §4.2 that the table leaves out, allowed as well (else
 * the flow §4.2 describes would end at /):
 * - identification with a single ask-email option goes to account-creation/email,
 *   with no option at all to the no-options roadblock;
 * - a code or PIN answered 240 ask-email goes to account-creation/email,
 *   ask-username to new-email;
 * - an email submitted on account-creation/email answered ask-email-code
 *   goes to validation/email;
 * - an email token's action (spec §4.2 token routing, read on link)
 *   goes to new-email (ask-username) or account-creation/password
 *   (default-password-register);
 * - an email proved by link (202, email-sent; the link opens
 *   confirm-email) goes on as a code would: account-creation/password, or
 *   new-email when the email was taken meanwhile.
 */
export const FLOW_ADDITIONS: Partial<Record<GuardedPage, readonly RegistrationPage[]>> = {
  'account-creation/email': ['identification', 'validation/sms', 'validation/pin'],
  'account-creation/new-email': ['validation/sms', 'validation/pin', 'link', 'confirm-email'],
  'account-creation/password': ['link', 'confirm-email'],
  'validation/email': ['account-creation/email'],
  'roadblock/no-options': ['identification'],
};

/** The registration page of a path, or null. */
export function registrationPageOf(path: string | null): RegistrationPage | null {
  if (path === null || !path.startsWith(`${REGISTRATION}/`)) return null;
  const rest = path.slice(REGISTRATION.length + 1).replace(/\/$/, '');
  return (REGISTRATION_PAGES as readonly string[]).includes(rest) ? (rest as RegistrationPage) : null;
}

/**
 * /webseal.do routes an email token too (spec §8.5 0x00000000 with a token
 * held: GET tokens/{token} without src), to the pages link may open.
 */
export const WEBSEAL = '/webseal.do';

/** Whether `page` may open after the page at path `from` (null: none, the page was opened directly). */
export function mayOpen(page: GuardedPage, from: string | null): boolean {
  const allowed = GUARD_TABLE[page];
  if (!allowed) return true;
  if (from !== null && from.replace(/(.)\/$/, '$1') === WEBSEAL) return (FLOW_ADDITIONS[page] ?? []).includes('link');
  const previous = registrationPageOf(from);
  if (previous === null) return false;
  return allowed.includes(previous) || (FLOW_ADDITIONS[page] ?? []).includes(previous);
}

/**
 * The arrival conditions beside the table. Every page past identification
 * needs a registration under way (an id from identification or from an
 * email token's read): email-sent too, which confirms an email submitted
 * for one. The link's entry starts one instead, from the emailed link's
 * token: it needs that token in the address. confirm-email, an email-proof
 * link's entry, names its registration in the link itself.
 */
export function needsRegistration(page: RegistrationPage): boolean {
  return page !== 'identification' && page !== 'link' && page !== 'confirm-email';
}

/** Whether the address of /registration/link carries a token (an emailed link's), the query string given with or without its "?". */
export function hasLinkToken(search: string): boolean {
  return (new URLSearchParams(search.replace(/^\?/, '')).get('token') ?? '') !== '';
}

/** Where a refused page goes: / keeping the query string. */
export function guardRedirect(search: string): string {
  const query = search.replace(/^\?/, '');
  return query ? `/?${query}` : '/';
}
