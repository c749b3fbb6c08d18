import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Messages } from '@/i18n/catalog';
import { english } from '@/i18n/english';
import { MessagesContext } from '@/i18n/i18n';
import consoleEn from '@/i18n/sections/console.en.json';
import consoleFr from '@/i18n/sections/console.fr.json';
import type { WebSocketLike } from '@/lib/chat/socket';
import { gate, serve } from '@/console/testing';
import type { ChatMessage, Item } from '@/console/chat/api';
import type { ViewerClientFrame, ViewerServerFrame } from './api';
import { viewerHref } from './api';
import { JoinPage } from './join';
import { createReplay, type CreateReplay, type Size } from './replay';
import { shareState, ShareScreen } from './request';
import { openViewerSocket, type OpenViewerSocket, type SocketStatus, type ViewerSocketOptions } from './socket';
import { ViewerPage } from './viewer';

const en = consoleEn;
const fill = (text: string, params: Record<string, string | number>) => text.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name]));

function withMessages(children: ReactNode, messages: Messages = { ...english, ...consoleEn }) {
  return <MessagesContext value={messages}>{children}</MessagesContext>;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('join form', () => {
  function join(replies: Record<string, { status: number; body?: unknown; headers?: Record<string, string> }>) {
    const calls = serve((method, path, body) => (method === 'POST' && path === '/cobrowse/join' ? replies[(body as { code: string }).code] : undefined));
    const go = vi.fn();
    render(withMessages(<JoinPage go={go} />));
    const input = screen.getByLabelText(en['console.cobrowse.join.code']);
    const submit = (code: string) => {
      fireEvent.change(input, { target: { value: code } });
      fireEvent.click(screen.getByRole('button', { name: en['console.cobrowse.join.submit'] }));
    };
    return { calls, go, input, submit };
  }

  it('checks the six digits before calling, and says so in an alert on the focused field', async () => {
    const { calls, input, submit } = join({});
    submit('12345');
    expect(screen.getByRole('alert').textContent).toBe(en['console.cobrowse.join.format']);
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(input.getAttribute('aria-describedby')).toContain(screen.getByRole('alert').id);
    expect(document.activeElement).toBe(input);
    submit('12a456');
    expect(screen.getByRole('alert').textContent).toBe(en['console.cobrowse.join.format']);
    expect(calls).toHaveLength(0);
  });

  it.each([
    ['INVALID_CODE', 404, {}, en['console.cobrowse.error.invalidCode']],
    ['FORBIDDEN_BRAND', 403, {}, en['console.cobrowse.error.forbiddenBrand']],
    ['RATE_LIMITED', 429, { 'Retry-After': '540' }, fill(en['console.cobrowse.error.rateLimited'], { minutes: 9 })],
    ['RATE_LIMITED', 429, { 'Retry-After': '20' }, en['console.cobrowse.error.rateLimitedOne']],
  ])('announces %s (%i)', async (errorCode, status, headers, text) => {
    const { go, input, submit } = join({ '123456': { status, body: { errorCode, messageKey: 'x' }, headers } });
    submit('123 456');
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe(text));
    expect(document.activeElement).toBe(input);
    expect(go).not.toHaveBeenCalled();
  });

  it('opens the viewer with the visitor brand and language once joined', async () => {
    const session = { id: 's/1', status: 'active', origin: 'code', brand: 'belair', language: 'fr', agentName: 'Agent' };
    const { calls, go, submit } = join({ '654321': { status: 200, body: session } });
    submit(' 654 321 ');
    await waitFor(() => expect(go).toHaveBeenCalledWith('/cobrowse/sessions/s%2F1?brand=belair&language=fr'));
    expect(calls).toEqual([{ method: 'POST', path: '/cobrowse/join', body: { code: '654321' } }]);
  });
});

/** A viewer socket the test drives as the server. */
function fakeSocket() {
  const state = { options: null as ViewerSocketOptions | null, sent: [] as ViewerClientFrame[], closed: false };
  const open: OpenViewerSocket = (options) => {
    state.options = options;
    return {
      send: (frame) => state.sent.push(frame),
      close: () => {
        state.closed = true;
      },
    };
  };
  const frame = (f: ViewerServerFrame) => act(() => state.options!.onFrame(f));
  const status = (s: SocketStatus) => act(() => state.options!.onStatus!(s));
  return { state, open, frame, status };
}

