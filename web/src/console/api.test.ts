import { afterEach, describe, expect, it } from 'vitest';
import { call, consoleUrl } from '@/console/api';
import { serve } from '@/console/testing';

describe('consoleUrl', () => {
  it('is the address of a GET, parameters filled in', () => {
    expect(consoleUrl('/cobrowse/sessions/{id}/socket', { params: { id: 's 1' }, query: { after: '4' } })).toBe(
      '/api/console/v1/cobrowse/sessions/s%201/socket?after=4',
    );
  });
});

describe('call', () => {
  afterEach(() => {
    window.history.replaceState(null, '', '/');
  });

  it('fills path parameters, encoded, and sends the query and the JSON body', async () => {
    const calls = serve(() => ({ status: 200, body: { ok: true } }));
    await call('post', '/chat/conversations/{id}/transfer', { params: { id: 'a/b c' }, body: { staffId: '7' } });
    await call('get', '/customers', { query: { q: 'dupont', brand: 'belair' } });
    expect(calls).toEqual([
      { method: 'POST', path: '/chat/conversations/a%2Fb%20c/transfer', body: { staffId: '7' } },
      { method: 'GET', path: '/customers?q=dupont&brand=belair', body: undefined },
    ]);
  });

  it('sends a raw body as is', async () => {
    const calls = serve(() => ({ status: 200, body: { dryRun: true, errors: [] } }));
    const answer = await call('post', '/policies/import', { query: { dryRun: 'true' }, raw: { type: 'text/csv', text: 'a,b' } });
    expect(calls).toEqual([{ method: 'POST', path: '/policies/import?dryRun=true', body: 'a,b' }]);
    expect(answer.data?.dryRun).toBe(true);
  });
});

// The contract checks the calls at compile time (tsc -b): each line below
// must fail to compile, or @ts-expect-error fails the build. Never run.
export function refusedByTheContract() {
  // @ts-expect-error no such path
  void call('get', '/customer');
  // @ts-expect-error no such method on the path
  void call('delete', '/customers');
  // @ts-expect-error the path's parameter is missing
  void call('get', '/customers/{id}');
  // @ts-expect-error a body the operation does not declare
  void call('post', '/chat/conversations/{id}/reply', { params: { id: '1' }, body: { text: 'hi' } });
  // @ts-expect-error the body is required
  void call('post', '/session');
  // @ts-expect-error a query parameter the operation does not declare
  void call('get', '/customers', { query: { name: 'x' } });
  // @ts-expect-error a link or a socket is a GET: /session/totp has none
  void consoleUrl('/session/totp');
  // @ts-expect-error the answer is the operation's: a staff list has no customers
  void call('get', '/staff').then((answer) => answer.data?.customers);
}
