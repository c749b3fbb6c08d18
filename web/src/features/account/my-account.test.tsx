import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '@/lib/flow/testing';
import { renderApp } from '@/test/render';
import { belair, siteConfig } from '@/test/site-fixture';
import { fullText } from '@/test/text';

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

const me = {
  firstName: 'Alex',
  lastName: 'Martin',
  email: 'Demo@Belair.Example',
  brand: 'belair',
  language: 'en',
  ubiDriver: false,
  policies: [
    { number: 'BEL1000', kind: 'home', province: 'on', role: 'holder' },
    { number: 'BEL1001', kind: 'auto', province: 'qc', role: 'driver' },
  ],
};

describe('/my-account', () => {
  it('shows the name, the email lower-cased, the brand and the policies', async () => {
    fakeApi({ 'GET /api/v1/me': { status: 200, body: me } });
    await renderApp(siteConfig({ brand: belair }), '/my-account');
    expect(await screen.findByText(fullText('Welcome, Alex Martin'))).toBeTruthy();
    expect(screen.getByText('demo@belair.example')).toBeTruthy();
    expect(screen.getByText('belairdirect')).toBeTruthy();
    const rows = within(screen.getByRole('table', { name: 'Your policies' })).getAllByRole('row');
    expect(rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent))).toEqual([
      ['Policy number', 'Type', 'Province', 'Your role'],
      ['BEL-1000', 'Home', 'Ontario', 'Policyholder'],
      ['BEL-1001', 'Auto', 'Quebec', 'Additional driver'],
    ]);
    expect(document.title).toBe('My account | belairdirect');
  });

  it('says so when no policy is linked', async () => {
    fakeApi({ 'GET /api/v1/me': { status: 200, body: { ...me, policies: [] } } });
    await renderApp(siteConfig(), '/my-account');
    expect(await screen.findByText('No policy is linked to your account yet.')).toBeTruthy();
  });

  it('without a session (401) goes back to login', async () => {
    fakeApi({ 'GET /api/v1/me': { status: 401, body: { errorCode: 'UNAUTHENTICATED' } } });
    await renderApp(siteConfig(), '/my-account');
    await waitFor(() => expect(window.location.pathname).toBe('/'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in to your account' })).toBeTruthy();
  });

  it('a server failure goes to the technical roadblock', async () => {
    fakeApi({ 'GET /api/v1/me': { status: 502 } });
    await renderApp(siteConfig(), '/my-account');
    await waitFor(() => expect(window.location.pathname).toBe('/roadblock/technical'));
  });

  it('signs out: POST logout, then login', async () => {
    const calls = fakeApi({ 'GET /api/v1/me': { status: 200, body: me }, 'POST /api/v1/logout': { status: 204 } });
    await renderApp(siteConfig(), '/my-account');
    await act(async () => fireEvent.click(await screen.findByRole('button', { name: 'Sign out' })));
    await waitFor(() => expect(window.location.pathname).toBe('/'));
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual(['/api/v1/logout']);
  });
});