/** A replay the test watches (rrweb itself is tested below). */
function fakeReplay() {
  const r = { added: [] as unknown[], destroyed: false, resize: null as ((size: Size) => void) | null, root: null as HTMLElement | null };
  const loaded = gate();
  const create: CreateReplay = (root, { onResize }) => {
    r.root = root;
    r.resize = onResize;
    const iframe = document.createElement('iframe');
    root.appendChild(iframe);
    return {
      add: (e) => r.added.push(e),
      iframe,
      destroy: () => {
        r.destroyed = true;
      },
    };
  };
  return { r, load: () => loaded.passed.then(() => create), release: loaded.release };
}

const meta = { type: 4, timestamp: 1, data: { href: 'http://belair.localhost/', width: 2000, height: 1000 } };
const full = { type: 2, timestamp: 2, data: { node: {}, initialOffset: { top: 0, left: 0 } } };

describe('viewer', () => {
  function viewer() {
    const s = fakeSocket();
    const replay = fakeReplay();
    const utils = render(withMessages(<ViewerPage id="s1" brand="belair" language="fr" openSocket={s.open} loadReplay={replay.load} />));
    const status = () => screen.getByRole('status').textContent;
    return { s, replay, status, utils };
  }

  it('shows where the session stands: waiting, the page with its brand and language, reconnecting, ended with the reason', async () => {
    const { s, replay, status } = viewer();
    expect(s.state.options?.session).toBe('s1');
    expect(status()).toBe(en['console.cobrowse.viewer.waiting']);
    s.frame({ type: 'state', status: 'active', agentName: 'Agent' });
    expect(status()).toBe(en['console.cobrowse.viewer.waiting']);
    // Events before rrweb's chunk arrives wait, then go in order.
    s.frame({ type: 'event', seq: 1, data: meta });
    s.frame({ type: 'event', seq: 2, data: full });
    expect(status()).toBe(fill(en['console.cobrowse.viewer.active'], { brand: 'belair', language: en['console.chat.language.fr'] }));
    expect(replay.r.added).toEqual([]);
    await act(async () => replay.release());
    await waitFor(() => expect(replay.r.added).toEqual([meta, full]));
    s.frame({ type: 'event', seq: 3, data: { type: 3, timestamp: 3, data: {} } });
    expect(replay.r.added).toHaveLength(3);
    s.status('reconnecting');
    expect(status()).toBe(en['console.cobrowse.viewer.reconnecting']);
    s.status('open');
    s.frame({ type: 'state', status: 'ended', reason: 'visitor' });
    expect(status()).toBe(fill(en['console.cobrowse.viewer.ended'], { reason: en['console.cobrowse.reason.visitor'] }));
    expect(screen.queryByRole('button', { name: en['console.cobrowse.viewer.end'] })).toBeNull();
    expect(screen.getByRole('link', { name: en['console.cobrowse.viewer.back'] }).getAttribute('href')).toBe('/cobrowse');
  });

  it('says a session closed without an end (4404) is no longer live', () => {
    const { s, status } = viewer();
    s.status('closed');
    expect(status()).toBe(en['console.cobrowse.viewer.gone']);
  });

  it('ends the session with the End button, or says why it could not', async () => {
    let answer = { status: 409, body: { errorCode: 'NOT_HOLDER', messageKey: 'x' } as unknown };
    const calls = serve((method, path) => (method === 'POST' && path === '/cobrowse/sessions/s1/end' ? answer : undefined));
    const { s, status } = viewer();
    s.frame({ type: 'state', status: 'active' });
    const end = screen.getByRole('button', { name: en['console.cobrowse.viewer.end'] });
    fireEvent.click(end);
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe(en['console.cobrowse.error.notHolder']));
    answer = { status: 200, body: { id: 's1', status: 'ended', origin: 'code', brand: 'belair', endReason: 'agent' } };
    fireEvent.click(end);
    await waitFor(() => expect(status()).toBe(fill(en['console.cobrowse.viewer.ended'], { reason: en['console.cobrowse.reason.agent'] })));
    expect(calls.filter((c) => c.path === '/cobrowse/sessions/s1/end')).toHaveLength(2);
    // The socket's own ended state later changes nothing.
    s.frame({ type: 'state', status: 'ended', reason: 'visitor' });
    expect(status()).toBe(fill(en['console.cobrowse.viewer.ended'], { reason: en['console.cobrowse.reason.agent'] }));
  });

  it('sends the pointer in the visitor page coordinates (the replay scaled to fit), at most one per period', async () => {
    const width = vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockImplementation(function (this: HTMLElement) {
      return this.classList.contains('cobrowse-stage') ? 1000 : 0;
    });
    try {
      const { s, replay } = viewer();
      await act(async () => replay.release());
      await waitFor(() => expect(replay.r.resize).not.toBeNull());
      act(() => replay.r.resize!({ width: 2000, height: 1000 }));
      const stage = screen.getByRole('region', { name: en['console.cobrowse.viewer.stage'] });
      // Scaled to half: the stage is half as high as the visitor's window.
      expect(stage.style.height).toBe('500px');
      expect(replay.r.root!.style.transform).toBe('scale(0.5)');
      fireEvent.mouseMove(stage, { clientX: 100, clientY: 50 });
      expect(s.state.sent).toEqual([]); // nothing before the visitor's page is shown
      s.frame({ type: 'state', status: 'active' });
      s.frame({ type: 'event', seq: 1, data: full });
      fireEvent.mouseMove(stage, { clientX: 100, clientY: 50 });
      fireEvent.mouseMove(stage, { clientX: 110, clientY: 60 });
      fireEvent.mouseMove(stage, { clientX: 120, clientY: 70 });
      expect(s.state.sent).toEqual([{ type: 'pointer', data: { x: 200, y: 100 } }]);
      // The last position of the period follows.
      await waitFor(() => expect(s.state.sent).toHaveLength(2));
      expect(s.state.sent[1]).toEqual({ type: 'pointer', data: { x: 240, y: 140 } });
    } finally {
      width.mockRestore();
    }
  });

  it('closes its socket and the replay when it goes', async () => {
    const { s, replay, utils } = viewer();
    await act(async () => replay.release());
    await waitFor(() => expect(replay.r.root).not.toBeNull());
    utils.unmount();
    expect(s.state.closed).toBe(true);
    expect(replay.r.destroyed).toBe(true);
  });
});

