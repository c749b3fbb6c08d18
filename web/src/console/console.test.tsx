import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import consoleEn from '@/i18n/sections/console.en.json';
import { atLeast, brandList, readMe, SESSION_ENDED } from './api';
import { ConsoleApp, documentNav } from './app';
import { auditHref } from './pages/audit';
import { actionsFor, type CustomerAccount } from './pages/customer';
import { groupSecret } from './pages/setup';
import { QrCode } from './qr-code';
import { agent, at, gate, serve } from './testing';

const account: CustomerAccount = {
  id: '42',
  brand: 'belair',
  email: 'pat@example.com',
  name: 'Pat Doe',
  status: 'active',
  locked: true,
  disabled: false,
  language: 'en',
  phone: '',
  createdAt: '2026-01-01T00:00:00Z',
  lockedUntil: '2026-01-02T00:00:00Z',
  disabledAt: null,
  temporaryExpiresAt: null,
  deletionAt: null,
  failedAttempts: 5,
  passkeys: 0,
  policies: [{ number: 'AB12345', kind: 'auto', role: 'holder' }],
  lastSignIns: [],
  openRegistrations: [],
  events: [{ at: '2026-01-01T00:00:00Z', event: 'login', outcome: 'failure', detail: '', actor: '', ip: '127.0.0.1' }],
};

