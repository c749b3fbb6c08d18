import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { loadSection } from '@/i18n/section';
import { FakeSocket } from '@/lib/chat/fake-socket';
import { COBROWSE_LIVE_KEY, requestCobrowse } from '@/lib/cobrowse/start';
import { fakeServer, json, type Call } from '@/test/fake-server';
import { renderApp } from '@/test/render';
import { fakeSockets, liveSocket } from '@/test/sockets';
import { belair, siteConfig } from '@/test/site-fixture';
import { createPacer } from './pacer';

// The visitor's side of co-browse in the whole app: the footer link, the
// consent dialog, the code, the banner, the socket (a FakeSocket the test
// drives) and the recorder (rrweb's, real, on jsdom).

const cobrowseCalls = (calls: Call[]) => calls.filter((c) => c.path.includes('/cobrowse')).map(({ method, path, body }) => ({ method, path, body }));
const session = { id: 'sess-1', status: 'waiting', origin: 'code', brand: 'belair', code: '482913', expiresAt: '2026-11-28T23:10:00Z' };

fakeSockets(window.sessionStorage);

async function openConsent(language: 'en' | 'fr' = 'en') {
  await loadSection('cobrowse', language);
  await renderApp(siteConfig({ brand: belair, province: language === 'fr' ? 'qc' : 'on', language }), '/not-found');
  const link = within(screen.getByRole('contentinfo')).getByRole('link', { name: language === 'fr' ? 'Partage d’écran' : 'Screen sharing' });
  link.focus();
  fireEvent.click(link);
  const dialog = await screen.findByRole('dialog', { name: language === 'fr' ? /^Partager cette page avec notre équipe/ : 'Share this page with an agent?' });
  return { link, dialog };
}

