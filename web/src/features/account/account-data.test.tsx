import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadSection } from '@/i18n/section';
import { fakeApi } from '@/lib/flow/testing';
import { renderApp } from '@/test/render';
import { siteConfig } from '@/test/site-fixture';

// The sections' texts, loaded once for the file (see consent.test.tsx).
beforeAll(() => Promise.all([loadSection('security', 'en'), loadSection('oidc', 'en'), loadSection('security', 'fr')]));

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

const me = { firstName: 'Alex', lastName: 'Martin', email: 'demo@belair.example', brand: 'belair', language: 'en', ubiDriver: false, policies: [] };
const ready = { state: 'ready', requestedAt: '2026-11-29T10:00:00Z', readyAt: '2026-11-29T10:00:05Z', expiresAt: '2026-12-06T10:00:05Z' };

async function openPage(routes: Parameters<typeof fakeApi>[0]) {
  const calls = fakeApi({
    'GET /api/v1/me': { status: 200, body: me },
    'GET /api/v1/me/applications': { status: 200, body: { applications: [] } },
    'GET /api/v1/me/sessions': { status: 200, body: { sessions: [] } },
    ...routes,
  });
  await renderApp(siteConfig(), '/my-account');
  const data = within(await screen.findByRole('region', { name: 'Your data' }));
  const deletion = within(screen.getByRole('region', { name: 'Delete my account' }));
  return { calls, data, deletion };
}

describe('My account: your data', () => {
  it('asks for a copy, then says it is being prepared', async () => {
    let asked = false;
    const { calls, data } = await openPage({
      'GET /api/v1/me/privacy': () => ({ status: 200, body: { export: asked ? { state: 'requested', requestedAt: ready.requestedAt } : null, deletion: null } }),
      'POST /api/v1/me/export': () => {
        asked = true;
        return { status: 202, body: { state: 'requested', requestedAt: ready.requestedAt } };
      },
    });
    fireEvent.click(await data.findByRole('button', { name: 'Ask for a copy of my data' }));
    expect(await screen.findByText(/We're preparing your copy/)).toBeTruthy();
    expect(data.getByText(/Your copy is being prepared/)).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST' && c.path === '/api/v1/me/export')).toBe(true);
  });

  it('offers both downloads of a ready copy; a stale proof is asked for inline, then the download goes on', async () => {
    const created = vi.fn(() => 'blob:export');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() }));
    let proved = false;
    const { calls, data } = await openPage({
      'GET /api/v1/me/privacy': { status: 200, body: { export: ready, deletion: null } },
      'GET /api/v1/me/export.json': () => (proved ? { status: 200, body: { format: 'guichet-export/1' } } : { status: 403, body: { errorCode: 'REAUTH_REQUIRED' } }),
      'POST /api/v1/me/reauth': () => {
        proved = true;
        return { status: 200, body: { freshUntil: '2026-11-29T10:10:00Z' } };
      },
    });
    expect(await data.findByText(/You can download it until December 6, 2026/)).toBeTruthy();
    expect(data.getByRole('button', { name: 'Download the page to read (HTML)' })).toBeTruthy();
    const json = data.getByRole('button', { name: 'Download the file (JSON)' });
    json.focus();
    fireEvent.click(json);
    const prompt = within(await data.findByRole('region', { name: "Confirm it's you" }));
    fireEvent.change(prompt.getByLabelText('Current password'), { target: { value: 'Guichet-Demo-2026!' } });
    const confirm = prompt.getByRole('button', { name: 'Confirm' });
    confirm.focus();
    fireEvent.click(confirm);
    await waitFor(() => expect(created).toHaveBeenCalled());
    expect(calls.filter((c) => c.path === '/api/v1/me/export.json')).toHaveLength(2);
    expect(data.queryByRole('region', { name: "Confirm it's you" })).toBeNull();
    // The prompt's button gone, the focus is back on the download's (issue 32), not on <body>.
    await waitFor(() => expect(document.activeElement).toBe(json));
  });

  it('says when the day’s copies are used up', async () => {
    const { data } = await openPage({
      'GET /api/v1/me/privacy': { status: 200, body: { export: null, deletion: null } },
      'POST /api/v1/me/export': { status: 429, body: { errorCode: 'RATE_LIMITED' } },
    });
    fireEvent.click(await data.findByRole('button', { name: 'Ask for a copy of my data' }));
    const status = await data.findByText('You have asked for several copies today. Try again tomorrow.');
    await waitFor(() => expect(document.activeElement).toBe(status));
  });

  it('downloads the file the server answers', async () => {
    const created = vi.fn(() => 'blob:export');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() }));
    const { calls, data } = await openPage({
      'GET /api/v1/me/privacy': { status: 200, body: { export: ready, deletion: null } },
      'GET /api/v1/me/export.html': { status: 200, body: '<html></html>' },
    });
    fireEvent.click(await data.findByRole('button', { name: 'Download the page to read (HTML)' }));
    await waitFor(() => expect(created).toHaveBeenCalled());
    const call = calls.find((c) => c.path === '/api/v1/me/export.html');
    expect(call?.headers['X-API-KEY']).toBeTruthy();
  });
});

