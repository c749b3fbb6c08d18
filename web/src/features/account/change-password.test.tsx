import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadSection } from '@/i18n/section';
import { fakeApi } from '@/lib/flow/testing';
import { renderApp } from '@/test/render';
import { siteConfig } from '@/test/site-fixture';

// The sections' texts, loaded once for the file (see consent.test.tsx).
beforeAll(() => Promise.all([loadSection('security', 'en'), loadSection('oidc', 'en')]));

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

const me = { firstName: 'Alex', lastName: 'Martin', email: 'demo@belair.example', brand: 'belair', language: 'en', ubiDriver: false, policies: [] };
const NEW = 'Harbour-Lights-2027!';

async function openForm(answer: { status: number; body?: unknown }) {
  const calls = fakeApi({
    'GET /api/v1/me': { status: 200, body: me },
    'GET /api/v1/me/applications': { status: 200, body: { applications: [] } },
    'POST /api/v1/me/password': answer,
  });
  await renderApp(siteConfig(), '/my-account');
  const section = within(await screen.findByRole('region', { name: 'Change your password' }));
  const fill = (current: string, next: string, again = next) => {
    fireEvent.change(section.getByLabelText('Current password'), { target: { value: current } });
    fireEvent.change(section.getByLabelText('New password'), { target: { value: next } });
    fireEvent.change(section.getByLabelText('Confirm your new password'), { target: { value: again } });
    fireEvent.click(section.getByRole('button', { name: 'Change password' }));
  };
  return { calls, section, fill };
}

describe('My account: change your password', () => {
  it('sends the current and the new password, then says it is done and empties the form', async () => {
    const { calls, section, fill } = await openForm({ status: 204 });
    fill('Guichet-Demo-2026!', NEW);
    expect(await section.findByText(/Your password was changed/)).toBeTruthy();
    const call = calls.find((c) => c.method === 'POST' && c.path === '/api/v1/me/password');
    expect(call?.body).toEqual({ currentPassword: 'Guichet-Demo-2026!', newPassword: NEW });
    expect((section.getByLabelText('Current password') as HTMLInputElement).value).toBe('');
  });

  it('checks the rules before sending: a weak password, a retype that differs', async () => {
    const { calls, section, fill } = await openForm({ status: 204 });
    fill('Guichet-Demo-2026!', 'short');
    await waitFor(() => expect(section.getByLabelText('New password').getAttribute('aria-invalid')).toBe('true'));
    fill('Guichet-Demo-2026!', NEW, 'Harbour-Lights-2028!');
    expect(await section.findAllByText('The passwords do not match.')).not.toHaveLength(0);
    expect(calls.some((c) => c.path === '/api/v1/me/password')).toBe(false);
  });

  it('a wrong current password is said at that field', async () => {
    const { section, fill } = await openForm({ status: 400, body: { errorCode: 'WRONG_CURRENT_PASSWORD' } });
    fill('Not-It-2026!', NEW);
    expect(await section.findAllByText(/This is not your current password/)).not.toHaveLength(0);
    await waitFor(() => expect(document.activeElement).toBe(section.getByLabelText('Current password')));
  });

  it("the server's rule for the new password is said at that field", async () => {
    const { section, fill } = await openForm({ status: 400, body: { errorCode: '2001', fields: { password: 'errorPasswordCommon' } } });
    fill('Guichet-Demo-2026!', NEW);
    expect(await section.findAllByText('This password is too common. Choose another one.')).not.toHaveLength(0);
  });

  it('too many tries, and a failure', async () => {
    const limited = await openForm({ status: 429, body: { errorCode: 'RATE_LIMITED' } });
    limited.fill('Guichet-Demo-2026!', NEW);
    expect(await limited.section.findByText(/Too many tries/)).toBeTruthy();
  });

  it('without a session (401) goes to login', async () => {
    const { fill } = await openForm({ status: 401, body: { errorCode: 'UNAUTHENTICATED' } });
    fill('Guichet-Demo-2026!', NEW);
    await waitFor(() => expect(window.location.pathname).toBe('/'));
  });
});

describe('My account: where you are signed in', () => {
  const me = { firstName: 'Alex', lastName: 'Martin', email: 'demo@belair.example', brand: 'belair', language: 'en', ubiDriver: false, policies: [] };
  const phone = { id: 'AAAAAAAAAAAAAAAAAAAAAA', browser: 'Safari', system: 'iOS', firstSeen: '2026-11-20T15:00:00Z', lastSeen: '2026-11-28T15:00:00Z', thisDevice: true };
  const laptop = { id: 'BBBBBBBBBBBBBBBBBBBBBB', browser: 'Edge', system: 'Windows', firstSeen: '2026-11-21T15:00:00Z', lastSeen: '2026-11-27T15:00:00Z', thisDevice: false };
  const old = { id: '', browser: '', system: '', firstSeen: '2026-11-22T15:00:00Z', lastSeen: '2026-11-26T15:00:00Z', thisDevice: false };

  it('lists the sessions, this device marked, and signs one out, then every other one', async () => {
    const calls = fakeApi({
      'GET /api/v1/me': { status: 200, body: me },
      'GET /api/v1/me/applications': { status: 200, body: { applications: [] } },
      'GET /api/v1/me/sessions': { status: 200, body: { sessions: [phone, laptop, old] } },
      [`DELETE /api/v1/me/sessions/${laptop.id}`]: { status: 204 },
      'POST /api/v1/me/sessions/end-others': { status: 200, body: { ended: 1 } },
    });
    await renderApp(siteConfig(), '/my-account');
    const section = within(await screen.findByRole('region', { name: "Where you're signed in" }));
    expect(await section.findByText('This device', { exact: false })).toBeTruthy();
    expect(section.getByText('Unknown browser on unknown system')).toBeTruthy();
    // Neither this device nor a session without an id has its own button.
    expect(section.getAllByRole('button').map((b) => b.textContent)).toEqual(['Sign out Edge on Windows', 'Sign out everywhere else']);
    fireEvent.click(section.getByRole('button', { name: 'Sign out Edge on Windows' }));
    expect(await section.findByText('Edge on Windows was signed out.')).toBeTruthy();
    fireEvent.click(section.getByRole('button', { name: 'Sign out everywhere else' }));
    expect(await section.findByText('You were signed out everywhere else.')).toBeTruthy();
    expect(section.queryByText('Unknown browser on unknown system')).toBeNull();
    expect(section.queryByRole('button', { name: 'Sign out everywhere else' })).toBeNull();
    expect(calls.filter((c) => c.method !== 'GET' && c.path.startsWith('/api/v1/me/sessions')).map((c) => `${c.method} ${c.path}`)).toEqual([
      `DELETE /api/v1/me/sessions/${laptop.id}`,
      'POST /api/v1/me/sessions/end-others',
    ]);
  });
});