describe('co-browse from the footer link', () => {
  it('loads nothing and calls nothing for a visitor who never shared', async () => {
    const calls = fakeServer({});
    await renderApp(siteConfig({ brand: belair, province: 'on', language: 'en' }), '/not-found');
    await act(() => new Promise((resolve) => setTimeout(resolve, 20)));
    expect(cobrowseCalls(calls)).toEqual([]);
    expect(FakeSocket.all).toHaveLength(0);
    expect(screen.queryByRole('region', { name: 'Screen sharing' })).toBeNull();
  });

  it('opens a labelled modal consent dialog saying what is and is not seen; Escape declines and sends nothing', async () => {
    const calls = fakeServer({});
    const { link, dialog } = await openConsent();
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    await waitFor(() => expect(document.activeElement).toBe(within(dialog).getByRole('heading', { level: 2 })));
    expect(within(dialog).getByRole('heading', { name: 'The agent will see' })).toBeTruthy();
    expect(within(dialog).getByRole('heading', { name: 'The agent will not see' })).toBeTruthy();
    expect(dialog.textContent).toMatch(/Your name, email address, address, phone numbers, date of birth, postal code and driver's licence: a blank box/);
    expect(dialog.textContent).toMatch(/Your passwords, security codes, PIN, PIN letter and sign-in details: they never leave your browser/);
    expect(dialog.textContent).toMatch(/cannot click, type or change anything/);
    // Tab stays inside.
    const buttons = within(dialog).getAllByRole('button');
    buttons.at(-1)!.focus();
    fireEvent.keyDown(buttons.at(-1)!, { key: 'Tab' });
    expect(document.activeElement).toBe(buttons[0]);

    fireEvent.keyDown(buttons[0]!, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    // The focus goes back in the effect after the render that removed the dialog.
    await waitFor(() => expect(document.activeElement).toBe(link));
    expect(cobrowseCalls(calls)).toEqual([]);
    expect(FakeSocket.all).toHaveLength(0);
    expect(window.sessionStorage.getItem(COBROWSE_LIVE_KEY)).toBeNull();
  });

  it('Decline sends nothing either', async () => {
    const calls = fakeServer({});
    const { dialog } = await openConsent();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Decline' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(cobrowseCalls(calls)).toEqual([]);
    expect(FakeSocket.all).toHaveLength(0);
  });

  it('Accept shows the code, then the agent, records only after the first snapshot request, and Stop ends it', async () => {
    let current = { ...session };
    const calls = fakeServer({
      'POST /api/v1/cobrowse/sessions': () => json(201, session),
      'POST /api/v1/cobrowse/session/end': () => json(200, { ...current, status: 'ended' }),
    });
    const { dialog } = await openConsent();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Accept and share' }));
    const code = await screen.findByRole('dialog', { name: 'Your sharing code' });
    expect(within(code).getByText('482 913')).toBeTruthy();
    expect(code.textContent).toContain('Code 4 8 2 9 1 3');
    expect(within(code).getByRole('status').textContent).toBe('Waiting for your agent to enter the code…');
    expect(cobrowseCalls(calls).map((c) => `${c.method} ${c.path}`)).toEqual(['POST /api/v1/cobrowse/sessions']);
    expect(window.sessionStorage.getItem(COBROWSE_LIVE_KEY)).toBe('sess-1');

    const socket = await liveSocket();
    expect(socket.url).toBe('ws://localhost:3000/api/v1/cobrowse/socket');
    act(() => socket.open());
    act(() => socket.receive({ type: 'state', status: 'waiting' }));
    current = { ...session, status: 'active' };
    act(() => socket.receive({ type: 'state', status: 'active', agentName: 'Eve Agent' }));
    await waitFor(() => expect(within(code).getByRole('status').textContent).toBe('Sharing with Eve Agent'));
    const banner = screen.getByRole('region', { name: 'Screen sharing' });
    expect(within(banner).getByRole('status').textContent).toBe('You are sharing this page with Eve Agent.');
    // The banner comes before the header.
    expect(banner.compareDocumentPosition(screen.getByRole('banner')) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(socket.sent.filter((f) => (f as { type: string }).type === 'event')).toEqual([]);

    act(() => socket.receive({ type: 'snapshot' }));
    await waitFor(() => expect(socket.sent.filter((f) => (f as { type: string }).type === 'event').length).toBeGreaterThanOrEqual(2));
    // rrweb's Meta then FullSnapshot.
    const events = socket.sent.filter((f) => (f as { type: string }).type === 'event') as { data: { type: number } }[];
    expect(events.slice(0, 2).map((e) => e.data.type)).toEqual([4, 2]);

    fireEvent.click(within(code).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    // The agent's pointer: a decorative dot.
    act(() => socket.receive({ type: 'pointer', seq: 3, data: { x: 120, y: 80 } }));
    const dot = await screen.findByTestId('cobrowse-pointer');
    expect(dot.getAttribute('aria-hidden')).toBe('true');
    expect(dot.style.left).toBe('120px');

    fireEvent.click(within(banner).getByRole('button', { name: 'Stop sharing' }));
    await waitFor(() => expect(calls.some((c) => c.path === '/api/v1/cobrowse/session/end')).toBe(true));
    act(() => socket.receive({ type: 'state', status: 'ended', reason: 'visitor' }));
    await waitFor(() => expect(within(screen.getByRole('region', { name: 'Screen sharing' })).getByRole('status').textContent).toBe('Sharing ended.'));
    expect(screen.queryByRole('button', { name: 'Stop sharing' })).toBeNull();
    expect(screen.queryByTestId('cobrowse-pointer')).toBeNull();
    expect(socket.closedWith).toBe(1000);
    expect(window.sessionStorage.getItem(COBROWSE_LIVE_KEY)).toBeNull();
  });

  it('comes back after a reload while the server says the session is live, and ends when the agent ends it', async () => {
    window.sessionStorage.setItem(COBROWSE_LIVE_KEY, 'sess-1');
    const calls = fakeServer({
      'GET /api/v1/cobrowse/session': () => json(200, { ...session, status: 'active', agentName: 'Eve Agent', code: undefined }),
    });
    await renderApp(siteConfig({ brand: belair, province: 'on', language: 'en' }), '/not-found');
    const banner = await screen.findByRole('region', { name: 'Screen sharing' });
    await waitFor(() => expect(within(banner).getByRole('status').textContent).toBe('You are sharing this page with Eve Agent.'));
    expect(cobrowseCalls(calls).map((c) => `${c.method} ${c.path}`)).toContain('GET /api/v1/cobrowse/session');
    const socket = await liveSocket();
    act(() => socket.open());
    act(() => socket.receive({ type: 'state', status: 'ended', reason: 'agent' }));
    await waitFor(() => expect(within(banner).getByRole('status').textContent).toBe('Sharing ended.'));
    expect(window.sessionStorage.getItem(COBROWSE_LIVE_KEY)).toBeNull();
  });

  it('forgets a remembered session the server no longer has', async () => {
    window.sessionStorage.setItem(COBROWSE_LIVE_KEY, 'sess-1');
    fakeServer({ 'GET /api/v1/cobrowse/session': () => json(404, { errorCode: 'NO_COBROWSE' }) });
    await renderApp(siteConfig({ brand: belair, province: 'on', language: 'en' }), '/not-found');
    await waitFor(() => expect(window.sessionStorage.getItem(COBROWSE_LIVE_KEY)).toBeNull());
    expect(screen.queryByRole('region', { name: 'Screen sharing' })).toBeNull();
    expect(FakeSocket.all).toHaveLength(0);
  });

  it('speaks French', async () => {
    fakeServer({});
    const { dialog } = await openConsent('fr');
    expect(within(dialog).getByRole('button', { name: 'Accepter et partager' })).toBeTruthy();
    expect(within(dialog).getByRole('button', { name: 'Refuser' })).toBeTruthy();
  });

  it('shows the server refusal in the dialog', async () => {
    fakeServer({ 'POST /api/v1/cobrowse/sessions': () => json(429, { errorCode: 'RATE_LIMITED' }) });
    const { dialog } = await openConsent();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Accept and share' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Too many attempts. Please try again later.');
    expect(FakeSocket.all).toHaveLength(0);
  });
});

describe('co-browse from an agent request in chat', () => {
  it('Decline answers the request with accept:false; Accept with accept:true starts sharing', async () => {
    const calls = fakeServer({
      'POST /api/v1/cobrowse/sessions/chat-sess/consent': () => json(200, { id: 'chat-sess', status: 'active', origin: 'chat', brand: 'belair', agentName: 'Eve Agent' }),
    });
    await renderApp(siteConfig({ brand: belair, province: 'on', language: 'en' }), '/not-found');
    act(() => requestCobrowse({ origin: 'chat', sessionId: 'chat-sess' }));
    let dialog = await screen.findByRole('dialog', { name: 'Share this page with an agent?' });
    expect(dialog.textContent).toContain('The agent you are chatting with asks');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Decline' }));
    await waitFor(() => expect(cobrowseCalls(calls)).toEqual([{ method: 'POST', path: '/api/v1/cobrowse/sessions/chat-sess/consent', body: { accept: false } }]));
    expect(FakeSocket.all).toHaveLength(0);

    act(() => requestCobrowse({ origin: 'chat', sessionId: 'chat-sess' }));
    dialog = await screen.findByRole('dialog', { name: 'Share this page with an agent?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Accept and share' }));
    const banner = await screen.findByRole('region', { name: 'Screen sharing' });
    await waitFor(() => expect(within(banner).getByRole('status').textContent).toBe('You are sharing this page with Eve Agent.'));
    expect(cobrowseCalls(calls).at(-1)).toEqual({ method: 'POST', path: '/api/v1/cobrowse/sessions/chat-sess/consent', body: { accept: true } });
    await liveSocket();
  });
});

describe('the event pacer', () => {
  it('sends a burst at once, then at most its rate, in order, dropping nothing', () => {
    let now = 0;
    const timers: (() => void)[] = [];
    const out: unknown[] = [];
    const pacer = createPacer((d) => out.push(d), { now: () => now, setTimeout: (f) => timers.push(f), clearTimeout: () => {} });
    for (let i = 0; i < 100; i++) pacer.send(i);
    expect(out).toHaveLength(60);
    now += 500; // half a second: 18 more
    timers.shift()!();
    expect(out).toHaveLength(78);
    now += 1000;
    timers.shift()!();
    expect(out).toEqual(Array.from({ length: 100 }, (_, i) => i));
    pacer.stop();
    pacer.send('late');
    expect(out).toHaveLength(100);
  });
});
