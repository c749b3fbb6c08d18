// Test helpers of the console's tests: a fetch answering /api/console/v1 calls.
import { vi } from 'vitest';

export type Reply = { status: number; body?: unknown; headers?: Record<string, string> };
/** A route answers a call at once, or later (a promise: a test holds the answer behind a gate). */
export type Route = (method: string, path: string, body: unknown) => Reply | undefined | Promise<Reply | undefined>;
export type Call = { method: string; path: string; body: unknown };

/** A fetch that answers /api/console/v1 calls from `route` (404 NOT_FOUND otherwise) and records them. */
export function serve(route: Route): Call[] {
  const calls: Call[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = String(input).replace('/api/console/v1', '');
    const method = init?.method ?? 'GET';
    const text = init?.body ? String(init.body) : '';
    const body: unknown = text.startsWith('{') ? JSON.parse(text) : text || undefined;
    calls.push({ method, path, body });
    const reply = (await route(method, path, body)) ?? { status: 404, body: { errorCode: 'NOT_FOUND', messageKey: 'x' } };
    return new Response(reply.body === undefined ? '' : JSON.stringify(reply.body), { status: reply.status, headers: reply.headers });
  });
  vi.stubGlobal('fetch', fetchMock);
  return calls;
}

/** The seeded agent (README: agent@console.example serves belair and intact). */
export const agent = { id: '1', email: 'agent@console.example', name: 'Agent', role: 'agent', brands: ['belair', 'intact'], factorAt: '2026-01-01T00:00:00Z' };

export function at(path: string) {
  window.history.replaceState(null, '', path);
}

/** A promise held until release(): what a test awaits to see the page before an answer or a load. */
export function gate(): { passed: Promise<void>; release: () => void } {
  let release: () => void = () => undefined;
  const passed = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { passed, release };
}
