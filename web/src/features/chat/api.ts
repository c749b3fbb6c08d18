// The visitor's chat calls (issue 17): through the portal's /api/v1 client,
// so they carry the api key, province and language headers like every call.
// The conversation itself is the HttpOnly guichet-chat cookie the server set.

import type { ApiClient } from '@/lib/api/client';
import type { components } from '@/lib/api/schema';

export type ChatConfig = components['schemas']['ChatConfig'];
export type ChatState = components['schemas']['ChatState'];
export type Conversation = components['schemas']['ChatConversation'];

type Client = ApiClient<'/api/v1'>;

/** A call's outcome: ok, or the server's errorCode ('NETWORK' when it could not be reached). */
export type Outcome<T = undefined> = { ok: true; data: T } | { ok: false; status: number; errorCode: string };

function errorOf(status: number, data: unknown): Outcome<never> {
  const code = data && typeof data === 'object' && 'errorCode' in data ? String((data as { errorCode: unknown }).errorCode) : '';
  return { ok: false, status, errorCode: code || `HTTP_${status}` };
}

async function run<T>(call: () => Promise<{ status: number; data: unknown }>, okStatus: (s: number) => boolean): Promise<Outcome<T>> {
  try {
    const answer = await call();
    if (okStatus(answer.status)) return { ok: true, data: answer.data as T };
    return errorOf(answer.status, answer.data);
  } catch {
    return { ok: false, status: 0, errorCode: 'NETWORK' };
  }
}

const is2xx = (s: number) => s >= 200 && s < 300;

export interface ConfigAnswer {
  config: ChatConfig;
  /** The server's clock when it answered (chat.now; GUICHET_DEV_NOW's in dev), for 'today' and 'tomorrow'. */
  serverNow: Date;
}

export function chatApi(client: Client) {
  return {
    async config(): Promise<Outcome<ConfigAnswer>> {
      try {
        const answer = await client.request('get', '/salesforceConfig');
        if (answer.status !== 200 || !answer.data || !('chat' in answer.data)) return errorOf(answer.status, answer.data);
        const now = Date.parse(answer.data.chat.now ?? '');
        return { ok: true, data: { config: answer.data, serverNow: new Date(Number.isNaN(now) ? Date.now() : now) } };
      } catch {
        return { ok: false, status: 0, errorCode: 'NETWORK' };
      }
    },
    /** The cookie's conversation (after a reload or in a new tab); NO_CONVERSATION when none. */
    current: () => run<Conversation>(() => client.request('get', '/chat/conversation'), (s) => s === 200),
    start: (body: { name: string; topic: string; page: string; roadblock?: string }) =>
      run<Conversation>(() => client.request('post', '/chat/conversations', { body }), is2xx),
    offline: (body: { name: string; email: string; question: string; page: string; roadblock?: string }) =>
      run(() => client.request('post', '/chat/offline', { body }), is2xx),
    handover: () => run(() => client.request('post', '/chat/conversation/handover'), is2xx),
    end: () => run(() => client.request('post', '/chat/conversation/end'), is2xx),
    transcript: (email: string) => run(() => client.request('post', '/chat/conversation/transcript', { body: { email } }), is2xx),
    rating: (rating: number) => run(() => client.request('post', '/chat/conversation/rating', { body: { rating } }), is2xx),
  };
}

export type ChatApi = ReturnType<typeof chatApi>;

/** ws(s)://<this host>/api/v1/chat/socket?after=N */
export function visitorSocketUrl(after: number, location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/api/v1/chat/socket?after=${after}`;
}

/** The roadblock the visitor is on (spec §2.6: /roadblock is the technical one), or undefined. */
export function roadblockOf(path: string): string | undefined {
  const m = /^\/roadblock(?:\/([\w-]+))?\/?$/.exec(path);
  if (!m) return undefined;
  return m[1] ?? 'technical';
}