/** A WebSocket the test plays the server of. */
class FakeWS implements WebSocketLike {
  static all: FakeWS[] = [];
  readyState = 0;
  onopen: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  onclose: ((ev: CloseEvent) => void) | null = null;
  onerror: ((ev: Event) => void) | null = null;
  sent: string[] = [];
  constructor(public url: string) {
    FakeWS.all.push(this);
  }
  send(data: string) {
    this.sent.push(data);
  }
  close() {
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  receive(frame: unknown) {
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify(frame) }));
  }
  closed(code: number) {
    this.readyState = 3;
    this.onclose?.({ code } as CloseEvent);
  }
}

/** The i-th socket opened. */
function ws(i: number): FakeWS {
  const s = FakeWS.all[i];
  if (!s) throw new Error(`no socket ${i}`);
  return s;
}

describe('viewer socket', () => {
  it('resumes after the last event seq, drops repeats, reconnects after 1012 and stops at 4404', async () => {
    FakeWS.all = [];
    const frames: ViewerServerFrame[] = [];
    const statuses: SocketStatus[] = [];
    const socket = openViewerSocket({
      session: 's 1',
      onFrame: (f) => frames.push(f),
      onStatus: (s) => statuses.push(s),
      WebSocket: FakeWS,
      random: () => 0,
      events: null,
    });
    expect(ws(0).url).toMatch(/\/api\/console\/v1\/cobrowse\/sessions\/s%201\/socket\?after=0$/);
    ws(0).open();
    ws(0).receive({ type: 'state', status: 'active' });
    ws(0).receive({ type: 'event', seq: 1, data: meta });
    ws(0).receive({ type: 'event', seq: 2, data: full });
    ws(0).receive({ type: 'event', seq: 2, data: full });
    socket.send({ type: 'pointer', data: { x: 1, y: 2 } });
    expect(JSON.parse(ws(0).sent[0] ?? '')).toEqual({ type: 'pointer', data: { x: 1, y: 2 } });
    ws(0).closed(1012);
    await waitFor(() => expect(FakeWS.all).toHaveLength(2));
    expect(ws(1).url).toMatch(/\?after=2$/);
    ws(1).open();
    ws(1).receive({ type: 'event', seq: 2, data: full });
    ws(1).receive({ type: 'event', seq: 3, data: meta });
    ws(1).closed(4404);
    expect(frames.filter((f) => f.type === 'event').map((f) => (f as { seq: number }).seq)).toEqual([1, 2, 3]);
    expect(statuses).toEqual(['connecting', 'open', 'reconnecting', 'open', 'closed']);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(FakeWS.all).toHaveLength(2);
  });
});

