import type { ComponentType } from 'react';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi, type FakeAnswer } from '@/lib/flow/testing';
import { renderApp } from '@/test/render';
import { belair, siteConfig } from '@/test/site-fixture';
import { fullText } from '@/test/text';

// Each section of the page counts the renders the page gives it (a
// section's own updates, its data arriving, render it from within and are
// not counted): the page must render each once, not again for a sibling's
// answer or its own state (issue 32's long task on my-account).
const pageRenders = vi.hoisted(() => ({ counts: new Map<string, number>() }));
vi.mock('@/features/account/change-contact', async (real) => counted(await real(), 'ChangeContact'));
vi.mock('@/features/account/change-password', async (real) => counted(await real(), 'ChangePassword'));
vi.mock('@/features/account/passkeys', async (real) => counted(await real(), 'Passkeys'));
vi.mock('@/features/account/sessions', async (real) => counted(await real(), 'Sessions'));
vi.mock('@/features/account/connected-apps', async (real) => counted(await real(), 'ConnectedApps'));
vi.mock('@/features/account/account-data', async (real) => counted(await real(), 'AccountData'));

async function counted(module: unknown, name: string) {
  const { createElement } = await import('react');
  const real = (module as Record<string, ComponentType<object>>)[name] as ComponentType<object>;
  function Counted(props: { kind?: string }) {
    const key = props.kind ? `${name}(${props.kind})` : name;
    pageRenders.counts.set(key, (pageRenders.counts.get(key) ?? 0) + 1);
    return createElement(real, props);
  }
  return { ...(module as object), [name]: Counted };
}

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

  it('renders each section once as the five answers arrive one by one, and not again for an update of the page', async () => {
    const answers: Record<string, FakeAnswer> = {
      'GET /api/v1/me': { status: 200, body: me },
      'GET /api/v1/me/passkeys': { status: 200, body: { passkeys: [], offer: false } },
      'GET /api/v1/me/sessions': { status: 200, body: { sessions: [] } },
      'GET /api/v1/me/applications': { status: 200, body: { applications: [] } },
      'GET /api/v1/me/privacy': { status: 200, body: { export: null, deletion: null } },
      'POST /api/v1/logout': { status: 204 },
    };
    fakeApi(answers);
    // Every answer is held until the test lets it through.
    const answered = globalThis.fetch;
    const held = new Map<string, () => void>();
    vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
      const key = `${(init.method ?? 'GET').toUpperCase()} ${new URL(url, 'http://belair.localhost').pathname}`;
      await new Promise<void>((go) => held.set(key, go));
      return answered(url, init);
    });
    const release = async (key: string) => {
      await waitFor(() => expect(held.has(key)).toBe(true));
      await act(async () => held.get(key)?.());
      held.delete(key);
    };
    pageRenders.counts.clear();
    await renderApp(siteConfig(), '/my-account');
    await release('GET /api/v1/me');
    await screen.findByRole('heading', { level: 2, name: 'Your policies' });
    // StrictMode renders every component twice: once is 2.
    const once = {
      'ChangeContact(email)': 2,
      'ChangeContact(phone)': 2,
      ChangePassword: 2,
      Passkeys: 2,
      Sessions: 2,
      ConnectedApps: 2,
      AccountData: 2,
    };
    expect(Object.fromEntries(pageRenders.counts)).toEqual(once);
    for (const key of ['GET /api/v1/me/passkeys', 'GET /api/v1/me/sessions', 'GET /api/v1/me/applications', 'GET /api/v1/me/privacy']) {
      await release(key);
      expect(Object.fromEntries(pageRenders.counts), key).toEqual(once);
    }
    expect(await screen.findByText('You have not allowed any other application to use your account.')).toBeTruthy();
    // The sign-out button's busy state is the page's: the sections stay.
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Sign out' })));
    await waitFor(() => expect(held.has('POST /api/v1/logout')).toBe(true));
    expect(screen.getByRole('button', { name: 'Sign out' }).getAttribute('aria-busy')).toBe('true');
    expect(Object.fromEntries(pageRenders.counts)).toEqual(once);
  });
});
