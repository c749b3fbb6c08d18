// Spec §2.5 and §4.1 as pure functions: the pages of smart registration,
// the session token's step and page (read from the token the server signs;
// the browser decodes it and verifies nothing: the server trusts only its
// own signature), where an answer leads, and the guarded route's check.

export const SMART = '/create-an-account';

export const SMART_PATHS = {
  accountType: `${SMART}/identification/account-type`,
  accountTypeHelp: `${SMART}/identification/account-type-help`,
  identification: `${SMART}/identification`,
  verifyOptions: `${SMART}/verify/options`,
  verifyCode: `${SMART}/verify/code`,
  verifyEmail: `${SMART}/verify/email`,
  create: `${SMART}/account-creation/create`,
  createShort: `${SMART}/create`,
  confirmation: `${SMART}/confirmation`,
  identityVerification: `${SMART}/identity-verification`,
  pinIdentification: `${SMART}/pin-identification`,
  unavailableOption: `${SMART}/unavailable-option`,
  unableToIdentify: `${SMART}/unable-to-identify`,
  unableToIdentifyRoadblock: `${SMART}/roadblock/unable-to-identify`,
} as const;

export type SmartPage = keyof typeof SMART_PATHS;

/** Legacy registration, where REDIRECT hands over (spec §4.1). */
export const LEGACY_IDENTIFICATION = '/registration/identification';

export const STEPS = ['ACCOUNT_TYPE_SELECTION', 'IDENTIFY', 'VERIFY', 'CONFIRM_USERNAME', 'ASK_NEW_USERNAME', 'CREATE', 'REDIRECT', 'DONE'] as const;
export type Step = (typeof STEPS)[number];

export interface Session {
  step: Step;
  page: string;
}

/** The header every answer carries and every request after the first sends back. */
export const SESSION_HEADER = 'x-registration-session';

/** The smart page a path shows, or null (a trailing slash is ignored). */
export function smartPageOf(path: string): SmartPage | null {
  const bare = path.length > 1 ? path.replace(/\/$/, '') : path;
  const found = (Object.entries(SMART_PATHS) as [SmartPage, string][]).find(([, p]) => p === bare);
  return found ? found[0] : null;
}

function base64UrlDecode(part: string): string | null {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) return null;
  const base64 = part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '=');
  try {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** The step and page of a session token (a JWT's payload, base64url JSON); null when it is not one. */
export function decodeSession(token: string | null | undefined): Session | null {
  if (!token) return null;
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return null;
  const json = base64UrlDecode(parts[1]);
  if (json === null) return null;
  let claims: unknown;
  try {
    claims = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof claims !== 'object' || claims === null) return null;
  const { step, page } = claims as Record<string, unknown>;
  if (typeof step !== 'string' || !(STEPS as readonly string[]).includes(step) || typeof page !== 'string') return null;
  return { step: step as Step, page };
}

/**
 * Where an answer's session leads (spec §4.1): REDIRECT to legacy
 * registration; VERIFY to the options unless the token names the code page
 * (a code was sent); DONE to the confirmation; the other steps to the page
 * the token names. null: a page this app does not have (the technical
 * roadblock).
 */
export function nextPath(session: Session): string | null {
  switch (session.step) {
    case 'REDIRECT':
      return LEGACY_IDENTIFICATION;
    case 'DONE':
      return SMART_PATHS.confirmation;
    case 'VERIFY':
      return session.page === SMART_PATHS.verifyCode ? SMART_PATHS.verifyCode : SMART_PATHS.verifyOptions;
    case 'ACCOUNT_TYPE_SELECTION':
      return SMART_PATHS.accountType;
  }
  return smartPageOf(session.page) === null ? null : session.page;
}

/** The pages that show a step of the session (the guarded route); the others open without one. */
export const GUARDED: ReadonlySet<SmartPage> = new Set(['identification', 'verifyOptions', 'verifyCode', 'verifyEmail', 'create', 'createShort']);

/**
 * The guarded route (spec §2.5): a step page opens only when the session's
 * page is this one; the code page also while the step is VERIFY; the create
 * page under both of its addresses.
 */
export function mayShow(page: SmartPage, session: Session | null): boolean {
  if (!GUARDED.has(page)) return true;
  if (!session) return false;
  const path = page === 'createShort' ? SMART_PATHS.create : SMART_PATHS[page];
  if (session.page === path) return true;
  return page === 'verifyCode' && session.step === 'VERIFY';
}

/** Where a refused page goes: the account type, keeping the query string. */
export function accountTypeTarget(search: string): string {
  const query = search.replace(/^\?/, '');
  return query ? `${SMART_PATHS.accountType}?${query}` : SMART_PATHS.accountType;
}
