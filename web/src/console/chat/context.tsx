import { createContext, use, useCallback, useEffect, useMemo, useReducer, useRef, type ReactNode } from 'react';
import { chatApi, type ChatMessage, type ClientFrame, type Figures, type Queue, type ServerFrame } from './api';
import { agentSocketUrl, openAgentSocket, type AgentSocket, type OpenSocket, type SocketStatus } from './socket';

/** A message the agent sent that the server has not stored yet (no seq). */
export interface Pending {
  clientId: string;
  body: string;
  errorCode?: string;
}

export interface ChatState {
  queue: Queue | null;
  /** Per conversation: its messages in seq order, each once. */
  messages: Record<string, ChatMessage[]>;
  pending: Record<string, Pending[]>;
  /** The visitor is typing. */
  typing: Record<string, boolean>;
  /** The visitor has read up to this seq. */
  read: Record<string, number>;
  /** Conversations the visitor (or the server) ended while open here. */
  ended: Record<string, boolean>;
  figures: Figures | null;
  status: SocketStatus;
  /** The server's clock minus this browser's (ms), from the Date header: waiting times use the server's clock. */
  skew: number;
  /** The last refusal the socket sent about a conversation (error frame). */
  socketError: { conversationId: string; errorCode: string } | null;
}

export type Action =
  | { kind: 'frame'; frame: ServerFrame }
  | { kind: 'queue'; queue: Queue; serverDate?: number }
  | { kind: 'messages'; conversationId: string; messages: ChatMessage[] }
  | { kind: 'pending'; conversationId: string; pending: Pending }
  | { kind: 'figures'; figures: Figures }
  | { kind: 'status'; status: SocketStatus }
  | { kind: 'reset' };

export const initialState: ChatState = {
  queue: null,
  messages: {},
  pending: {},
  typing: {},
  read: {},
  ended: {},
  figures: null,
  status: 'closed',
  skew: 0,
  socketError: null,
};

