import { act, render } from '@testing-library/react';
import { expect, it, vi } from 'vitest';
import { SiteProvider, useSite, type Site } from '@/lib/site/site-context';
import { belair, siteConfig } from '@/test/site-fixture';
import { maintenancePageBypass, useApiClients, type ApiClients } from './use-api';

it('sends the province and language chosen at the time of each request', async () => {
  const fetch = vi.fn(async () => new Response('{}', { status: 200, headers: { 'Content-Type': 'application/json' } }));
  vi.stubGlobal('fetch', fetch);
  window.history.replaceState(null, '', '/not-found?maintenancePageBypass=on');
  const seen: { clients?: ApiClients; site?: Site } = {};
  function Probe() {
    seen.clients = useApiClients();
    seen.site = useSite();
    return null;
  }
  render(
    <SiteProvider config={siteConfig({ brand: belair, province: 'on', language: 'en' })}>
      <Probe />
    </SiteProvider>,
  );
  const first = seen.clients;
  await seen.clients?.second.request('get', '/welcome');
  await act(async () => seen.site?.setProvince('qc'));
  await act(async () => seen.site?.setLanguage('fr'));
  expect(seen.clients).toBe(first);
  await seen.clients?.second.request('get', '/welcome');

  const calls = fetch.mock.calls as unknown as [string, RequestInit][];
  expect(calls.map(([url]) => url)).toEqual([
    '/api/v1/welcome?maintenancePageBypass=on',
    '/api/v1/welcome?maintenancePageBypass=on',
  ]);
  expect(calls.map(([, init]) => init.headers)).toMatchObject([
    { province: 'ON', language: 'en', 'X-API-KEY': 'belair-test-key' },
    { province: 'QC', language: 'fr', 'X-API-KEY': 'belair-test-key' },
  ]);
  vi.unstubAllGlobals();
});

it('keeps maintenancePageBypass for the tab once a page carried it; an empty value forgets it', () => {
  sessionStorage.clear();
  window.history.replaceState(null, '', '/');
  expect(maintenancePageBypass()).toBeNull();
  window.history.replaceState(null, '', '/?maintenancePageBypass=staff-s3cret');
  expect(maintenancePageBypass()).toBe('staff-s3cret');
  window.history.replaceState(null, '', '/forgot');
  expect(maintenancePageBypass()).toBe('staff-s3cret');
  window.history.replaceState(null, '', '/?maintenancePageBypass=');
  expect(maintenancePageBypass()).toBeNull();
  window.history.replaceState(null, '', '/forgot');
  expect(maintenancePageBypass()).toBeNull();
});