beforeEach(() => {
  localStorage.clear();
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('pieces', () => {
  it('reads Me and brands in either form', () => {
    expect(readMe(agent)).toMatchObject({ id: '1', role: 'agent', brands: ['belair', 'intact'] });
    expect(readMe({ nope: true })).toBeNull();
    expect(brandList('belair, intact')).toEqual(['belair', 'intact']);
    expect(brandList('')).toEqual([]);
    expect(brandList([])).toEqual([]);
  });

  it('orders roles', () => {
    const me = readMe({ ...agent, role: 'supervisor' });
    expect(atLeast(me, 'agent')).toBe(true);
    expect(atLeast(me, 'supervisor')).toBe(true);
    expect(atLeast(me, 'admin')).toBe(false);
    expect(atLeast(null, 'agent')).toBe(false);
  });

  it('groups the secret by four', () => {
    expect(groupSecret('JBSWY3DPEHPK3PXP')).toBe('JBSW Y3DP EHPK 3PXP');
    expect(groupSecret('ABCDEF')).toBe('ABCD EF');
  });

  it('offers the actions that fit the account', () => {
    expect(actionsFor(account)).toEqual(['unlock', 'disable', 'temporaryPassword', 'resetEmail', 'invitation']);
    expect(actionsFor({ ...account, locked: false, disabled: true })).toEqual(['enable', 'invitation']);
  });

  it('exports whole days, the last one included', () => {
    expect(auditHref('2026-01-01', '2026-01-31', 'belair')).toBe(
      '/api/console/v1/audit.csv?from=2026-01-01T00%3A00%3A00Z&to=2026-02-01T00%3A00%3A00Z&brand=belair',
    );
  });

  it('draws the QR code with its finder patterns and a name', () => {
    render(<QrCode value="otpauth://totp/Guichet:a@b.c?secret=JBSWY3DPEHPK3PXP&issuer=Guichet" label="QR" />);
    const svg = screen.getByRole('img', { name: 'QR' });
    const d = svg.querySelector('path')?.getAttribute('d') ?? '';
    const size = Number(svg.getAttribute('viewBox')?.split(' ')[2]);
    // Version ≥ 1 (21 modules) plus the 4-module quiet zone on each side.
    expect(size).toBeGreaterThanOrEqual(29);
    // The three finder patterns' outer corners: top-left, top-right, bottom-left.
    for (const [x, y] of [[4, 4], [size - 5, 4], [4, size - 5]]) expect(d).toContain(`M${x} ${y}h1v1h-1z`);
    // The quiet zone is white.
    expect(d).not.toMatch(/M[0-3] /);
  });
});

describe('console app', () => {
  it('paints nothing while it asks who is signed in, then the header with its nav and tools at once (issue 32: no shift)', async () => {
    at('/');
    const session = gate();
    serve(async () => {
      await session.passed;
      return { status: 200, body: agent };
    });
    render(<ConsoleApp initialLanguage="en" />);
    // The texts are in; the session's answer is not.
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    expect(screen.queryByRole('banner')).toBeNull();
    expect(screen.queryByRole('button', { name: consoleEn['console.language.switch'] })).toBeNull();
    session.release();
    const header = await screen.findByRole('banner');
    expect(header.querySelector('nav')).not.toBeNull();
    expect(screen.getByRole('button', { name: consoleEn['console.nav.signOut'] })).toBeTruthy();
    expect(screen.getByRole('button', { name: consoleEn['console.language.switch'] })).toBeTruthy();
  });

  it('sends a signed-out visitor to /sign-in, then to the code page, then to the search', async () => {
    at('/customers/42');
    let signedIn = false;
    const calls = serve((method, path) => {
      if (method === 'GET' && path === '/session') return signedIn ? { status: 200, body: agent } : { status: 401, body: { errorCode: 'SIGN_IN_REQUIRED' } };
      if (method === 'POST' && path === '/session') return { status: 200, body: { next: 'totp' } };
      if (method === 'POST' && path === '/session/totp') {
        signedIn = true;
        return { status: 200, body: { staff: agent } };
      }
    });
    render(<ConsoleApp initialLanguage="en" />);
    const heading = await screen.findByRole('heading', { level: 1, name: consoleEn['console.signIn.title'] });
    expect(window.location.pathname).toBe('/sign-in');
    await waitFor(() => expect(document.activeElement).toBe(heading));
    fireEvent.change(screen.getByLabelText('Email address'), { target: { value: 'agent@console.example' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'Guichet-Staff-2026!' } });
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.signIn.submit'] }));
    await screen.findByRole('heading', { level: 1, name: consoleEn['console.code.title'] });
    fireEvent.change(screen.getByLabelText(consoleEn['console.code.code']), { target: { value: '123 456' } });
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.code.submit'] }));
    await screen.findByRole('heading', { level: 1, name: consoleEn['console.search.title'] });
    expect(calls.filter((c) => c.method === 'POST')).toEqual([
      { method: 'POST', path: '/session', body: { email: 'agent@console.example', password: 'Guichet-Staff-2026!' } },
      { method: 'POST', path: '/session/totp', body: { code: '123456' } },
    ]);
    // An agent sees no supervisor pages.
    expect(screen.queryByRole('link', { name: consoleEn['console.nav.maintenance'] })).toBeNull();
  });

  it('leaves the co-browse viewer only by document loads (its style policy ends with its page)', async () => {
    at('/cobrowse/sessions/s1?brand=belair&language=en');
    vi.stubGlobal('WebSocket', class {
      readyState = 0;
      onopen = null;
      onmessage = null;
      onclose = null;
      onerror = null;
      send() {}
      close() {}
    });
    const assign = vi.spyOn(documentNav, 'assign').mockImplementation(() => undefined);
    let live = true;
    serve((method, path) => {
      if (method === 'GET' && path === '/session') return live ? { status: 200, body: agent } : { status: 401, body: { errorCode: 'SIGN_IN_REQUIRED' } };
      if (method === 'DELETE' && path === '/session') return { status: 204 };
    });
    try {
      render(<ConsoleApp initialLanguage="en" />);
      const chat = await screen.findByRole('link', { name: consoleEn['console.nav.chat'] });
      await screen.findByRole('heading', { level: 1, name: consoleEn['console.cobrowse.viewer.title'] });
      // A plain link: the browser loads the page, the router does not catch the click.
      // (jsdom cannot load a document: the default action is stopped after the page had its say.)
      const stop = (e: Event) => e.preventDefault();
      window.addEventListener('click', stop);
      fireEvent.click(chat);
      window.removeEventListener('click', stop);
      expect(window.location.pathname).toBe('/cobrowse/sessions/s1');
      // Signing out loads the sign-in page; so does a session found ended.
      fireEvent.click(screen.getByRole('button', { name: consoleEn['console.nav.signOut'] }));
      await waitFor(() => expect(assign).toHaveBeenCalledWith('/sign-in'));
      assign.mockClear();
      live = false;
      act(() => {
        window.dispatchEvent(new Event(SESSION_ENDED));
      });
      await waitFor(() => expect(assign).toHaveBeenCalledWith('/sign-in'));
      expect(screen.queryByRole('heading', { level: 1, name: consoleEn['console.signIn.title'] })).toBeNull();
    } finally {
      assign.mockRestore();
    }
  });

  it('goes back to /sign-in and says why when a call finds the session ended', async () => {
    at('/');
    let live = true;
    serve((method, path) => {
      if (method === 'GET' && path === '/session') return live ? { status: 200, body: agent } : { status: 401, body: { errorCode: 'SIGN_IN_REQUIRED' } };
      if (path.startsWith('/customers?')) return { status: 401, body: { errorCode: 'SIGN_IN_REQUIRED' } };
    });
    render(<ConsoleApp initialLanguage="en" />);
    await screen.findByRole('heading', { level: 1, name: consoleEn['console.search.title'] });
    expect(screen.queryByText(consoleEn['console.error.signInRequired'])).toBeNull();
    live = false; // idle 15 minutes: the server dropped the session
    fireEvent.change(screen.getByLabelText(consoleEn['console.search.query']), { target: { value: 'pat@' } });
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.search.submit'] }));
    await screen.findByRole('heading', { level: 1, name: consoleEn['console.signIn.title'] });
    expect(window.location.pathname).toBe('/sign-in');
    expect(screen.getByText(consoleEn['console.error.signInRequired']).getAttribute('role')).toBe('alert');
  });

  it('says a wrong code without leaving the page', async () => {
    at('/sign-in/code');
    serve((method, path) => {
      if (path === '/session' && method === 'GET') return { status: 401, body: { errorCode: 'SIGN_IN_REQUIRED' } };
      if (path === '/session/totp') return { status: 401, body: { errorCode: 'INVALID_CODE' } };
    });
    render(<ConsoleApp initialLanguage="en" />);
    await screen.findByRole('heading', { level: 1, name: consoleEn['console.code.title'] });
    fireEvent.change(screen.getByLabelText(consoleEn['console.code.code']), { target: { value: '000000' } });
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.code.submit'] }));
    expect(await screen.findByText(consoleEn['console.code.invalid'])).toBeTruthy();
  });

  it('searches and lists the customers; one character is refused before any call', async () => {
    at('/');
    const calls = serve((_method, path) => {
      if (path === '/session') return { status: 200, body: agent };
      if (path.startsWith('/customers?')) return { status: 200, body: { customers: [account] } };
    });
    render(<ConsoleApp initialLanguage="en" />);
    await screen.findByRole('heading', { level: 1, name: consoleEn['console.search.title'] });
    const box = screen.getByLabelText(consoleEn['console.search.query']);
    fireEvent.change(box, { target: { value: 'p' } });
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.search.submit'] }));
    expect(await screen.findByText(consoleEn['console.search.tooShort'])).toBeTruthy();
    expect(calls.some((c) => c.path.startsWith('/customers'))).toBe(false);
    fireEvent.change(box, { target: { value: 'pat@' } });
    fireEvent.change(screen.getByLabelText(consoleEn['console.search.brand']), { target: { value: 'belair' } });
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.search.submit'] }));
    const link = await screen.findByRole('link', { name: 'Pat Doe' });
    expect(link.getAttribute('href')).toBe('/customers/42');
    expect(calls.at(-1)?.path).toBe('/customers?q=pat%40&brand=belair');
  });

  it("shows a customer's pending account deletion and its date, read-only", async () => {
    at('/customers/42');
    serve((method, path) => {
      if (path === '/session') return { status: 200, body: agent };
      if (method === 'GET' && path === '/customers/42') return { status: 200, body: { ...account, deletionAt: '2026-12-29T15:00:00Z' } };
    });
    render(<ConsoleApp initialLanguage="en" />);
    await screen.findByRole('heading', { level: 1, name: 'Pat Doe' });
    const term = screen.getByText(consoleEn['console.customer.deletion']);
    expect(term.tagName).toBe('DT');
    expect(term.nextElementSibling?.textContent).toMatch(/^Pending: the customer asked for it\. It takes effect on .*2026/);
    expect(screen.queryByRole('button', { name: /delet/i })).toBeNull();
  });

  it('confirms an action, asks for a fresh code on REAUTH_REQUIRED, then does it', async () => {
    at('/customers/42');
    let fresh = false;
    let current = account;
    const calls = serve((method, path, body) => {
      if (path === '/session') return { status: 200, body: agent };
      if (method === 'GET' && path === '/customers/42') return { status: 200, body: current };
      if (method === 'POST' && path === '/customers/42/unlock') {
        if (!fresh) return { status: 401, body: { errorCode: 'REAUTH_REQUIRED' } };
        current = { ...account, locked: false, lockedUntil: null };
        return { status: 200, body: {} };
      }
      if (method === 'POST' && path === '/session/reauth') {
        fresh = (body as { code: string }).code === '654321';
        return fresh ? { status: 200, body: { staff: agent } } : { status: 401, body: { errorCode: 'INVALID_CODE' } };
      }
    });
    render(<ConsoleApp initialLanguage="en" />);
    await screen.findByRole('heading', { level: 1, name: 'Pat Doe' });
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.action.unlock'] }));
    const dialog = await screen.findByRole('dialog', { name: consoleEn['console.action.unlock'] });
    expect(dialog.textContent).toContain('pat@example.com');
    // Nothing happens before the confirmation.
    expect(calls.some((c) => c.path.endsWith('/unlock'))).toBe(false);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: consoleEn['console.confirm.yes'] })));
    await screen.findByRole('dialog', { name: consoleEn['console.reauth.title'] });
    fireEvent.change(screen.getByLabelText(consoleEn['console.code.code']), { target: { value: '654321' } });
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.reauth.submit'] }));
    const done = await screen.findByText(consoleEn['console.done.unlock']);
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual(['/customers/42/unlock', '/session/reauth', '/customers/42/unlock']);
    // What happened has the focus before the account is read again, whose
    // answer takes the Unlock button (and never leaves the focus on <body>).
    await waitFor(() => expect(document.activeElement?.contains(done)).toBe(true));
    await waitFor(() => expect(screen.queryByRole('button', { name: consoleEn['console.action.unlock'] })).toBeNull());
    expect(document.activeElement?.contains(done)).toBe(true);
  });

  it('shows a temporary password to read on the phone', async () => {
    at('/customers/42');
    const calls = serve((method, path) => {
      if (path === '/session') return { status: 200, body: agent };
      if (method === 'GET' && path === '/customers/42') return { status: 200, body: { ...account, locked: false } };
      if (method === 'POST' && path === '/customers/42/temporary-password')
        return { status: 200, body: { delivery: 'show', temporaryPassword: 'KEPT-7WX3Q', expiresAt: '2026-01-02T00:00:00Z' } };
    });
    render(<ConsoleApp initialLanguage="en" />);
    await screen.findByRole('heading', { level: 1, name: 'Pat Doe' });
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.action.temporaryPassword'] }));
    await screen.findByRole('dialog');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: consoleEn['console.confirm.yes'] })));
    expect(await screen.findByText('KEPT-7WX3Q')).toBeTruthy();
    expect(calls.at(-2)).toEqual({ method: 'POST', path: '/customers/42/temporary-password', body: { delivery: 'show' } });
  });

  it('says another brand’s customer is out of reach', async () => {
    at('/customers/7');
    serve((_method, path) => {
      if (path === '/session') return { status: 200, body: agent };
      if (path === '/customers/7') return { status: 403, body: { errorCode: 'FORBIDDEN_BRAND' } };
    });
    render(<ConsoleApp initialLanguage="en" />);
    expect(await screen.findByText(consoleEn['console.error.forbiddenBrand'])).toBeTruthy();
  });

  it('switches to French and keeps the choice', async () => {
    at('/sign-in');
    serve((_method, path) => (path === '/session' ? { status: 401, body: { errorCode: 'SIGN_IN_REQUIRED' } } : undefined));
    render(<ConsoleApp initialLanguage="en" />);
    await screen.findByRole('heading', { level: 1, name: consoleEn['console.signIn.title'] });
    // The French catalogue loads in a transition; act must be awaited for React to retry.
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Français' })));
    await screen.findByRole('heading', { level: 1, name: 'Connexion du personnel' });
    expect(document.documentElement.lang).toBe('fr');
    expect(localStorage.getItem('guichet-console-language')).toBe('fr');
  });

  it('imports the policy file only after a clean dry run and a confirmation', async () => {
    at('/import');
    const supervisor = { ...agent, role: 'supervisor', brands: [] };
    let bodies: string[] = [];
    const calls = serve((method, path) => {
      if (path === '/session') return { status: 200, body: supervisor };
      if (method === 'POST' && path === '/policies/import?dryRun=true') {
        if (bodies.length === 0) return { status: 400, body: { dryRun: true, errorCode: 'IMPORT_INVALID', errors: [{ line: 2, column: 'brand', problem: 'unknown brand' }] } };
        return { status: 200, body: { dryRun: true, rows: 1, added: 1, updated: 0, unchanged: 0, errors: [] } };
      }
      if (method === 'POST' && path === '/policies/import?dryRun=false') return { status: 200, body: { dryRun: false, rows: 1, added: 1, updated: 0, unchanged: 0, errors: [] } };
    });
    const fetchMock = vi.mocked(fetch);
    render(<ConsoleApp initialLanguage="en" />);
    await screen.findByRole('heading', { level: 1, name: consoleEn['console.import.title'] });
    const input = screen.getByLabelText(consoleEn['console.import.file']);
    fireEvent.change(input, { target: { files: [new File(['brand,policy_number\nnobrand,X\n'], 'bad.csv', { type: 'text/csv' })] } });
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.import.check'] }));
    expect(await screen.findByText('unknown brand')).toBeTruthy();
    expect(screen.queryByRole('button', { name: consoleEn['console.import.write'] })).toBeNull();
    bodies = fetchMock.mock.calls.filter(([, init]) => init?.method === 'POST').map(([, init]) => String(init?.body));
    expect(bodies).toEqual(['brand,policy_number\nnobrand,X\n']);
    fireEvent.click(screen.getByRole('button', { name: consoleEn['console.import.check'] }));
    fireEvent.click(await screen.findByRole('button', { name: consoleEn['console.import.write'] }));
    await screen.findByRole('dialog', { name: consoleEn['console.import.write'] });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: consoleEn['console.confirm.yes'] })));
    expect(await screen.findByText(/Imported: 1 rows/)).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual([
      '/policies/import?dryRun=true',
      '/policies/import?dryRun=true',
      '/policies/import?dryRun=false',
    ]);
  });
});
