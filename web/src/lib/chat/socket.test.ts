import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClientFrame, ServerFrame, SocketStatus } from './frames';
import { FakeSocket } from './fake-socket';
import { BACKOFF_CAP_MS, backoffDelay, openChatSocket } from './socket';

function last(): FakeSocket {
  const s = FakeSocket.all.at(-1);
  if (!s) throw new Error('no socket yet');
  return s;
}

function msg(seq: number, extra: Partial<Extract<ServerFrame, { type: 'message' }>> = {}) {
  return { type: 'message', seq, sender: 'agent', body: `m${seq}`, at: '2026-11-30T13:00:00Z', ...extra };
}

function setup(opts: { random?: () => number; events?: EventTarget | null; online?: () => boolean } = {}) {
  const frames: ServerFrame[] = [];
  const statuses: SocketStatus[] = [];
  const sock = openChatSocket<ServerFrame, ClientFrame>({
    url: (after) => `ws://belair.localhost/api/v1/chat/socket?after=${after}`,
    onFrame: (f) => frames.push(f),
    onStatus: (s) => statuses.push(s),
    heartbeatMs: 1000,
    WebSocket: FakeSocket,
    random: opts.random ?? (() => 0.5),
    events: (opts.events ?? null) as never,
    online: opts.online ?? (() => true),
  });
  return { sock, frames, statuses };
}

