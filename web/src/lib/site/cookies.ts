// Cookies the portal shares with the server (docs/architecture.md, spec §3, §9).

/** Six months (180 days), the lifetime of the province, language and email cookies. */
export const SIX_MONTHS_SECONDS = 15_552_000;

export type SiteCookie = 'province' | 'language';

/** Writes a first-party cookie readable by the server on the next request. */
export function writeCookie(
  name: SiteCookie,
  value: string,
  maxAgeSeconds = SIX_MONTHS_SECONDS,
  doc: Document = document,
): void {
  const secure = doc.location?.protocol === 'https:' ? '; Secure' : '';
  doc.cookie = `${name}=${encodeURIComponent(value)}; Max-Age=${maxAgeSeconds}; Path=/; SameSite=Lax${secure}`;
}

/** Parses document.cookie; a malformed pair is skipped. */
export function readCookies(doc: Document = document): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const pair of doc.cookie.split(';')) {
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq).trim();
    if (eq < 0 || !name) continue;
    try {
      cookies[name] = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      // A value that is not valid percent-encoding is not ours; ignore it.
    }
  }
  return cookies;
}
