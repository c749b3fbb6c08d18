// Tests only: a stand-in for the server's routes behind fetch.
import { vi } from 'vitest';

/** A JSON answer. */
export const json = (status: number, body?: unknown, headers: Record<string, string> = {}) =>
  new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

export interface Call {
  method: string;
  url: string;
  /** The URL's path, without its query. */
  path: string;
  body: unknown;
  headers: Record<string, string>;
}

/** Answers fetch from `routes` ("METHOD /path"; 404 NOT_FOUND otherwise) and records every call. */
export function fakeServer(routes: Record<string, () => Response>): Call[] {
  const calls: Call[] = [];
  const fetch = vi.fn(async (url: RequestInfo | URL, init?: RequestInit) => {
    const method = init?.method ?? 'GET';
    const path = String(url).split('?')[0] ?? '';
    calls.push({ method, url: String(url), path, body: init?.body ? JSON.parse(String(init.body)) : undefined, headers: (init?.headers ?? {}) as Record<string, string> });
    const route = routes[`${method} ${path}`];
    return route ? route() : json(404, { errorCode: 'NOT_FOUND' });
  });
  vi.stubGlobal('fetch', fetch);
  return calls;
}