/** Adds messages to a conversation's list: kept in seq order, a seq seen before is dropped. */
export function merge(list: ChatMessage[], more: ChatMessage[]): ChatMessage[] {
  const bySeq = new Map(list.map((m) => [m.seq, m]));
  let changed = false;
  for (const m of more) {
    if (typeof m.seq !== 'number' || bySeq.has(m.seq)) continue;
    bySeq.set(m.seq, m);
    changed = true;
  }
  if (!changed) return list;
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/** The last seq of a conversation held here (0: none). */
export function lastSeq(state: ChatState, conversationId: string): number {
  return state.messages[conversationId]?.at(-1)?.seq ?? 0;
}

function withMessages(state: ChatState, conversationId: string, messages: ChatMessage[]): ChatState {
  const list = merge(state.messages[conversationId] ?? [], messages);
  const acked = new Set(messages.map((m) => m.clientId).filter(Boolean));
  const pending = (state.pending[conversationId] ?? []).filter((p) => !acked.has(p.clientId));
  const ended = messages.some((m) => m.sender === 'system' && m.system?.key === 'ended');
  return {
    ...state,
    messages: list === state.messages[conversationId] ? state.messages : { ...state.messages, [conversationId]: list },
    pending: { ...state.pending, [conversationId]: pending },
    ended: ended ? { ...state.ended, [conversationId]: true } : state.ended,
  };
}

/**
 * The server's clock minus this browser's: from the Date header when there is
 * one, and never behind the latest instant the queue names (a server whose
 * clock is shifted, GUICHET_DEV_NOW, still shows waits from 0 up).
 */
function skewOf(state: ChatState, queue: Queue, serverDate?: number): number {
  const local = Date.now();
  let skew = serverDate === undefined ? state.skew : serverDate - local;
  for (const item of [...queue.waiting, ...queue.mine]) {
    const at = Date.parse(item.waitingSince || item.createdAt);
    if (!Number.isNaN(at)) skew = Math.max(skew, at - local);
  }
  return skew;
}

export function reduce(state: ChatState, action: Action): ChatState {
  switch (action.kind) {
    case 'reset':
      return initialState;
    case 'status':
      return { ...state, status: action.status };
    case 'queue':
      return { ...state, queue: action.queue, skew: skewOf(state, action.queue, action.serverDate) };
    case 'figures':
      return { ...state, figures: action.figures };
    case 'messages':
      return withMessages(state, action.conversationId, action.messages);
    case 'pending':
      return {
        ...state,
        pending: { ...state.pending, [action.conversationId]: [...(state.pending[action.conversationId] ?? []), action.pending] },
      };
    case 'frame': {
      const frame = action.frame;
      switch (frame.type) {
        case 'queue': {
          const queue = { waiting: frame.waiting ?? [], mine: frame.mine ?? [], offline: frame.offline ?? [] };
          return { ...state, queue, skew: skewOf(state, queue) };
        }
        case 'message':
          return withMessages(state, frame.conversationId, [frame]);
        case 'typing':
          return { ...state, typing: { ...state.typing, [frame.conversationId]: frame.on } };
        case 'read':
          return { ...state, read: { ...state.read, [frame.conversationId]: Math.max(state.read[frame.conversationId] ?? 0, frame.seq) } };
        case 'state':
          return frame.status === 'ended' ? { ...state, ended: { ...state.ended, [frame.conversationId]: true } } : state;
        case 'figures': {
          return { ...state, figures: { waiting: frame.waiting, active: frame.active, averageWaitSeconds: frame.averageWaitSeconds, agents: frame.agents ?? [] } };
        }
        case 'error': {
          const conversationId = frame.conversationId ?? '';
          let pending = state.pending;
          if (frame.clientId) {
            pending = Object.fromEntries(
              Object.entries(state.pending).map(([id, list]) => [
                id,
                list.map((p) => (p.clientId === frame.clientId ? { ...p, errorCode: frame.errorCode } : p)),
              ]),
            );
          }
          return { ...state, pending, socketError: { conversationId, errorCode: frame.errorCode } };
        }
        default:
          return state;
      }
    }
  }
}

export interface Chat {
  state: ChatState;
  /** Opens the agent socket (once; it stays open while the staff member is signed in). */
  start(): void;
  send(frame: ClientFrame): void;
  dispatch(action: Action): void;
  /** Reads the queue again (GET queue). */
  refreshQueue(): Promise<void>;
}

const ChatContext = createContext<Chat | null>(null);

export function useChat(): Chat {
  const chat = use(ChatContext);
  if (!chat) throw new Error('useChat outside ChatProvider');
  return chat;
}

/** How often the queue is read again while no socket brings it (ms). */
export const POLL_MS = 5_000;

/**
 * The chat's state for the signed-in staff member. The agent socket opens
 * when a chat page first asks (start) and stays open across the console's
 * pages, so an agent looking a customer up stays present; it closes on
 * sign-out. The provider stays in place around the pages whoever is signed
 * in (a page's state survives the sign-in, the set-up's recovery codes say). On every (re)opening the conversations held are subscribed again
 * from their last seq, so a reconnect loses and repeats nothing.
 */
export function ChatProvider({ children, staffId, open = openAgentSocket }: { children: ReactNode; staffId: string | null; open?: OpenSocket | null }) {
  const [state, dispatch] = useReducer(reduce, initialState);
  const socket = useRef<AgentSocket | null>(null);
  const started = useRef(false);
  /** This page closes the socket (sign-out): its end says nothing of the session. */
  const closing = useRef(false);
  const subscribed = useRef(new Set<string>());
  const stateRef = useRef(state);
  stateRef.current = state;

  const refreshQueue = useCallback(async () => {
    const answer = await chatApi.queue();
    if (answer.status === 200 && answer.data) dispatch({ kind: 'queue', queue: answer.data, serverDate: answer.serverDate });
  }, []);

  const start = useCallback(() => {
    if (started.current) return;
    started.current = true;
    void refreshQueue();
    if (!open) return;
    socket.current = open({
      url: () => agentSocketUrl(),
      onFrame: (frame) => {
        dispatch({ kind: 'frame', frame });
        // The conversation went to another agent (transfer, or accepted while
        // followed): the queue says where it is now.
        if (frame.type === 'error' && frame.errorCode === 'NOT_HOLDER' && frame.conversationId) {
          subscribed.current.delete(frame.conversationId);
          void refreshQueue();
        }
      },
      onStatus: (status) => {
        // A new connection knows no subscription: each held conversation is subscribed again from its last seq.
        if (status !== 'open') subscribed.current.clear();
        dispatch({ kind: 'status', status });
        // A socket refused before the upgrade says nothing to the page, and
        // one the server closed for good (4401: the staff session ended) no
        // more: a call tells whether the session ended (the console's own
        // handling goes to sign-in then).
        if (status === 'reconnecting' || (status === 'closed' && !closing.current)) void chatApi.availability();
      },
    });
  }, [open, refreshQueue]);

  // Signed out (or another member signed in): the socket closes, the state goes.
  useEffect(
    () => () => {
      closing.current = true;
      socket.current?.close();
      closing.current = false;
      socket.current = null;
      started.current = false;
      subscribed.current.clear();
      dispatch({ kind: 'reset' });
    },
    [staffId],
  );

  // Every conversation the agent holds is followed live, replayed after its last seq.
  const mine = state.queue?.mine;
  useEffect(() => {
    if (state.status !== 'open') return;
    for (const item of mine ?? []) {
      if (subscribed.current.has(item.id)) continue;
      subscribed.current.add(item.id);
      socket.current?.send({ type: 'subscribe', conversationId: item.id, after: lastSeq(stateRef.current, item.id) });
    }
  }, [mine, state.status]);

  // No socket bringing the queue: read it again now and then.
  const polling = state.status !== 'open' && started.current;
  useEffect(() => {
    if (!polling) return;
    const timer = setInterval(() => void refreshQueue(), POLL_MS);
    return () => clearInterval(timer);
  }, [polling, refreshQueue]);

  const send = useCallback((frame: ClientFrame) => socket.current?.send(frame), []);
  const chat = useMemo(() => ({ state, start, send, dispatch, refreshQueue }), [state, start, send, refreshQueue]);
  return <ChatContext value={chat}>{children}</ChatContext>;
}
