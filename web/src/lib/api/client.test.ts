import { describe, expect, it, vi } from 'vitest';
import { createMainClient, createSecondClient, ApiPathError } from './client';

function recordingFetch(response: () => Response) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch = vi.fn(async (url: RequestInfo | URL, init?: RequestInit) => {
    calls.push({ url: String(url), init: init ?? {} });
    return response();
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, calls };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

const site = () => ({ province: 'qc', language: 'fr', apiKey: 'key-1' });

describe('second client (/api/v1)', () => {
  it('sends province in upper case, language and X-API-KEY', async () => {
    const { fetch, calls } = recordingFetch(() => json(200, { brand: 'belair', province: 'qc', language: 'fr' }));
    const client = createSecondClient({ site, fetch });
    const answer = await client.request('get', '/welcome');
    expect(answer.status).toBe(200);
    expect(answer.data).toEqual({ brand: 'belair', province: 'qc', language: 'fr' });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.url).toBe('/api/v1/welcome');
    expect(calls[0]?.init.method).toBe('GET');
    expect(calls[0]?.init.headers).toMatchObject({ province: 'QC', language: 'fr', 'X-API-KEY': 'key-1' });
    expect(calls[0]?.init.headers).not.toHaveProperty('api-key');
    expect(calls[0]?.init.body).toBeUndefined();
  });

  it('adds maintenancePageBypass when the page has it', async () => {
    const { fetch, calls } = recordingFetch(() => json(200, {}));
    await createSecondClient({ site, fetch, maintenancePageBypass: () => 'yes please' }).request('get', '/welcome');
    expect(calls[0]?.url).toBe('/api/v1/welcome?maintenancePageBypass=yes+please');
  });

  it('reads the site at each request', async () => {
    let province = 'on';
    const { fetch, calls } = recordingFetch(() => json(200, {}));
    const client = createSecondClient({ site: () => ({ province, language: 'en', apiKey: 'k' }), fetch });
    await client.request('get', '/welcome');
    province = 'ab';
    await client.request('get', '/welcome');
    expect(calls.map((c) => (c.init.headers as Record<string, string>).province)).toEqual(['ON', 'AB']);
  });
});

describe('main client (/api/v2)', () => {
  // No /api/v2 operation is in the contract yet; the client's plumbing is
  // the same for every path, so these go through an untyped view of it.
  type Loose = { request: (method: string, path: string, options?: object) => ReturnType<ReturnType<typeof createMainClient>['request']> };
  const loose = (fetch: typeof globalThis.fetch) => createMainClient({ site, fetch }) as unknown as Loose;

  it('sends api-key, JSON bodies and fills path parameters', async () => {
    const { fetch, calls } = recordingFetch(() => json(240, { id: 'a1' }));
    const answer = await loose(fetch).request('post', '/accounts/{id}/create', {
      params: { id: 'a/1' },
      body: { password: 'x' },
      headers: { 'x-registration-session': 't1' },
    });
    expect(answer.status).toBe(240);
    expect(answer.data).toEqual({ id: 'a1' });
    expect(calls[0]?.url).toBe('/api/v2/accounts/a%2F1/create');
    expect(calls[0]?.init.method).toBe('POST');
    expect(calls[0]?.init.body).toBe('{"password":"x"}');
    expect(calls[0]?.init.headers).toMatchObject({
      province: 'QC',
      language: 'fr',
      'api-key': 'key-1',
      'Content-Type': 'application/json',
      'x-registration-session': 't1',
    });
    expect(calls[0]?.init.headers).not.toHaveProperty('X-API-KEY');
  });

  it('answers errors as data, never throws on a status', async () => {
    const { fetch } = recordingFetch(() => json(403, { errorCode: '3001', messageKey: 'error.block' }));
    const answer = await loose(fetch).request('get', '/registration');
    expect(answer).toMatchObject({ status: 403, data: { errorCode: '3001', messageKey: 'error.block' } });
  });

  it.each([
    { name: 'no body', response: () => new Response(null, { status: 201 }) },
    { name: 'not JSON', response: () => new Response('<html>', { status: 500, headers: { 'Content-Type': 'text/html' } }) },
    { name: 'broken JSON', response: () => new Response('{', { status: 200, headers: { 'Content-Type': 'application/json' } }) },
  ])('reads $name as an undefined body', async ({ response }) => {
    const { fetch } = recordingFetch(response);
    expect((await loose(fetch).request('get', '/x')).data).toBeUndefined();
  });

  it('refuses a path parameter it was not given', async () => {
    const { fetch, calls } = recordingFetch(() => json(200, {}));
    await expect(loose(fetch).request('get', '/accounts/{id}')).rejects.toThrow(ApiPathError);
    expect(calls).toHaveLength(0);
  });
});
