import { readCookies, SIX_MONTHS_SECONDS } from '@/lib/site/cookies';

// The sign-in cookies of spec §3 and §9 (docs/architecture.md "Cookies"):
// `email`, the remembered email (6 months, cleared when 'remember me' is
// unticked), and `pkms`, the account id handed to the web SSO round trip and
// the locked-account roadblock (20 seconds).

/** Spec §9: the account-id cookie lives 20 seconds. */
export const PKMS_SECONDS = 20;

type FlowCookie = 'email' | 'pkms';

function write(name: FlowCookie, value: string, maxAgeSeconds: number, doc: Document): void {
  const secure = doc.location?.protocol === 'https:' ? '; Secure' : '';
  doc.cookie = `${name}=${encodeURIComponent(value)}; Max-Age=${maxAgeSeconds}; Path=/; SameSite=Lax${secure}`;
}

/** The remembered email, or '' when none is. */
export function rememberedEmail(doc: Document = document): string {
  return readCookies(doc).email ?? '';
}

/** Spec §2.2 'remember me': keeps the email for 6 months when ticked, forgets it when not. */
export function rememberEmail(email: string | null, doc: Document = document): void {
  if (email) write('email', email, SIX_MONTHS_SECONDS, doc);
  else write('email', '', 0, doc);
}

/** Sets the pkms cookie to the account id for 20 seconds. */
export function setPkmsAccount(accountId: string, doc: Document = document): void {
  write('pkms', accountId, PKMS_SECONDS, doc);
}

/** The account id of the pkms cookie, or '' once it has expired. */
export function pkmsAccount(doc: Document = document): string {
  return readCookies(doc).pkms ?? '';
}