describe("rrweb's replay", () => {
  it('rebuilds the page in a sandboxed iframe without scripts, out of the tab order, titled', async () => {
    const root = document.createElement('div');
    document.body.appendChild(root);
    const onResize = vi.fn();
    const replay = createReplay(root, { frameTitle: 'The page', onResize });
    try {
      const sandbox = replay.iframe.getAttribute('sandbox') ?? '';
      expect(sandbox.split(/\s+/)).toEqual(['allow-same-origin']);
      expect(replay.iframe.title).toBe('The page');
      expect(replay.iframe.tabIndex).toBe(-1);
      replay.add(meta);
      await waitFor(() => expect(onResize).toHaveBeenCalledWith({ width: 2000, height: 1000 }));
      replay.add('not an event');
    } finally {
      replay.destroy();
      root.remove();
    }
  });
});

describe('share screen from a chat', () => {
  const item = { id: 'c1', brand: 'belair', language: 'fr', name: 'Pat' } as Item;
  const system = (seq: number, key: string, name: string): ChatMessage =>
    ({ seq, sender: 'system', body: '', at: '2026-11-25T20:00:00Z', system: { key, name } }) as ChatMessage;

  it('reads the request, the answer and the end from the transcript', () => {
    expect(shareState([])).toEqual({ kind: 'none' });
    expect(shareState([system(1, 'cobrowseRequest', 's1')])).toEqual({ kind: 'pending', session: 's1' });
    expect(shareState([system(1, 'cobrowseRequest', 's1'), system(2, 'cobrowseDeclined', 'Agent')])).toEqual({ kind: 'declined' });
    expect(shareState([system(1, 'cobrowseRequest', 's1'), system(2, 'cobrowseDeclined', 'Agent'), system(3, 'cobrowseRequest', 's2'), system(4, 'cobrowseAccepted', 'Agent')])).toEqual({
      kind: 'accepted',
      session: 's2',
    });
    expect(shareState([system(3, 'cobrowseRequest', 's2'), system(4, 'cobrowseAccepted', 'Agent'), system(5, 'cobrowseEnded', 'Agent')])).toEqual({ kind: 'ended' });
  });

  it('asks, shows pending, then the accepted link to the viewer; declined and ended let the agent ask again', async () => {
    const calls = serve((method, path) =>
      method === 'POST' && path === '/chat/conversations/c1/cobrowse' ? { status: 201, body: { id: 's9', status: 'pending', origin: 'chat', brand: 'belair' } } : undefined,
    );
    const { rerender } = render(withMessages(<ShareScreen item={item} messages={[]} />));
    expect(screen.getByRole('status').textContent).toBe('');
    fireEvent.click(screen.getByRole('button', { name: en['console.cobrowse.chat.ask'] }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe(fill(en['console.cobrowse.chat.pending'], { name: 'Pat' })));
    expect(screen.queryByRole('button', { name: en['console.cobrowse.chat.ask'] })).toBeNull();
    expect(calls).toHaveLength(1);
    rerender(withMessages(<ShareScreen item={item} messages={[system(1, 'cobrowseRequest', 's9')]} />));
    expect(screen.getByRole('status').textContent).toBe(fill(en['console.cobrowse.chat.pending'], { name: 'Pat' }));
    rerender(withMessages(<ShareScreen item={item} messages={[system(1, 'cobrowseRequest', 's9'), system(2, 'cobrowseAccepted', 'Agent')]} />));
    expect(screen.getByRole('status').textContent).toBe(fill(en['console.cobrowse.chat.accepted'], { name: 'Pat' }));
    const link = screen.getByRole('link', { name: fill(en['console.cobrowse.chat.open'], { name: 'Pat' }) });
    expect(link.getAttribute('href')).toBe(viewerHref({ id: 's9', brand: 'belair', language: 'fr' }));
    expect(link.getAttribute('target')).toBe('_blank');
    rerender(withMessages(<ShareScreen item={item} messages={[system(1, 'cobrowseRequest', 's9'), system(2, 'cobrowseDeclined', 'Agent')]} />));
    expect(screen.getByRole('status').textContent).toBe(fill(en['console.cobrowse.chat.declined'], { name: 'Pat' }));
    expect(screen.getByRole('button', { name: en['console.cobrowse.chat.ask'] })).toBeTruthy();
  });

  it.each([
    ['NOT_HOLDER', en['console.cobrowse.error.notHolder']],
    ['CONVERSATION_ENDED', en['console.cobrowse.error.conversationEnded']],
    ['COBROWSE_PENDING', en['console.cobrowse.error.pending']],
  ])('says %s clearly', async (errorCode, text) => {
    serve((method, path) => (method === 'POST' && path === '/chat/conversations/c1/cobrowse' ? { status: 409, body: { errorCode, messageKey: 'x' } } : undefined));
    render(withMessages(<ShareScreen item={item} messages={[]} />));
    fireEvent.click(screen.getByRole('button', { name: en['console.cobrowse.chat.ask'] }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe(text));
    expect(screen.getByRole('status').textContent).toBe('');
  });

  it('speaks French too', () => {
    render(withMessages(<ShareScreen item={item} messages={[system(1, 'cobrowseRequest', 's1'), system(2, 'cobrowseAccepted', 'Agent')]} />, { ...english, ...consoleFr }));
    expect(screen.getByRole('status').textContent).toBe(fill(consoleFr['console.cobrowse.chat.accepted'], { name: 'Pat' }));
  });
});

describe('viewer: refusals and focus', () => {
  it.each([
    [4401, en['console.cobrowse.viewer.signedOut']],
    [4403, en['console.cobrowse.viewer.forbidden']],
    [4409, en['console.cobrowse.viewer.notHolder']],
    [4404, en['console.cobrowse.viewer.gone']],
  ])('says a refusal closed with %i for good, and offers a document load out', (code, text) => {
    const s = fakeSocket();
    render(withMessages(<ViewerPage id="s1" brand="belair" language="en" openSocket={s.open} loadReplay={fakeReplay().load} />));
    act(() => s.state.options!.onFinal!(code));
    s.status('closed');
    expect(screen.getByRole('status').textContent).toBe(text);
    expect(screen.queryByRole('button', { name: en['console.cobrowse.viewer.end'] })).toBeNull();
    const back = screen.getByRole('link', { name: en['console.cobrowse.viewer.back'] });
    // A plain link (not the router's): the viewer's style policy ends with its document.
    expect(back.outerHTML).toMatch(/^<a href="\/cobrowse" class="console-button console-button--quiet">/);
  });

  it('speaks the refusals in French', () => {
    const s = fakeSocket();
    render(withMessages(<ViewerPage id="s1" openSocket={s.open} loadReplay={fakeReplay().load} />, { ...english, ...consoleFr }));
    act(() => s.state.options!.onFinal!(4409));
    s.status('closed');
    expect(screen.getByRole('status').textContent).toBe(consoleFr['console.cobrowse.viewer.notHolder']);
  });

  it('moves focus from End to the link that replaces it, not to <body>', async () => {
    serve((method, path) =>
      method === 'POST' && path === '/cobrowse/sessions/s1/end' ? { status: 200, body: { id: 's1', status: 'ended', origin: 'code', brand: 'belair', endReason: 'agent' } } : undefined,
    );
    const s = fakeSocket();
    render(withMessages(<ViewerPage id="s1" brand="belair" language="en" openSocket={s.open} loadReplay={() => new Promise(() => undefined)} />));
    s.frame({ type: 'state', status: 'active' });
    const end = screen.getByRole('button', { name: en['console.cobrowse.viewer.end'] });
    end.focus();
    fireEvent.click(end);
    await waitFor(() => expect(screen.queryByRole('button', { name: en['console.cobrowse.viewer.end'] })).toBeNull());
    // The focus moves in the effect after the render that removed End.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('link', { name: en['console.cobrowse.viewer.back'] })));
  });
});

describe('viewer socket: final codes and the pointer', () => {
  it.each([4401, 4403, 4409])('does not reconnect after %i and says which', async (code) => {
    FakeWS.all = [];
    const finals: number[] = [];
    const statuses: SocketStatus[] = [];
    openViewerSocket({ session: 's1', onFrame: () => undefined, onStatus: (s) => statuses.push(s), onFinal: (c) => finals.push(c), WebSocket: FakeWS, random: () => 0, events: null });
    ws(0).closed(code);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(FakeWS.all).toHaveLength(1);
    expect(finals).toEqual([code]);
    expect(statuses).toEqual(['connecting', 'closed']);
  });

  it('drops pointer frames while not open: no burst on reopen', async () => {
    FakeWS.all = [];
    const socket = openViewerSocket({ session: 's1', onFrame: () => undefined, WebSocket: FakeWS, random: () => 0, events: null });
    ws(0).open();
    ws(0).closed(1006);
    for (let i = 0; i < 5; i++) socket.send({ type: 'pointer', data: { x: i, y: i } });
    socket.send({ type: 'end' });
    await waitFor(() => expect(FakeWS.all).toHaveLength(2));
    ws(1).open();
    expect(ws(1).sent.map((f) => JSON.parse(f) as ViewerClientFrame)).toEqual([{ type: 'end' }]);
    socket.close();
  });
});

describe('share screen: across conversations and focus', () => {
  const a = { id: 'A', brand: 'belair', language: 'en', name: 'Ann' } as Item;
  const b = { id: 'B', brand: 'belair', language: 'en', name: 'Bob' } as Item;

  it('a request asked in conversation A does not leave conversation B pending', async () => {
    serve((method, path) =>
      method === 'POST' && path === '/chat/conversations/A/cobrowse' ? { status: 201, body: { id: 'sA', status: 'pending', origin: 'chat', brand: 'belair' } } : undefined,
    );
    const { rerender } = render(withMessages(<ShareScreen item={a} messages={[]} />));
    fireEvent.click(screen.getByRole('button', { name: en['console.cobrowse.chat.ask'] }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('Ann'));
    rerender(withMessages(<ShareScreen item={b} messages={[]} />));
    expect(screen.getByRole('status').textContent).toBe('');
    expect(screen.getByRole('button', { name: en['console.cobrowse.chat.ask'] })).toBeTruthy();
    // Back in A, its request still stands.
    rerender(withMessages(<ShareScreen item={a} messages={[]} />));
    expect(screen.getByRole('status').textContent).toBe(fill(en['console.cobrowse.chat.pending'], { name: 'Ann' }));
  });

  it('moves focus from Ask to the status that replaces it', async () => {
    serve((method, path) =>
      method === 'POST' && path === '/chat/conversations/A/cobrowse' ? { status: 201, body: { id: 'sA', status: 'pending', origin: 'chat', brand: 'belair' } } : undefined,
    );
    render(withMessages(<ShareScreen item={a} messages={[]} />));
    const ask = screen.getByRole('button', { name: en['console.cobrowse.chat.ask'] });
    ask.focus();
    fireEvent.click(ask);
    await waitFor(() => expect(screen.queryByRole('button', { name: en['console.cobrowse.chat.ask'] })).toBeNull());
    // The focus moves in the effect after the render that removed Ask: wait for it, not for the next tick.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('status')));
  });
});