beforeEach(() => {
  FakeSocket.all = [];
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('backoffDelay', () => {
  it('is full jitter under a ceiling that doubles from 0.5 s up to 15 s', () => {
    expect(backoffDelay(0, () => 0.999)).toBe(499);
    expect(backoffDelay(1, () => 0.5)).toBe(500);
    expect(backoffDelay(3, () => 0.5)).toBe(2000);
    expect(backoffDelay(10, () => 0.999)).toBe(BACKOFF_CAP_MS - 15);
    expect(backoffDelay(1000, () => 1 - Number.EPSILON)).toBeLessThan(BACKOFF_CAP_MS);
    expect(backoffDelay(5, () => 0)).toBe(0);
  });
});

describe('openChatSocket', () => {
  it('connects with after=0, reports its status and passes frames on', () => {
    const { frames, statuses } = setup();
    expect(last().url).toBe('ws://belair.localhost/api/v1/chat/socket?after=0');
    expect(statuses).toEqual(['connecting']);
    last().open();
    expect(statuses).toEqual(['connecting', 'open']);
    last().receive({ type: 'state', status: 'waiting', queuePosition: 2, agentName: null });
    last().receive(msg(1));
    last().receive('not json');
    last().receive({ no: 'type' });
    expect(frames.map((f) => f.type)).toEqual(['state', 'message']);
  });

  it('reconnects after a drop with backoff, resumes from the last seq and drops seqs seen', () => {
    const { sock, frames, statuses } = setup({ random: () => 0.5 });
    last().open();
    last().receive(msg(1));
    last().receive(msg(2));
    last().receive(msg(2));
    expect(sock.lastSeq()).toBe(2);
    last().serverClose(1006);
    expect(statuses.at(-1)).toBe('reconnecting');
    expect(FakeSocket.all).toHaveLength(1);
    vi.advanceTimersByTime(249); // attempt 0: 0.5 × 500 ms
    expect(FakeSocket.all).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.all).toHaveLength(2);
    expect(last().url).toContain('after=2');
    // The connection fails again: the next wait doubles.
    last().serverClose(1006);
    vi.advanceTimersByTime(499);
    expect(FakeSocket.all).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.all).toHaveLength(3);
    last().open();
    // The server replays from after=2; an overlap is dropped anyway.
    last().receive(msg(2));
    last().receive(msg(3));
    expect(frames.map((f) => (f.type === 'message' ? f.seq : f.type))).toEqual([1, 2, 3]);
    // An open resets the attempt: the next wait is the first one again.
    last().serverClose(1012);
    vi.advanceTimersByTime(250);
    expect(FakeSocket.all).toHaveLength(4);
  });

  it('stops for good on 1000, 4401 and 4404', () => {
    for (const code of [1000, 4401, 4404]) {
      FakeSocket.all = [];
      const { statuses } = setup();
      last().open();
      last().serverClose(code);
      expect(statuses.at(-1)).toBe('closed');
      vi.advanceTimersByTime(60_000);
      expect(FakeSocket.all).toHaveLength(1);
    }
  });

  it('reconnects on 1008 and 1012', () => {
    for (const code of [1008, 1012]) {
      FakeSocket.all = [];
      setup();
      last().open();
      last().serverClose(code);
      vi.advanceTimersByTime(BACKOFF_CAP_MS);
      expect(FakeSocket.all).toHaveLength(2);
    }
  });

  it('queues messages sent while disconnected and resends unacknowledged ones with the same clientId', () => {
    const { sock } = setup();
    sock.send({ type: 'message', clientId: 'a', body: 'hello' });
    sock.send({ type: 'typing', on: true });
    sock.send({ type: 'ping' });
    sock.send({ type: 'read', seq: 4 });
    last().open();
    expect(last().sent).toEqual([
      { type: 'message', clientId: 'a', body: 'hello' },
      { type: 'read', seq: 4 },
    ]);
    sock.send({ type: 'message', clientId: 'b', body: 'second' });
    // Only a is acknowledged (its own seq frame) before the drop.
    last().receive(msg(5, { sender: 'visitor', clientId: 'a', body: 'hello' }));
    last().serverClose(1006);
    sock.send({ type: 'message', clientId: 'c', body: 'third' });
    vi.advanceTimersByTime(BACKOFF_CAP_MS);
    last().open();
    expect(last().url).toContain('after=5');
    expect(last().sent).toEqual([
      { type: 'message', clientId: 'b', body: 'second' },
      { type: 'message', clientId: 'c', body: 'third' },
    ]);
    // Acknowledged, or refused by an error frame: not sent again.
    last().receive(msg(6, { sender: 'visitor', clientId: 'b', body: 'second' }));
    last().receive({ type: 'error', errorCode: 'MESSAGE_TOO_LONG', clientId: 'c' });
    last().serverClose(1012);
    vi.advanceTimersByTime(BACKOFF_CAP_MS);
    last().open();
    expect(last().sent).toEqual([]);
  });

  it('pings every heartbeat and drops a connection silent for two heartbeats', () => {
    const { statuses } = setup();
    last().open();
    vi.advanceTimersByTime(1000);
    expect(last().sent).toEqual([{ type: 'ping' }]);
    last().receive({ type: 'pong' });
    vi.advanceTimersByTime(1000);
    vi.advanceTimersByTime(1000);
    expect(last().sent).toEqual([{ type: 'ping' }, { type: 'ping' }, { type: 'ping' }]);
    expect(FakeSocket.all).toHaveLength(1);
    vi.advanceTimersByTime(1000); // two pings unanswered: dropped
    expect(FakeSocket.all[0]!.closedWith).toBe(4000);
    expect(statuses.at(-1)).toBe('reconnecting');
    vi.advanceTimersByTime(BACKOFF_CAP_MS);
    expect(FakeSocket.all).toHaveLength(2);
  });

  it('drops the connection when the browser goes offline and retries at once when online', () => {
    const events = new EventTarget();
    const { statuses } = setup({ events, random: () => 0.99 });
    last().open();
    events.dispatchEvent(new Event('offline'));
    expect(FakeSocket.all[0]!.closedWith).toBe(4000);
    expect(statuses.at(-1)).toBe('reconnecting');
    vi.advanceTimersByTime(495); // attempt 0: 0.99 × 500 ms
    last().serverClose(1006); // attempt failed while offline
    expect(FakeSocket.all).toHaveLength(2);
    events.dispatchEvent(new Event('online'));
    expect(FakeSocket.all).toHaveLength(3);
    last().open();
    expect(statuses.at(-1)).toBe('open');
    // No second connection from the backoff timer that was pending (990 ms).
    vi.advanceTimersByTime(2500);
    expect(FakeSocket.all).toHaveLength(3);
  });

  it('tries no reconnection while the browser is offline', () => {
    const events = new EventTarget();
    let online = true;
    setup({ events, online: () => online });
    last().open();
    online = false;
    events.dispatchEvent(new Event('offline'));
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(1);
    online = true;
    events.dispatchEvent(new Event('online'));
    expect(FakeSocket.all).toHaveLength(2);
    expect(last().url).toContain('after=0');
  });

  it('close() ends it: no reconnection, no frames, no sends', () => {
    const { sock, frames, statuses } = setup();
    last().open();
    sock.close();
    expect(FakeSocket.all[0]!.closedWith).toBe(1000);
    expect(statuses.at(-1)).toBe('closed');
    last().receive(msg(1));
    sock.send({ type: 'message', clientId: 'x', body: 'late' });
    vi.advanceTimersByTime(60_000);
    expect(frames).toEqual([]);
    expect(FakeSocket.all).toHaveLength(1);
  });

  it('keeps the last seq per conversation on the agent socket', () => {
    type AgentFrame = { type: 'message'; conversationId: string; seq: number; body: string };
    const got: AgentFrame[] = [];
    const sock = openChatSocket<AgentFrame, { type: 'subscribe'; conversationId: string; after: number }>({
      url: () => 'ws://console.localhost/api/console/v1/chat/socket',
      onFrame: (f) => got.push(f),
      WebSocket: FakeSocket,
      events: null,
    });
    last().open();
    last().receive({ type: 'message', conversationId: 'c1', seq: 3, body: 'a' });
    last().receive({ type: 'message', conversationId: 'c2', seq: 1, body: 'b' });
    last().receive({ type: 'message', conversationId: 'c1', seq: 3, body: 'a' });
    last().receive({ type: 'message', conversationId: 'c2', seq: 2, body: 'c' });
    expect(got.map((f) => `${f.conversationId}:${f.seq}`)).toEqual(['c1:3', 'c2:1', 'c2:2']);
    expect(sock.lastSeq('c1')).toBe(3);
    expect(sock.lastSeq('c2')).toBe(2);
    expect(sock.lastSeq()).toBe(0);
  });
});
