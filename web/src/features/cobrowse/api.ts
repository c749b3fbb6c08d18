// The visitor's co-browse calls (issue 18, docs/cobrowse.md): through the
// portal's /api/v1 client (api key, province and language headers). The
// session itself is the HttpOnly guichet-cobrowse cookie the server sets on
// Accept.

import type { ApiClient } from '@/lib/api/client';
import type { components } from '@/lib/api/schema';

export type CobrowseSession = components['schemas']['CobrowseSession'];
export type CobrowseStateFrame = components['schemas']['CobrowseStateFrame'];
export type CobrowseServerFrame = components['schemas']['CobrowseVisitorServerFrame'];
export type CobrowseClientFrame = components['schemas']['CobrowseClientFrame'];

type Client = ApiClient<'/api/v1'>;

/** A call's outcome: ok, or the server's errorCode ('NETWORK' when it could not be reached). */
export type Outcome<T> = { ok: true; data: T } | { ok: false; status: number; errorCode: string };

async function run<T>(call: () => Promise<{ status: number; data: unknown }>): Promise<Outcome<T>> {
  try {
    const answer = await call();
    if (answer.status >= 200 && answer.status < 300) return { ok: true, data: answer.data as T };
    const data = answer.data;
    const code = data && typeof data === 'object' && 'errorCode' in data ? String((data as { errorCode: unknown }).errorCode) : '';
    return { ok: false, status: answer.status, errorCode: code || `HTTP_${answer.status}` };
  } catch {
    return { ok: false, status: 0, errorCode: 'NETWORK' };
  }
}

export function cobrowseApi(client: Client) {
  return {
    /** The footer link's Accept: a waiting session and its code. */
    start: () => run<CobrowseSession>(() => client.request('post', '/cobrowse/sessions', { body: {} })),
    /** The answer to an agent's request in chat. */
    consent: (id: string, accept: boolean) =>
      run<CobrowseSession>(() => client.request('post', '/cobrowse/sessions/{id}/consent', { params: { id }, body: { accept } })),
    /** The cookie's session (after a reload); NO_COBROWSE when none. */
    current: () => run<CobrowseSession>(() => client.request('get', '/cobrowse/session')),
    end: () => run<CobrowseSession>(() => client.request('post', '/cobrowse/session/end')),
  };
}

export type CobrowseApi = ReturnType<typeof cobrowseApi>;

/** ws(s)://<this host>/api/v1/cobrowse/socket */
export function cobrowseSocketUrl(location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/api/v1/cobrowse/socket`;
}
