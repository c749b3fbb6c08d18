import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadSection } from '@/i18n/section';
import { fakeApi } from '@/lib/flow/testing';
import { renderApp } from '@/test/render';
import { siteConfig } from '@/test/site-fixture';

// The section's texts, loaded once for the file: under vitest a section
// first imported while a later test runs (after another test's root) does
// not settle, where a browser's does (web/e2e/oidc-consent.test.mjs).
beforeAll(() => Promise.all([loadSection('oidc', 'en'), loadSection('oidc', 'fr')]));

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

const ID = 'AAAAAAAAAAAAAAAAAAAAAA';

describe('/oidc/consent', () => {
  it('in French', async () => {
    fakeApi({ [`GET /api/v1/oidc/requests/${ID}/consent`]: { status: 200, body: { client: 'Quote Hub', scopes: ['openid', 'profile'], account: 'demo@belair.example' } } });
    await renderApp(siteConfig({ province: 'qc', language: 'fr' }), `/oidc/consent?id=${ID}`);
    expect(await screen.findByRole('heading', { level: 1, name: /^Autoriser Quote Hub à utiliser votre compte/ })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Ne pas autoriser' })).toBeTruthy();
  });

  it('names the application and what it gets, and posts the answer to the server with the request id', async () => {
    fakeApi({
      [`GET /api/v1/oidc/requests/${ID}/consent`]: { status: 200, body: { client: 'Quote Hub', scopes: ['openid', 'email', 'policies', 'unknown'], account: 'demo@belair.example' } },
    });
    await renderApp(siteConfig(), `/oidc/consent?id=${ID}`);
    const page = within(await screen.findByRole('region', { name: 'Allow Quote Hub to use your account?' }));
    const items = page.getAllByRole('listitem').map((item) => item.textContent);
    expect(items).toEqual([
      'Proof that you signed in to your belairdirect account',
      'Your email address',
      'Your policy numbers and their kind (home or auto)',
    ]);
    const allow = screen.getByRole('button', { name: 'Allow' });
    const form = allow.closest('form');
    expect(form?.getAttribute('method')).toBe('post');
    expect(form?.getAttribute('action')).toBe('/oidc/consent');
    expect(allow.getAttribute('name')).toBe('decision');
    expect(allow.getAttribute('value')).toBe('allow');
    expect(screen.getByRole('button', { name: "Don't allow" }).getAttribute('value')).toBe('deny');
    expect((form?.querySelector('input[name=id]') as HTMLInputElement).value).toBe(ID);
    expect(document.title).toBe('Allow Quote Hub to use your account? | belairdirect');
    expect(document.querySelector('.consent__account')?.textContent).toMatch(/^You are signed in as demo@belair\.example\. Not you\?/);
    expect(page.getByRole('button', { name: 'Sign out' })).toBeTruthy();
  });

  it('an expired or answered request (404) says so', async () => {
    fakeApi({});
    await renderApp(siteConfig(), `/oidc/consent?id=${ID}`);
    expect(await screen.findByRole('heading', { level: 1, name: /has expired or was already answered/ })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Allow' })).toBeNull();
  });

  it('without a session (401) goes to login', async () => {
    fakeApi({ [`GET /api/v1/oidc/requests/${ID}/consent`]: { status: 401, body: { errorCode: 'UNAUTHENTICATED' } } });
    await renderApp(siteConfig(), `/oidc/consent?id=${ID}`);
    await waitFor(() => expect(window.location.pathname).toBe('/'));
  });
});

describe('My account: connected applications', () => {
  const me = { firstName: 'Alex', lastName: 'Martin', email: 'demo@belair.example', brand: 'belair', language: 'en', ubiDriver: false, policies: [] };
  const app = { clientId: 'BBBBBBBBBBBBBBBBBBBBBB', name: 'Quote Hub', scopes: ['openid', 'email'], grantedAt: '2026-11-20T15:00:00Z' };

  it('lists what the customer allowed and takes it back', async () => {
    const calls = fakeApi({
      'GET /api/v1/me': { status: 200, body: me },
      'GET /api/v1/me/applications': { status: 200, body: { applications: [app] } },
      [`DELETE /api/v1/me/applications/${app.clientId}`]: { status: 204 },
    });
    await renderApp(siteConfig(), '/my-account');
    const section = await screen.findByRole('region', { name: 'Connected applications' });
    await within(section).findByText('Quote Hub');
    expect(within(section).getByText('Allowed on November 20, 2026')).toBeTruthy();
    fireEvent.click(within(section).getByRole('button', { name: 'Remove access for Quote Hub' }));
    expect(await within(section).findByText('Quote Hub no longer has access to your account.')).toBeTruthy();
    expect(within(section).queryByRole('button', { name: /Remove access/ })).toBeNull();
    expect(document.activeElement?.textContent).toBe('Quote Hub no longer has access to your account.');
    expect(calls.some((c) => c.method === 'DELETE' && c.path === `/api/v1/me/applications/${app.clientId}`)).toBe(true);
  });

  it('says when there is none, and when taking back fails', async () => {
    fakeApi({
      'GET /api/v1/me': { status: 200, body: me },
      'GET /api/v1/me/applications': { status: 200, body: { applications: [app] } },
      [`DELETE /api/v1/me/applications/${app.clientId}`]: { status: 500 },
    });
    await renderApp(siteConfig(), '/my-account');
    const section = await screen.findByRole('region', { name: 'Connected applications' });
    fireEvent.click(await within(section).findByRole('button', { name: 'Remove access for Quote Hub' }));
    expect(await within(section).findByText('We could not remove this access. Try again.')).toBeTruthy();
    expect(within(section).getByText('Quote Hub')).toBeTruthy();
  });

  it('says so when the list cannot be loaded, rather than that there is none', async () => {
    fakeApi({ 'GET /api/v1/me': { status: 200, body: me }, 'GET /api/v1/me/applications': { status: 500 } });
    await renderApp(siteConfig(), '/my-account');
    const message = await screen.findByText(/could not load your connected applications/);
    expect(message.closest('[role="alert"]')).toBeTruthy();
    expect(screen.queryByText('You have not allowed any other application to use your account.')).toBeNull();
  });

  it('none allowed', async () => {
    fakeApi({ 'GET /api/v1/me': { status: 200, body: me }, 'GET /api/v1/me/applications': { status: 200, body: { applications: [] } } });
    await renderApp(siteConfig(), '/my-account');
    expect(await screen.findByText('You have not allowed any other application to use your account.')).toBeTruthy();
  });
});
