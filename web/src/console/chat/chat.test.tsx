import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import consoleEn from '@/i18n/sections/console.en.json';
import consoleFr from '@/i18n/sections/console.fr.json';
import { ConsoleApp } from '@/console/app';
import { agent, at, serve, type Route } from '@/console/testing';
import type { ClientFrame, Item, ServerFrame } from './api';
import { initialState, merge, reduce } from './context';
import { duration } from './format';
import type { AgentSocketOptions } from './socket';
import { MessageText, safeHref } from './text';

/** The agent sockets the page opened: the test plays the server's side. */
const sockets = vi.hoisted(() => ({ list: [] as { options: AgentSocketOptions; sent: ClientFrame[]; closed: boolean }[] }));

vi.mock('./socket', async (original) => ({
  ...(await original<typeof import('./socket')>()),
  openAgentSocket: (options: AgentSocketOptions) => {
    const socket = { options, sent: [] as ClientFrame[], closed: false };
    sockets.list.push(socket);
    return {
      send: (frame: ClientFrame) => socket.sent.push(frame),
      close: () => {
        socket.closed = true;
      },
      lastSeq: () => 0,
    };
  },
}));

const en = consoleEn;
const fill = (text: string, params: Record<string, string | number>) => text.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name]));

const NOW = Date.parse('2026-11-25T20:00:00Z'); // a Wednesday, 15:00 in Toronto

function item(id: string, name: string, more: Partial<Item> = {}): Item {
  return {
    id,
    brand: 'belair',
    province: 'on',
    language: 'fr',
    kind: 'live',
    name,
    topic: 'Connexion',
    page: '/login',
    roadblock: 'locked',
    account: { id: '42', email: 'pat@example.com' },
    status: 'waiting',
    createdAt: '2026-11-25T19:58:00Z',
    waitingSince: '2026-11-25T19:58:30Z',
    agentId: '',
    agentName: '',
    lastSeq: 2,
    unread: 0,
    ...more,
  };
}

const pat = item('c1', 'Pat');
const sam = item('c2', 'Sam', { language: 'en', waitingSince: '2026-11-25T19:59:50Z', topic: 'Password' });

/** The console at `path`, signed in as `who`, answering the chat calls of `route` first. */
function chatServer(route: Route, who: Record<string, unknown> = agent) {
  return serve((method, path, body) => {
    if (path === '/session') return { status: 200, body: who };
    const answer = route(method, path, body);
    if (answer) return answer;
    if (path === '/chat/availability') return { status: 200, body: { status: 'available', languages: ['en', 'fr'] } };
    if (path === '/chat/canned') return { status: 200, body: { belair: { en: ['Hello, how can I help?'], fr: ['Bonjour, comment puis-je vous aider?', 'Un instant, je vérifie.'] } } };
  });
}

/** The last socket opened. */
function socket() {
  const s = sockets.list.at(-1);
  if (!s) throw new Error('no socket opened');
  return s;
}

/** The server sends a frame on the agent socket. */
function frame(f: ServerFrame) {
  act(() => socket().options.onFrame(f));
}

function open() {
  act(() => socket().options.onStatus?.('open'));
}

/**
 * The server of a chat the agent holds: the queue lists it among theirs
 * while stillHeld() says so, and it opens with no message yet; any other
 * call goes to route.
 */
function holding(held: Item, stillHeld: () => boolean = () => true, route: Route = () => undefined): Route {
  return (method, path, body) => {
    if (path === '/chat/queue') return { status: 200, body: { waiting: [], mine: stillHeld() ? [held] : [], offline: [] } };
    if (path === `/chat/conversations/${held.id}`) return { status: 200, body: { item: held, messages: [] } };
    return route(method, path, body);
  };
}

async function chatPage(route: Route, language: 'en' | 'fr' = 'en', who?: Record<string, unknown>) {
  at('/chat');
  const calls = chatServer(route, who);
  // French loads as its own chunk: act must be awaited for React to retry.
  await act(async () => render(<ConsoleApp initialLanguage={language} />));
  await screen.findByRole('heading', { level: 1, name: language === 'en' ? en['console.chat.title'] : consoleFr['console.chat.title'] });
  return calls;
}

