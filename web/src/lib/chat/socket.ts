// The reconnecting chat socket, shared by the visitor's widget
// (web/src/features/chat) and the agents' console (web/src/console/chat).
//
// - Reconnects after any close but 1000 (conversation ended), 4404
//   (conversation unknown or ended) and 4401 (the agent's session ended)
//   (finalCloseCodes: the co-browse viewer adds 4403 and 4409; onFinal tells which),
//   waiting a full-jitter backoff: random() × min(15 s, 0.5 s × 2^attempt);
//   an open resets the attempt.
// - Resumes: every (re)connection asks url(lastSeq()), so the server replays
//   what was missed; a message frame whose seq was seen already is dropped, so
//   onFrame sees each message once, in order. The seq is tracked per key: the
//   frame's conversationId (the agent socket) or '' (the visitor's).
// - Client messages stay unacknowledged until the server sends a message frame
//   with their clientId (or an error frame naming it); after a reconnection
//   they are sent again with the same clientId (the server answers the same
//   seq, no duplicate). Other frames sent while disconnected are queued and
//   sent on open, except ping and typing, which are only worth sending now
//   (transientTypes: the co-browse viewer's pointer too).
// - Heartbeat: {"type":"ping"} every heartbeatMs while open; a connection that
//   stayed silent for two heartbeats is dropped and reconnected.
// - The browser's offline event drops the connection at once (the socket is
//   likely dead); while navigator.onLine is false no reconnection is tried,
//   and the online event retries at once instead of waiting out the backoff.

import type { ClientFrame, ServerFrame, SocketStatus } from './frames';

export type { SocketStatus } from './frames';

/** The part of the browser's WebSocket the chat socket uses (a fake in tests). */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((ev: Event) => void) | null;
  onmessage: ((ev: MessageEvent) => void) | null;
  onclose: ((ev: CloseEvent) => void) | null;
  onerror: ((ev: Event) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type WebSocketClass = new (url: string) => WebSocketLike;

export interface ChatSocketOptions<S extends { type: string } = ServerFrame> {
  /** Builds the ws(s):// URL with the resume point (the last seq seen, 0 at first). */
  url: (after: number) => string;
  /** Every frame; message frames once each (seq-deduplicated). */
  onFrame: (frame: S) => void;
  onStatus?: (status: SocketStatus) => void;
  /** Ping period (default 20 000 ms). */
  heartbeatMs?: number;
  /** Test seams: the WebSocket class (default the browser's) and the jitter's random (default Math.random). */
  WebSocket?: WebSocketClass;
  random?: () => number;
  /** Where online/offline events come from (default window when there is one; null: none). */
  events?: Pick<Window, 'addEventListener' | 'removeEventListener'> | null;
  /** Whether the browser may be online (default navigator.onLine); while false no connection is tried. */
  online?: () => boolean;
  /** Close codes after which no reconnection is tried (default FINAL_CLOSE_CODES). */
  finalCloseCodes?: ReadonlySet<number>;
  /** Frame types only worth sending now: dropped while not open, never queued (default ping and typing). */
  transientTypes?: readonly string[];
  /** A final close code closed the socket (not called on close()). */
  onFinal?: (code: number) => void;
}

export interface ChatSocket<C extends { type: string } = ClientFrame> {
  send(frame: C): void;
  close(): void;
  /** The last message seq seen for a conversation ('' or omitted: the visitor's). */
  lastSeq(conversationId?: string): number;
}

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 15_000;
export const HEARTBEAT_MS = 20_000;
/**
 * Close codes after which the socket does not reconnect: 1000 (ended), 4404
 * (conversation unknown or ended), 4401 (the agent's staff session ended).
 */
export const FINAL_CLOSE_CODES: ReadonlySet<number> = new Set([1000, 4401, 4404]);

/** Frame types dropped while disconnected by default: ping and typing (only worth sending now). */
export const TRANSIENT_TYPES: readonly string[] = ['ping', 'typing'];

const OPEN = 1;

/** The full-jitter backoff before reconnection number attempt (0-based). */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}

interface Keyed {
  type: string;
  seq?: unknown;
  clientId?: unknown;
  conversationId?: unknown;
}

function keyOf(frame: Keyed): string {
  return typeof frame.conversationId === 'string' ? frame.conversationId : '';
}

