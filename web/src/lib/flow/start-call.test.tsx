import { act, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSecondClient } from '@/lib/api/client';
import { maintenancePageBypass } from '@/lib/api/use-api';
import { renderApp } from '@/test/render';
import { where } from '@/test/page';
import { belair, siteConfig } from '@/test/site-fixture';
import { startCall } from './start-call';
import { readFlow } from './state';
import { fakeApi, type FakeAnswer } from './testing';

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

/** The app open on the login page, then the start call answered as main.tsx makes it. */
async function start(welcome: FakeAnswer | 'network') {
  if (welcome === 'network') {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('offline'))));
  } else {
    fakeApi({ 'GET /api/v1/welcome': welcome });
  }
  await renderApp(siteConfig({ brand: belair }), '/');
  const client = createSecondClient({ site: () => ({ province: 'on', language: 'en', apiKey: belair.apiKey }), maintenancePageBypass });
  let acted = false;
  await act(async () => {
    acted = await startCall(() => client.request('get', '/welcome'));
  });
  return acted;
}

describe('the start call (spec §7 GET api/v1/welcome)', () => {
  it.each([503, 530])('%i: the maintenance roadblock with the phone number, the roadblocked flag set', async (status) => {
    expect(await start({ status, body: { errorCode: 'MAINTENANCE', messageKey: 'error.maintenance' } })).toBe(true);
    expect(where()).toBe('/roadblock/maintenance');
    expect(readFlow().roadblocked).toBe(true);
    expect(await screen.findByRole('heading', { level: 1, name: 'Our site is under maintenance' })).toBeTruthy();
    const card = screen.getByRole('region', { name: 'Call us' });
    expect(within(card).getByRole('link', { name: '1 833-000-0102' })).toBeTruthy();
  });

  it.each([
    { name: '200', answer: { status: 200, body: { brand: 'belair', province: 'on', language: 'en' } } },
    { name: '403', answer: { status: 403, body: { errorCode: 'INVALID_API_KEY' } } },
    { name: '500', answer: { status: 500, body: {} } },
    { name: 'a network failure', answer: 'network' as const },
  ])('$name is ignored: the login page stays', async ({ answer }) => {
    expect(await start(answer)).toBe(false);
    expect(where()).toBe('/');
    expect(readFlow().roadblocked).toBe(false);
    expect(screen.getByRole('heading', { level: 1, name: 'Sign in to your account' })).toBeTruthy();
  });
});
