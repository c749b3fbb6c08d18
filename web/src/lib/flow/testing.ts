import { vi } from 'vitest';

// Unit-test support: a fake Guichet API behind window.fetch, answering by
// "METHOD /path" (the path as the client sends it, query string dropped).

export interface FakeAnswer {
  status: number;
  body?: unknown;
  /** Response headers besides Content-Type (a 429's Retry-After). */
  headers?: Record<string, string>;
}

export interface FakeCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

export type FakeRoutes = Record<string, FakeAnswer | ((call: FakeCall) => FakeAnswer)>;

/** Stubs fetch with the routes; a route not listed answers 404. Returns the calls made, in order. */
export function fakeApi(routes: FakeRoutes): FakeCall[] {
  const calls: FakeCall[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const call: FakeCall = {
        method: (init.method ?? 'GET').toUpperCase(),
        path: new URL(url, 'http://belair.localhost').pathname,
        headers: (init.headers ?? {}) as Record<string, string>,
        body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
      };
      calls.push(call);
      const route = routes[`${call.method} ${call.path}`];
      const answer = typeof route === 'function' ? route(call) : (route ?? { status: 404, body: { errorCode: 'NOT_FOUND' } });
      const body = answer.body === undefined ? null : JSON.stringify(answer.body);
      const headers: Record<string, string> = {
        ...(answer.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...answer.headers,
      };
      return new Response(body, { status: answer.status, headers });
    }),
  );
  return calls;
}
