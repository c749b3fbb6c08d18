import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import consoleEn from '@/i18n/sections/console.en.json';
import { ConsoleApp } from './app';
import { clientRefusal, redirectLines } from './pages/clients';
import { agent, at, gate, serve } from './testing';

// The admins' OpenID clients page (issue 30): /clients.

const admin = { ...agent, id: '9', email: 'admin@console.example', role: 'admin', brands: [] };
const SECRET = 'c2VjcmV0LW9mLXRoZS10ZXN0LW9ubHktMzItYnl0ZXMtbG9uZw';
const claims = {
  id: 'AAAAAAAAAAAAAAAAAAAAAA',
  brand: 'belair',
  name: 'Claims',
  type: 'public',
  thirdParty: false,
  redirectUris: ['ca.belair.claims:/cb', 'https://claims.example/cb'],
  backchannelLogoutUri: '',
  signingAlg: 'ES256',
  createdAt: '2026-01-01T00:00:00Z',
  disabledAt: null,
};

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('clients page pieces', () => {
  it('reads one redirect URI a line, blank lines left out', () => {
    expect(redirectLines(' https://a.example/cb \n\n  \nhttp://localhost:4180/cb\n')).toEqual(['https://a.example/cb', 'http://localhost:4180/cb']);
    expect(redirectLines('')).toEqual([]);
  });

  it('maps a refusal to its field and message', () => {
    expect(clientRefusal('VALIDATION', { redirectUris: 'console.clients.invalid.redirectUris' })).toEqual({
      field: 'redirectUris',
      key: 'console.clients.invalid.redirectUris',
    });
    expect(clientRefusal('VALIDATION', { toString: 'x' })).toEqual({ field: 'toString', key: 'console.clients.invalid.client' });
    expect(clientRefusal('FORBIDDEN_BRAND', {})).toEqual({ field: '', key: 'console.error.forbiddenBrand' });
  });
});