beforeEach(() => {
  localStorage.clear();
  sockets.list.length = 0;
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('chat pieces', () => {
  it('shows message text as text, only http(s) addresses as links, opened apart', () => {
    expect(safeHref('javascript:alert(1)')).toBeNull();
    expect(safeHref('https://belair.example/aide')).toBe('https://belair.example/aide');
    const { container } = render(<MessageText text={'<b>hi</b> see https://belair.example/aide. or javascript:alert(1)'} />);
    expect(container.querySelector('b')).toBeNull();
    expect(container.textContent).toBe('<b>hi</b> see https://belair.example/aide. or javascript:alert(1)');
    const links = container.querySelectorAll('a');
    expect(links).toHaveLength(1);
    expect(links[0]?.getAttribute('href')).toBe('https://belair.example/aide');
    expect(links[0]?.getAttribute('rel')).toBe('noopener noreferrer nofollow');
  });

  it('keeps messages in seq order, each once', () => {
    const m = (seq: number) => ({ seq, sender: 'visitor' as const, body: String(seq), at: '' });
    const list = merge([m(1), m(3)], [m(2), m(3), m(4)]);
    expect(list.map((x) => x.seq)).toEqual([1, 2, 3, 4]);
    const same = merge(list, [m(2)]);
    expect(same).toBe(list);
  });

  it('takes the server clock from the Date header, never behind the queue (a shifted dev clock)', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    const queue = { waiting: [pat], mine: [], offline: [] };
    expect(reduce(initialState, { kind: 'queue', queue, serverDate: NOW + 2_000 }).skew).toBe(2_000);
    // GUICHET_DEV_NOW a day ahead of this browser: the Date header is the real time, the queue is not.
    const ahead = { ...pat, waitingSince: new Date(NOW + 86_400_000).toISOString() };
    expect(reduce(initialState, { kind: 'frame', frame: { type: 'queue', waiting: [ahead], mine: [], offline: [] } }).skew).toBe(86_400_000);
  });

  it('writes durations as m:ss and h:mm:ss', () => {
    expect(duration(0)).toBe('0:00');
    expect(duration(95)).toBe('1:35');
    expect(duration(3725)).toBe('1:02:05');
    expect(duration(-5)).toBe('0:00');
  });
});

describe('chat page', () => {
  it('lists the queue with waiting times that tick, and follows the queue frames', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    vi.setSystemTime(NOW);
    await chatPage((_method, path) => {
      if (path === '/chat/queue') return { status: 200, body: { waiting: [pat], mine: [], offline: [] } };
    });
    const row = (await screen.findByText('Pat')).closest('tr') as HTMLElement;
    expect(within(row).getByTestId('waited-c1').textContent).toBe('1:30');
    await act(async () => vi.advanceTimersByTime(5_000));
    expect(within(row).getByTestId('waited-c1').textContent).toBe('1:35');
    // A new visitor arrives: the server's queue frame brings it, the longest wait first.
    open();
    frame({ type: 'queue', waiting: [sam, pat], mine: [], offline: [] });
    const names = screen.getAllByRole('row').slice(1).map((r) => r.querySelector('td')?.textContent);
    expect(names).toEqual(['Pat', 'Sam']);
    expect(screen.getByTestId('waited-c2').textContent).toBe('0:15');
    expect(screen.getByText(fill(en['console.chat.waiting.count'], { count: 2 })).getAttribute('role')).toBe('status');
    // Another agent accepted Pat: gone from the queue.
    frame({ type: 'queue', waiting: [sam], mine: [], offline: [] });
    expect(screen.queryByText('Pat')).toBeNull();
  });

  it('says another agent took the conversation (409 ALREADY_TAKEN) and reads the queue again', async () => {
    let taken = false;
    const calls = await chatPage((method, path) => {
      if (path === '/chat/queue') return { status: 200, body: { waiting: taken ? [sam] : [pat, sam], mine: [], offline: [] } };
      if (method === 'POST' && path === '/chat/conversations/c1/accept') {
        taken = true;
        return { status: 409, body: { errorCode: 'ALREADY_TAKEN' } };
      }
    });
    fireEvent.click(await screen.findByRole('button', { name: fill(en['console.chat.accept'], { name: 'Pat' }) }));
    const alert = await screen.findByText(en['console.chat.error.alreadyTaken']);
    expect(alert.getAttribute('role')).toBe('alert');
    await waitFor(() => expect(screen.queryByRole('button', { name: fill(en['console.chat.accept'], { name: 'Pat' }) })).toBeNull());
    // Its button gone, the focus is on the refusal (issue 32), not on <body>.
    expect(document.activeElement).toBe(alert);
    expect(calls.filter((c) => c.path === '/chat/queue').length).toBeGreaterThanOrEqual(2);
    expect(screen.queryByRole('textbox', { name: fill(en['console.chat.composer.label'], { name: 'Pat' }) })).toBeNull();
  });

  it('says the agent holds as many chats as allowed (409 AGENT_LIMIT)', async () => {
    await chatPage((method, path) => {
      if (path === '/chat/queue') return { status: 200, body: { waiting: [pat], mine: [], offline: [] } };
      if (method === 'POST' && path === '/chat/conversations/c1/accept') return { status: 409, body: { errorCode: 'AGENT_LIMIT' } };
    });
    fireEvent.click(await screen.findByRole('button', { name: fill(en['console.chat.accept'], { name: 'Pat' }) }));
    expect((await screen.findByText(en['console.chat.error.agentLimit'])).getAttribute('role')).toBe('alert');
  });

  it('accepts: focus goes to the composer, the transcript is there, the socket follows it live', async () => {
    let accepted = false;
    const held: Item = { ...pat, status: 'active', agentId: '1', agentName: 'Agent' };
    await chatPage((method, path) => {
      if (path === '/chat/queue') return { status: 200, body: { waiting: accepted ? [] : [pat], mine: accepted ? [held] : [], offline: [] } };
      if (method === 'POST' && path === '/chat/conversations/c1/accept') {
        accepted = true;
        return { status: 200, body: held };
      }
      if (path === '/chat/conversations/c1')
        return {
          status: 200,
          body: {
            item: held,
            messages: [
              { seq: 1, sender: 'bot', body: 'Bonjour! Comment puis-je aider?', at: '2026-11-25T19:58:00Z' },
              { seq: 2, sender: 'system', body: '', at: '2026-11-25T19:58:30Z', system: { key: 'handover' } },
            ],
          },
        };
    });
    open();
    fireEvent.click(await screen.findByRole('button', { name: fill(en['console.chat.accept'], { name: 'Pat' }) }));
    const box = await screen.findByRole('textbox', { name: fill(en['console.chat.composer.label'], { name: 'Pat' }) });
    await waitFor(() => expect(document.activeElement).toBe(box));
    // The visitor's context.
    const article = screen.getByRole('article', { name: fill(en['console.chat.conversation.title'], { name: 'Pat' }) });
    expect(within(article).getByText('pat@example.com')).toBeTruthy();
    expect(within(article).getByText('/login')).toBeTruthy();
    expect(within(article).getByText('locked')).toBeTruthy();
    // The transcript so far, then the subscription from its last seq.
    const log = screen.getByRole('log', { name: fill(en['console.chat.transcript.label'], { name: 'Pat' }) });
    await within(log).findByText('Bonjour! Comment puis-je aider?');
    expect(log.getAttribute('aria-live')).toBe('polite');
    expect(within(log).getByText(en['console.chat.system.handover'])).toBeTruthy();
    await waitFor(() => expect(socket().sent).toContainEqual({ type: 'subscribe', conversationId: 'c1', after: expect.any(Number) }));
    // Live: a message (twice: shown once), typing, and the read receipt of the agent's message.
    frame({ type: 'message', conversationId: 'c1', seq: 3, sender: 'visitor', body: 'Je suis bloqué <script>', at: '2026-11-25T20:00:05Z' });
    frame({ type: 'message', conversationId: 'c1', seq: 3, sender: 'visitor', body: 'Je suis bloqué <script>', at: '2026-11-25T20:00:05Z' });
    expect(within(log).getAllByText('Je suis bloqué <script>')).toHaveLength(1);
    await waitFor(() => expect(socket().sent).toContainEqual({ type: 'read', conversationId: 'c1', seq: 3 }));
    frame({ type: 'typing', conversationId: 'c1', on: true });
    expect(screen.getByText(fill(en['console.chat.typing.visitor'], { name: 'Pat' }))).toBeTruthy();
    frame({ type: 'typing', conversationId: 'c1', on: false });
    expect(screen.queryByText(fill(en['console.chat.typing.visitor'], { name: 'Pat' }))).toBeNull();
    frame({ type: 'message', conversationId: 'c1', seq: 4, sender: 'agent', agentName: 'Agent', body: 'Je regarde.', at: '2026-11-25T20:00:09Z' });
    expect(within(log).getByText(en['console.chat.receipt.sent'])).toBeTruthy();
    frame({ type: 'read', conversationId: 'c1', seq: 4 });
    expect(within(log).getByText(en['console.chat.receipt.read'])).toBeTruthy();
    // A reconnect subscribes again from the last seq held: nothing lost, nothing repeated.
    act(() => socket().options.onStatus?.('reconnecting'));
    expect(await screen.findByText(en['console.chat.reconnecting'])).toBeTruthy();
    const before = socket().sent.length;
    open();
    await waitFor(() => expect(socket().sent.slice(before)).toContainEqual({ type: 'subscribe', conversationId: 'c1', after: 4 }));
  });

  it('sends with Enter, not with Shift+Enter; counts to 2000 and refuses longer; shows a message as sending until its echo', async () => {
    const held: Item = { ...pat, status: 'active' };
    await chatPage(holding(held));
    open();
    fireEvent.click(await screen.findByRole('button', { name: 'Pat' }));
    const box = await screen.findByRole('textbox', { name: fill(en['console.chat.composer.label'], { name: 'Pat' }) });
    fireEvent.change(box, { target: { value: 'Salut' } });
    expect(screen.getByText(fill(en['console.chat.composer.count'], { count: 5, max: 2000 }))).toBeTruthy();
    expect(socket().sent).toContainEqual({ type: 'typing', conversationId: 'c1', on: true });
    fireEvent.keyDown(box, { key: 'Enter', shiftKey: true });
    expect(socket().sent.some((f) => f.type === 'message')).toBe(false);
    fireEvent.keyDown(box, { key: 'Enter' });
    const sent = socket().sent.find((f) => f.type === 'message');
    expect(sent).toMatchObject({ type: 'message', conversationId: 'c1', body: 'Salut' });
    expect(socket().sent).toContainEqual({ type: 'typing', conversationId: 'c1', on: false });
    expect((box as HTMLTextAreaElement).value).toBe('');
    const log = screen.getByRole('log');
    expect(within(log).getByText(en['console.chat.receipt.sending'])).toBeTruthy();
    const clientId = sent?.type === 'message' ? sent.clientId : '';
    frame({ type: 'message', conversationId: 'c1', seq: 1, sender: 'agent', body: 'Salut', clientId, at: '2026-11-25T20:00:00Z' });
    expect(within(log).getAllByText('Salut')).toHaveLength(1);
    expect(within(log).queryByText(en['console.chat.receipt.sending'])).toBeNull();
    // 2001 characters: said, marked, not sent.
    fireEvent.change(box, { target: { value: 'x'.repeat(2001) } });
    expect(screen.getByText(fill(en['console.chat.composer.count'], { count: 2001, max: 2000 }))).toBeTruthy();
    expect(box.getAttribute('aria-invalid')).toBe('true');
    fireEvent.keyDown(box, { key: 'Enter' });
    expect((await screen.findByText(en['console.chat.error.tooLong'])).getAttribute('role')).toBe('alert');
    expect(socket().sent.filter((f) => f.type === 'message')).toHaveLength(1);
  });

  it('puts a canned reply of the brand and language in the composer', async () => {
    const held: Item = { ...pat, status: 'active' };
    await chatPage(holding(held));
    fireEvent.click(await screen.findByRole('button', { name: 'Pat' }));
    const box = await screen.findByRole('textbox', { name: fill(en['console.chat.composer.label'], { name: 'Pat' }) });
    // French conversation of belair: the French replies only.
    expect(screen.queryByRole('button', { name: fill(en['console.chat.canned.insert'], { text: 'Hello, how can I help?' }) })).toBeNull();
    fireEvent.change(box, { target: { value: 'Merci.' } });
    fireEvent.click(screen.getByRole('button', { name: fill(en['console.chat.canned.insert'], { text: 'Un instant, je vérifie.' }) }));
    expect((box as HTMLTextAreaElement).value).toBe('Merci. Un instant, je vérifie.');
    await waitFor(() => expect(document.activeElement).toBe(box));
  });

  it('transfers to an available agent chosen in a dialog; a refusal is worded', async () => {
    const held: Item = { ...pat, status: 'active' };
    let refuse = true;
    const calls = await chatPage(
      holding(held, () => refuse, (method, path) => {
        if (path === '/chat/agents')
          return {
            status: 200,
            body: [
              { id: '1', name: 'Agent', languages: ['en', 'fr'], active: 1, max: 3 },
              { id: '7', name: 'Marie', languages: ['fr'], active: 0, max: 3 },
              { id: '8', name: 'John', languages: ['en'], active: 0, max: 3 },
            ],
          };
        if (method === 'POST' && path === '/chat/conversations/c1/transfer') {
          if (refuse) {
            refuse = false;
            return { status: 409, body: { errorCode: 'AGENT_LIMIT' } };
          }
          return { status: 200, body: {} };
        }
      }),
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Pat' }));
    fireEvent.click(await screen.findByRole('button', { name: en['console.chat.transfer.open'] }));
    const dialog = await screen.findByRole('dialog', { name: fill(en['console.chat.transfer.title'], { name: 'Pat' }) });
    // Not oneself, not an agent who does not take French.
    const choices = await within(dialog).findAllByRole('radio');
    expect(choices).toHaveLength(1);
    within(dialog).getByLabelText(fill(en['console.chat.transfer.agent'], { name: 'Marie', active: 0, max: 3 }));
    fireEvent.click(within(dialog).getByRole('button', { name: en['console.chat.transfer.submit'] }));
    expect(await within(dialog).findByText(en['console.chat.transfer.choose'])).toBeTruthy();
    fireEvent.click(choices[0] as HTMLElement);
    fireEvent.click(within(dialog).getByRole('button', { name: en['console.chat.transfer.submit'] }));
    expect((await within(dialog).findByText(en['console.chat.error.transferRefused'])).getAttribute('role')).toBe('alert');
    fireEvent.click(within(dialog).getByRole('button', { name: en['console.chat.transfer.submit'] }));
    expect(await screen.findByText(fill(en['console.chat.done.transferred'], { name: 'Pat', agent: 'Marie' }))).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST' && c.path.endsWith('/transfer')).map((c) => c.body)).toEqual([{ staffId: '7' }, { staffId: '7' }]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('ends a chat after a confirmation', async () => {
    const held: Item = { ...pat, status: 'active' };
    let live = true;
    const calls = await chatPage(
      holding(held, () => live, (method, path) => {
        if (method === 'POST' && path === '/chat/conversations/c1/end') {
          live = false;
          return { status: 200, body: {} };
        }
      }),
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Pat' }));
    fireEvent.click(await screen.findByRole('button', { name: en['console.chat.end.open'] }));
    const dialog = await screen.findByRole('dialog', { name: en['console.chat.end.title'] });
    expect(calls.some((c) => c.path.endsWith('/end'))).toBe(false);
    await act(async () => fireEvent.click(within(dialog).getByRole('button', { name: en['console.chat.end.submit'] })));
    expect(await screen.findByText(fill(en['console.chat.done.ended'], { name: 'Pat' }))).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Pat' })).toBeNull());
  });

  it('keeps a chat the visitor ended readable until the agent closes it', async () => {
    const held: Item = { ...pat, status: 'active' };
    await chatPage((_method, path) => {
      if (path === '/chat/queue') return { status: 200, body: { waiting: [], mine: [held], offline: [] } };
      if (path === '/chat/conversations/c1') return { status: 200, body: { item: held, messages: [{ seq: 1, sender: 'visitor', body: 'Merci, au revoir', at: '2026-11-25T20:00:00Z' }] } };
    });
    open();
    fireEvent.click(await screen.findByRole('button', { name: 'Pat' }));
    await screen.findByText('Merci, au revoir');
    frame({ type: 'message', conversationId: 'c1', seq: 2, sender: 'system', body: '', at: '2026-11-25T20:00:05Z', system: { key: 'ended' } });
    frame({ type: 'state', conversationId: 'c1', status: 'ended' });
    frame({ type: 'queue', waiting: [], mine: [], offline: [] });
    expect(screen.getByText(en['console.chat.conversation.ended'])).toBeTruthy();
    expect(screen.getByText('Merci, au revoir')).toBeTruthy();
    expect(screen.queryByRole('textbox', { name: fill(en['console.chat.composer.label'], { name: 'Pat' }) })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: en['console.chat.conversation.close'] }));
    expect(screen.queryByRole('article')).toBeNull();
  });

  it('answers an offline message by email', async () => {
    const left = item('o1', 'Lou', { kind: 'offline', status: 'waiting', email: 'lou@example.com', question: 'Can I change my address?', language: 'en' });
    let answered = false;
    const calls = await chatPage((method, path) => {
      if (path === '/chat/queue') return { status: 200, body: { waiting: [], mine: [], offline: answered ? [] : [left] } };
      if (method === 'POST' && path === '/chat/conversations/o1/reply') {
        answered = true;
        return { status: 202, body: {} };
      }
    });
    expect(await screen.findByText('Can I change my address?')).toBeTruthy();
    const box = screen.getByLabelText(fill(en['console.chat.offline.reply'], { email: 'lou@example.com' }));
    fireEvent.click(screen.getByRole('button', { name: en['console.chat.offline.send'] }));
    expect(await screen.findByText(en['console.chat.offline.empty'])).toBeTruthy();
    fireEvent.change(box, { target: { value: 'Yes: under Profile.' } });
    fireEvent.click(screen.getByRole('button', { name: en['console.chat.offline.send'] }));
    expect(await screen.findByText(fill(en['console.chat.done.answered'], { email: 'lou@example.com' }))).toBeTruthy();
    expect(calls.find((c) => c.path === '/chat/conversations/o1/reply')?.body).toEqual({ body: 'Yes: under Profile.' });
    await waitFor(() => expect(screen.queryByText('Can I change my address?')).toBeNull());
  });

  it('reads a cut question whole from the conversation, and says when a list is partial', async () => {
    const long = 'My question is long. '.repeat(20).trim();
    const preview = [...long].slice(0, 199).join('') + '…';
    const left = item('o2', 'Lou', { kind: 'offline', email: 'lou@example.com', question: preview, language: 'en' });
    await chatPage((_method, path) => {
      if (path === '/chat/queue') return { status: 200, body: { waiting: [pat], waitingTotal: 140, mine: [], offline: [left], offlineTotal: 1 } };
      if (path === '/chat/conversations/o2')
        return { status: 200, body: { item: left, messages: [{ seq: 1, sender: 'visitor', body: long, at: '2026-11-25T19:58:00Z' }] } };
    });
    expect(await screen.findByText(long)).toBeTruthy();
    expect(screen.getByText(fill(en['console.chat.list.partial'], { shown: 1, total: 140 }))).toBeTruthy();
    expect(screen.getByText(fill(en['console.chat.waiting.count'], { count: 140 }))).toBeTruthy();
  });

  it('reads the queue again when the server says a followed conversation went to another agent', async () => {
    let reads = 0;
    await chatPage((_method, path) => {
      if (path === '/chat/queue') {
        reads++;
        return { status: 200, body: { waiting: [], mine: [], offline: [] } };
      }
    });
    open();
    const before = reads;
    frame({ type: 'error', errorCode: 'NOT_HOLDER', conversationId: 'c1' } as ServerFrame);
    await waitFor(() => expect(reads).toBe(before + 1));
  });

  it('asks whether the session ended when the server closes the socket for good (4401)', async () => {
    let ended = false;
    const calls = await chatPage((_method, path) => {
      if (path === '/chat/queue') return { status: 200, body: { waiting: [], mine: [], offline: [] } };
      if (path === '/chat/availability' && ended) return { status: 401, body: { errorCode: 'SIGN_IN_REQUIRED' } };
    });
    open();
    const asked = calls.filter((c) => c.path === '/chat/availability').length;
    ended = true;
    act(() => socket().options.onStatus?.('closed'));
    await screen.findByRole('heading', { level: 1, name: en['console.signIn.title'] });
    expect(calls.filter((c) => c.path === '/chat/availability').length).toBe(asked + 1);
  });

  it('goes available or away with the languages taken', async () => {
    const calls = await chatPage((method, path, body) => {
      if (path === '/chat/queue') return { status: 200, body: { waiting: [], mine: [], offline: [] } };
      if (path === '/chat/availability' && method === 'GET') return { status: 200, body: { status: 'away', languages: [] } };
      if (path === '/chat/availability' && method === 'PUT') return { status: 200, body };
    });
    await screen.findByText(en['console.chat.availability.isAway']);
    fireEvent.click(screen.getByLabelText('English'));
    fireEvent.click(screen.getByRole('radio', { name: en['console.chat.availability.available'] }));
    expect(await screen.findByText(fill(en['console.chat.availability.isAvailable'], { languages: en['console.chat.language.fr'] }))).toBeTruthy();
    fireEvent.click(screen.getByLabelText('Français'));
    expect((await screen.findByText(en['console.chat.availability.noLanguage'])).getAttribute('role')).toBe('alert');
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([
      { status: 'away', languages: ['fr'] },
      { status: 'available', languages: ['fr'] },
    ]);
  });

  it('speaks French', async () => {
    await chatPage((method, path) => {
      if (path === '/chat/queue') return { status: 200, body: { waiting: [pat], mine: [], offline: [] } };
      if (method === 'POST' && path === '/chat/conversations/c1/accept') return { status: 409, body: { errorCode: 'ALREADY_TAKEN' } };
    }, 'fr');
    fireEvent.click(await screen.findByRole('button', { name: fill(consoleFr['console.chat.accept'], { name: 'Pat' }) }));
    expect(await screen.findByText(consoleFr['console.chat.error.alreadyTaken'])).toBeTruthy();
    expect(screen.getByRole('link', { name: consoleFr['console.nav.chat'] })).toBeTruthy();
  });

  it('goes back to /sign-in when the session ended', async () => {
    at('/chat');
    serve((_method, path) => {
      if (path === '/session') return { status: 200, body: agent };
      return { status: 401, body: { errorCode: 'SIGN_IN_REQUIRED' } };
    });
    render(<ConsoleApp initialLanguage="en" />);
    await screen.findByRole('heading', { level: 1, name: en['console.signIn.title'] });
    expect(screen.getByText(en['console.error.signInRequired'])).toBeTruthy();
    // Signed out: the socket is closed.
    await waitFor(() => expect(sockets.list.every((s) => s.closed)).toBe(true));
  });
});