describe('My account: delete my account', () => {
  it('warns before asking, then shows the pending deletion and keeps the account on request', async () => {
    let pending = false;
    const { calls, deletion } = await openPage({
      'GET /api/v1/me/privacy': () => ({
        status: 200,
        body: { export: null, deletion: pending ? { requestedAt: '2026-11-29T10:00:00Z', deleteAt: '2026-12-29T10:00:00Z' } : null },
      }),
      'POST /api/v1/me/deletion': () => {
        pending = true;
        return { status: 202, body: { requestedAt: '2026-11-29T10:00:00Z', deleteAt: '2026-12-29T10:00:00Z' } };
      },
      'DELETE /api/v1/me/deletion': () => {
        pending = false;
        return { status: 204 };
      },
    });
    fireEvent.click(await deletion.findByRole('button', { name: 'Delete my account' }));
    const warning = await deletion.findByRole('heading', { name: 'Before you delete your account' });
    await waitFor(() => expect(document.activeElement).toBe(warning));
    expect(deletion.getByText(/Your insurance policies stay/)).toBeTruthy();
    expect(calls.some((c) => c.path === '/api/v1/me/deletion')).toBe(false);
    fireEvent.click(deletion.getByRole('button', { name: 'Yes, delete my account' }));
    const date = await deletion.findByText('Your account will be deleted on December 29, 2026.');
    await waitFor(() => expect(document.activeElement).toBe(date.parentElement));
    fireEvent.click(deletion.getByRole('button', { name: 'Keep my account' }));
    expect(await deletion.findByText('Your account will not be deleted.')).toBeTruthy();
    expect(deletion.getByRole('button', { name: 'Delete my account' })).toBeTruthy();
  });
});

describe('My account: a stale proof on the deletion', () => {
  it('asks for it inline; cancelled, the section says why nothing happened, and the focus is on that line (issue 32)', async () => {
    const { calls, deletion } = await openPage({
      'GET /api/v1/me/privacy': { status: 200, body: { export: null, deletion: null } },
      'POST /api/v1/me/deletion': { status: 403, body: { errorCode: 'REAUTH_REQUIRED' } },
    });
    fireEvent.click(await deletion.findByRole('button', { name: 'Delete my account' }));
    const yes = await deletion.findByRole('button', { name: 'Yes, delete my account' });
    yes.focus();
    fireEvent.click(yes);
    const prompt = within(await deletion.findByRole('region', { name: "Confirm it's you" }));
    await waitFor(() => expect(document.activeElement).toBe(prompt.getByRole('heading', { name: "Confirm it's you" })));
    const cancel = prompt.getByRole('button', { name: 'Cancel' });
    cancel.focus();
    fireEvent.click(cancel);
    await waitFor(() => expect(deletion.queryByRole('region', { name: "Confirm it's you" })).toBeNull());
    const said = await deletion.findByText("For your security, confirm it's you first.");
    await waitFor(() => expect(document.activeElement).toBe(said));
    expect(calls.filter((c) => c.method === 'POST' && c.path === '/api/v1/me/deletion')).toHaveLength(1);
  });
});

describe('/undo-deletion', () => {
  it('keeps the account with the link’s token, once', async () => {
    let used = false;
    const calls = fakeApi({
      'POST /api/v1/deletion/undo': () => {
        const first = !used;
        used = true;
        return first ? { status: 204 } : { status: 404, body: { errorCode: 'UNDO_LINK_INVALID' } };
      },
    });
    await renderApp(siteConfig({ language: 'fr' }), '/undo-deletion?token=tok-123');
    fireEvent.click(await screen.findByRole('button', { name: 'Garder mon compte' }));
    expect(await screen.findByText(/Votre compte ne sera pas supprimé/)).toBeTruthy();
    expect(calls.find((c) => c.path === '/api/v1/deletion/undo')?.body).toEqual({ token: 'tok-123' });
    expect(screen.getByRole('link', { name: 'Aller à la connexion' })).toBeTruthy();
  });

  it('says when it is too late', async () => {
    fakeApi({ 'POST /api/v1/deletion/undo': { status: 410, body: { errorCode: 'UNDO_TOO_LATE' } } });
    await renderApp(siteConfig(), '/undo-deletion?token=tok-123');
    fireEvent.click(await screen.findByRole('button', { name: 'Keep my account' }));
    expect(await screen.findByText(/This link no longer works/)).toBeTruthy();
  });
});