describe('clients page', () => {
  it('is an admin’s: no link nor page for an agent', async () => {
    at('/clients');
    serve((_method, path) => (path === '/session' ? { status: 200, body: agent } : undefined));
    render(<ConsoleApp initialLanguage="en" />);
    await screen.findByRole('heading', { level: 1 });
    expect(screen.queryByRole('link', { name: consoleEn['console.nav.clients'] })).toBeNull();
    expect(screen.queryByRole('heading', { level: 1, name: consoleEn['console.clients.title'] })).toBeNull();
  });

  it('shows the add form with the list, not before it (issue 32: the list arriving pushed it down)', async () => {
    at('/clients');
    const list = gate();
    serve(async (_method, path) => {
      if (path === '/session') return { status: 200, body: admin };
      await list.passed;
      return { status: 200, body: { clients: [claims] } };
    });
    render(<ConsoleApp initialLanguage="en" />);
    await screen.findByRole('heading', { level: 1, name: consoleEn['console.clients.title'] });
    expect(screen.getByText(consoleEn['console.loading'])).toBeTruthy();
    expect(screen.queryByRole('form', { name: consoleEn['console.clients.add'] })).toBeNull();
    list.release();
    await screen.findByRole('form', { name: consoleEn['console.clients.add'] });
    expect(screen.getByRole('heading', { level: 3, name: /Claims/ })).toBeTruthy();
  });

  it('lists the clients, registers a confidential one and shows its secret once; hidden or left, it is gone', async () => {
    at('/');
    let list = [claims];
    const calls = serve((method, path, body) => {
      if (path === '/session') return { status: 200, body: admin };
      if (method === 'GET' && path === '/clients') return { status: 200, body: { clients: list } };
      if (method === 'POST' && path === '/clients') {
        const client = { ...claims, ...(body as object), id: `${'B'.repeat(21)}${list.length}`, disabledAt: null };
        list = [...list, client];
        return { status: 200, body: { client, clientSecret: SECRET } };
      }
    });
    const writeText = vi.fn(async () => undefined);
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    render(<ConsoleApp initialLanguage="en" />);
    fireEvent.click(await screen.findByRole('link', { name: consoleEn['console.nav.clients'] }));
    await screen.findByRole('heading', { level: 1, name: consoleEn['console.clients.title'] });
    const item = (await screen.findByRole('heading', { level: 3, name: /Claims/ })).closest('li');
    expect(item?.textContent).toContain('ca.belair.claims:/cb');
    expect(item?.textContent).toContain(consoleEn['console.clients.kindPublic']);

    fireEvent.change(screen.getByLabelText(consoleEn['console.search.brand']), { target: { value: 'intact' } });
    fireEvent.change(screen.getByLabelText(consoleEn['console.clients.name']), { target: { value: ' Client centre ' } });
    fireEvent.click(screen.getByLabelText(consoleEn['console.clients.thirdParty']));
    fireEvent.change(screen.getByLabelText(consoleEn['console.clients.redirectUris']), {
      target: { value: 'https://centre.example/cb\n\nhttp://localhost:4180/cb\n' },
    });
    fireEvent.change(screen.getByLabelText(consoleEn['console.clients.backchannel']), { target: { value: 'https://centre.example/logout' } });
    fireEvent.change(screen.getByLabelText(consoleEn['console.clients.signingAlg']), { target: { value: 'RS256' } });
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.clients.add'] }));
    const dialog = await screen.findByRole('dialog', { name: consoleEn['console.clients.add'] });
    expect(dialog.textContent).toContain('Client centre');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    await act(async () => fireEvent.click(within(dialog).getByRole('button', { name: consoleEn['console.confirm.yes'] })));
    expect(calls.find((c) => c.method === 'POST')).toEqual({
      method: 'POST',
      path: '/clients',
      body: {
        brand: 'intact',
        name: 'Client centre',
        type: 'confidential',
        thirdParty: true,
        redirectUris: ['https://centre.example/cb', 'http://localhost:4180/cb'],
        backchannelLogoutUri: 'https://centre.example/logout',
        signingAlg: 'RS256',
      },
    });
    const shown = await screen.findByTestId('client-secret');
    expect(shown.textContent).toBe(SECRET);
    expect(screen.getByTestId('client-id').textContent).toBe('BBBBBBBBBBBBBBBBBBBBB1');
    expect(screen.getByText(consoleEn['console.clients.secretWarning'])).toBeTruthy();
    await waitFor(() => expect(document.activeElement?.textContent).toBe(consoleEn['console.clients.added']));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: consoleEn['console.clients.copy'] })));
    expect(writeText).toHaveBeenCalledWith(SECRET);
    expect(screen.getByText(consoleEn['console.clients.copied'])).toBeTruthy();
    // Kept nowhere but on the page.
    for (const storage of [localStorage, sessionStorage])
      for (let i = 0; i < storage.length; i++) expect(storage.getItem(storage.key(i) ?? '')).not.toContain(SECRET);
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.clients.hideSecret'] }));
    expect(document.body.textContent).not.toContain(SECRET);

    // Shown again, then the page left and opened again: gone.
    fireEvent.change(screen.getByLabelText(consoleEn['console.clients.name']), { target: { value: 'Second' } });
    fireEvent.change(screen.getByLabelText(consoleEn['console.clients.redirectUris']), { target: { value: 'https://second.example/cb' } });
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.clients.add'] }));
    await act(async () => fireEvent.click(await screen.findByRole('button', { name: consoleEn['console.confirm.yes'] })));
    await screen.findByTestId('client-secret');
    fireEvent.click(screen.getByRole('link', { name: consoleEn['console.nav.staff'] }));
    await screen.findByRole('heading', { level: 1, name: consoleEn['console.staff.title'] });
    fireEvent.click(screen.getByRole('link', { name: consoleEn['console.nav.clients'] }));
    await screen.findByRole('heading', { level: 1, name: consoleEn['console.clients.title'] });
    await screen.findByRole('heading', { level: 3, name: /Second/ });
    expect(document.body.textContent).not.toContain(SECRET);
  });

  it('refuses a missing name or redirect URI before any call, and says the field the server refused', async () => {
    at('/clients');
    const calls = serve((method, path) => {
      if (path === '/session') return { status: 200, body: admin };
      if (method === 'GET' && path === '/clients') return { status: 200, body: { clients: [] } };
      if (method === 'POST' && path === '/clients')
        return {
          status: 400,
          body: { errorCode: 'VALIDATION', messageKey: 'console.clients.invalid.redirectUris', fields: { redirectUris: 'console.clients.invalid.redirectUris' } },
        };
    });
    render(<ConsoleApp initialLanguage="en" />);
    await screen.findByText(consoleEn['console.clients.none']);
    fireEvent.change(screen.getByLabelText(consoleEn['console.clients.name']), { target: { value: 'App' } });
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.clients.add'] }));
    expect((await screen.findByRole('alert')).textContent).toBe(consoleEn['console.clients.missing']);
    expect(screen.getByLabelText(consoleEn['console.clients.redirectUris']).getAttribute('aria-invalid')).toBe('true');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    fireEvent.change(screen.getByLabelText(consoleEn['console.clients.redirectUris']), { target: { value: 'http://app.example/cb' } });
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.clients.add'] }));
    await act(async () => fireEvent.click(await screen.findByRole('button', { name: consoleEn['console.confirm.yes'] })));
    await screen.findByText(consoleEn['console.clients.invalid.redirectUris']);
    const box = screen.getByLabelText(consoleEn['console.clients.redirectUris']);
    expect(box.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(box.getAttribute('aria-describedby') ?? '')?.textContent).toBe(consoleEn['console.clients.invalid.redirectUris']);
    expect(screen.queryByTestId('client-id')).toBeNull();
  });

  it('disables a client after a confirmation and a fresh code', async () => {
    at('/clients');
    let fresh = false;
    let current: Omit<typeof claims, 'disabledAt'> & { disabledAt: string | null } = claims;
    const calls = serve((method, path, body) => {
      if (path === '/session') return { status: 200, body: admin };
      if (method === 'GET' && path === '/clients') return { status: 200, body: { clients: [current] } };
      if (method === 'POST' && path === `/clients/${claims.id}/disable`) {
        if (!fresh) return { status: 401, body: { errorCode: 'REAUTH_REQUIRED' } };
        current = { ...claims, disabledAt: '2026-01-02T00:00:00Z' };
        return { status: 200, body: current };
      }
      if (method === 'POST' && path === '/session/reauth') {
        fresh = (body as { code: string }).code === '654321';
        return { status: 200, body: { staff: admin } };
      }
    });
    render(<ConsoleApp initialLanguage="en" />);
    const disable = consoleEn['console.clients.disable'].replace('{name}', 'Claims');
    fireEvent.click(await screen.findByRole('button', { name: disable }));
    const dialog = await screen.findByRole('dialog', { name: consoleEn['console.clients.disableTitle'] });
    expect(dialog.textContent).toContain('Claims (belair)');
    await act(async () => fireEvent.click(within(dialog).getByRole('button', { name: consoleEn['console.confirm.yes'] })));
    await screen.findByRole('dialog', { name: consoleEn['console.reauth.title'] });
    fireEvent.change(screen.getByLabelText(consoleEn['console.code.code']), { target: { value: '654321' } });
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.reauth.submit'] }));
    await waitFor(() => expect(screen.queryByRole('button', { name: disable })).toBeNull());
    expect(screen.getByRole('heading', { level: 3, name: /Claims/ }).textContent).toContain(consoleEn['console.state.disabled']);
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual([
      `/clients/${claims.id}/disable`,
      '/session/reauth',
      `/clients/${claims.id}/disable`,
    ]);
  });
});