describe('supervisors', () => {
  const supervisor = { ...agent, id: '2', role: 'supervisor', brands: [] };

  it('shows the figures, live from the figures frames; agents have no such page', async () => {
    at('/chat/figures');
    serve((_method, path) => {
      if (path === '/session') return { status: 200, body: supervisor };
      if (path === '/chat/queue') return { status: 200, body: { waiting: [], mine: [], offline: [] } };
      if (path === '/chat/figures')
        return { status: 200, body: { waiting: 2, active: 1, averageWaitSeconds: 75, agents: [{ id: '1', name: 'Agent', status: 'available', active: 1, handled: 4 }] } };
    });
    render(<ConsoleApp initialLanguage="en" />);
    await screen.findByRole('heading', { level: 1, name: en['console.chat.figures.title'] });
    expect((await screen.findByTestId('figures-waiting')).textContent).toBe('2');
    expect(screen.getByTestId('figures-average').textContent).toBe('1:15');
    const row = screen.getByRole('cell', { name: 'Agent' }).closest('tr') as HTMLElement;
    expect(within(row).getByText(en['console.chat.availability.available'])).toBeTruthy();
    expect(within(row).getByText('4')).toBeTruthy();
    open();
    frame({ type: 'figures', waiting: 0, active: 3, averageWaitSeconds: 30, agents: [{ id: '1', name: 'Agent', status: 'away', active: 0, handled: 5 }] });
    expect(screen.getByTestId('figures-waiting').textContent).toBe('0');
    expect(screen.getByTestId('figures-active').textContent).toBe('3');
    expect(within(screen.getByRole('cell', { name: 'Agent' }).closest('tr') as HTMLElement).getByText(en['console.chat.availability.away'])).toBeTruthy();
  });

  it('reads the figures again every few seconds while no socket brings them', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    at('/chat/figures');
    let waiting = 1;
    const calls = serve((_method, path) => {
      if (path === '/session') return { status: 200, body: supervisor };
      if (path === '/chat/queue') return { status: 200, body: { waiting: [], mine: [], offline: [] } };
      if (path === '/chat/figures') return { status: 200, body: { waiting: waiting++, active: 0, averageWaitSeconds: 0, agents: [] } };
    });
    render(<ConsoleApp initialLanguage="en" />);
    await waitFor(() => expect(screen.getByTestId('figures-waiting').textContent).toBe('1'));
    await act(async () => vi.advanceTimersByTime(5_000));
    await waitFor(() => expect(screen.getByTestId('figures-waiting').textContent).toBe('2'));
    expect(calls.filter((c) => c.path === '/chat/figures')).toHaveLength(2);
  });

  it('an agent sees no figures nor transcripts', async () => {
    at('/chat/figures');
    chatServer((_m, path) => (path === '/chat/queue' ? { status: 200, body: { waiting: [], mine: [], offline: [] } } : undefined));
    render(<ConsoleApp initialLanguage="en" />);
    await screen.findByRole('link', { name: en['console.nav.chat'] });
    expect(screen.queryByRole('link', { name: en['console.nav.chatFigures'] })).toBeNull();
    expect(screen.queryByRole('link', { name: en['console.nav.chatTranscripts'] })).toBeNull();
    expect(screen.queryByRole('heading', { level: 1, name: en['console.chat.figures.title'] })).toBeNull();
  });

  it('searches transcripts by words, dates and brand, and reads one', async () => {
    at('/chat/transcripts');
    const found: Item = { ...pat, status: 'ended', agentName: 'Agent', snippet: '…mot de passe oublié…' };
    const calls = serve((_method, path) => {
      if (path === '/session') return { status: 200, body: supervisor };
      if (path === '/chat/queue') return { status: 200, body: { waiting: [], mine: [], offline: [] } };
      if (path.startsWith('/chat/transcripts')) return { status: 200, body: { items: [found] } };
      if (path === '/chat/conversations/c1')
        return { status: 200, body: { item: found, messages: [{ seq: 1, sender: 'visitor', body: 'J’ai oublié mon mot de passe', at: '2026-11-25T19:58:00Z' }] } };
    });
    render(<ConsoleApp initialLanguage="en" />);
    await screen.findByRole('heading', { level: 1, name: en['console.chat.transcripts.title'] });
    fireEvent.change(screen.getByLabelText(en['console.chat.transcripts.query']), { target: { value: ' mot de passe ' } });
    fireEvent.change(screen.getByLabelText(en['console.audit.from']), { target: { value: '2026-11-01' } });
    fireEvent.change(screen.getByLabelText(en['console.audit.to']), { target: { value: '2026-11-30' } });
    fireEvent.change(screen.getByLabelText(en['console.search.brand']), { target: { value: 'belair' } });
    fireEvent.click(screen.getByRole('button', { name: en['console.chat.transcripts.submit'] }));
    fireEvent.click(await screen.findByRole('button', { name: fill(en['console.chat.transcripts.view'], { name: 'Pat' }) }));
    expect(await screen.findByText('J’ai oublié mon mot de passe')).toBeTruthy();
    expect(calls.find((c) => c.path.startsWith('/chat/transcripts'))?.path).toBe(
      '/chat/transcripts?q=mot+de+passe&from=2026-11-01&to=2026-11-30&brand=belair',
    );
  });
});