export function openChatSocket<S extends { type: string } = ServerFrame, C extends { type: string } = ClientFrame>(
  o: ChatSocketOptions<S>,
): ChatSocket<C> {
  const WS: WebSocketClass | undefined =
    o.WebSocket ?? (typeof WebSocket === 'undefined' ? undefined : (WebSocket as unknown as WebSocketClass));
  if (!WS) throw new Error('chat socket: no WebSocket in this environment');
  const random = o.random ?? Math.random;
  const heartbeatMs = o.heartbeatMs ?? HEARTBEAT_MS;
  const events = o.events === undefined ? (typeof window === 'undefined' ? null : window) : o.events;
  const online = o.online ?? (() => typeof navigator === 'undefined' || navigator.onLine !== false);
  const finalCodes = o.finalCloseCodes ?? FINAL_CLOSE_CODES;
  const transient = o.transientTypes ?? TRANSIENT_TYPES;

  const seqs = new Map<string, number>();
  /** Messages sent and not acknowledged yet, in the order sent (by clientId). */
  const unacked = new Map<string, C>();
  /** Other frames sent while disconnected. */
  let queued: C[] = [];
  let ws: WebSocketLike | null = null;
  let attempt = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let beatTimer: ReturnType<typeof setInterval> | undefined;
  let silentBeats = 0;
  let stopped = false;
  let status: SocketStatus | null = null;

  function setStatus(s: SocketStatus) {
    if (s === status) return;
    status = s;
    o.onStatus?.(s);
  }

  function detach(sock: WebSocketLike) {
    sock.onopen = sock.onmessage = sock.onclose = sock.onerror = null;
  }

  function stopBeat() {
    if (beatTimer !== undefined) clearInterval(beatTimer);
    beatTimer = undefined;
  }

  function raw(frame: unknown) {
    ws?.send(JSON.stringify(frame));
  }

  function connect() {
    retryTimer = undefined;
    if (stopped) return;
    // Offline for sure: no attempt (it could only fail); the online event, or the next wait, tries again.
    if (ws === null && status === 'reconnecting' && !online()) {
      scheduleReconnect();
      return;
    }
    let sock: WebSocketLike;
    try {
      sock = new WS!(o.url(seqs.get('') ?? 0));
    } catch {
      scheduleReconnect();
      return;
    }
    ws = sock;
    sock.onopen = () => {
      attempt = 0;
      silentBeats = 0;
      setStatus('open');
      // The callback may have closed the socket or sent frames already.
      if (ws !== sock) return;
      for (const frame of unacked.values()) raw(frame);
      const pending = queued;
      queued = [];
      for (const frame of pending) raw(frame);
      stopBeat();
      beatTimer = setInterval(() => {
        if (silentBeats >= 2) {
          drop();
          return;
        }
        silentBeats++;
        raw({ type: 'ping' });
      }, heartbeatMs);
    };
    sock.onmessage = (ev: MessageEvent) => {
      silentBeats = 0;
      let frame: Keyed;
      try {
        frame = JSON.parse(String(ev.data)) as Keyed;
      } catch {
        return;
      }
      if (!frame || typeof frame !== 'object' || typeof frame.type !== 'string') return;
      if (frame.type === 'message' && typeof frame.seq === 'number') {
        const key = keyOf(frame);
        if (frame.seq <= (seqs.get(key) ?? 0)) return;
        seqs.set(key, frame.seq);
        if (typeof frame.clientId === 'string') unacked.delete(frame.clientId);
      } else if (frame.type === 'error' && typeof frame.clientId === 'string') {
        unacked.delete(frame.clientId);
      }
      o.onFrame(frame as unknown as S);
    };
    sock.onclose = (ev: CloseEvent) => {
      detach(sock);
      if (ws === sock) ws = null;
      stopBeat();
      if (finalCodes.has(ev.code)) {
        finish();
        o.onFinal?.(ev.code);
        return;
      }
      scheduleReconnect();
    };
    sock.onerror = () => {
      // A close event follows; it decides.
    };
  }

  function scheduleReconnect() {
    if (stopped) return;
    setStatus('reconnecting');
    if (retryTimer !== undefined) clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, backoffDelay(attempt++, random));
  }

  /** Gives up on the current connection (silent, or the browser went offline) and reconnects. */
  function drop() {
    const sock = ws;
    stopBeat();
    if (sock) {
      detach(sock);
      ws = null;
      try {
        sock.close(4000, 'reconnect');
      } catch {
        // already closing
      }
    }
    scheduleReconnect();
  }

  function onOffline() {
    if (ws) drop();
  }

  function onOnline() {
    if (stopped || ws) return;
    if (retryTimer !== undefined) clearTimeout(retryTimer);
    attempt = 0;
    connect();
  }

  function finish() {
    stopped = true;
    stopBeat();
    if (retryTimer !== undefined) clearTimeout(retryTimer);
    retryTimer = undefined;
    events?.removeEventListener('offline', onOffline);
    events?.removeEventListener('online', onOnline);
    setStatus('closed');
  }

  events?.addEventListener('offline', onOffline);
  events?.addEventListener('online', onOnline);
  setStatus('connecting');
  connect();

  return {
    send(frame: C) {
      if (stopped) return;
      const f = frame as unknown as Keyed;
      const open = ws !== null && ws.readyState === OPEN;
      if (f.type === 'message' && typeof f.clientId === 'string') {
        unacked.set(f.clientId, frame);
        if (open) raw(frame);
        return;
      }
      if (open) raw(frame);
      else if (!transient.includes(f.type)) queued.push(frame);
    },
    close() {
      if (stopped) return;
      const sock = ws;
      ws = null;
      if (sock) {
        detach(sock);
        try {
          sock.close(1000, 'bye');
        } catch {
          // already closing
        }
      }
      finish();
    },
    lastSeq(conversationId = '') {
      return seqs.get(conversationId) ?? 0;
    },
  };
}
