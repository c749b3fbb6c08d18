// The visitor's conversation as the widget shows it, built from the socket's
// frames: messages in seq order (each once), the visitor's messages not yet
// acknowledged ('sending'), the status and queue position, the agent typing
// and how far the agent has read.

import type { ChatStatus, MessageFrame, ServerFrame, SocketStatus } from '@/lib/chat/frames';

export type Line = Omit<MessageFrame, 'type'>;

export interface Pending {
  clientId: string;
  body: string;
  /** The server refused it (error frame): MESSAGE_TOO_LONG, RATE_LIMITED… */
  errorCode?: string;
}

export interface ConversationState {
  status: ChatStatus | null;
  queuePosition: number | null;
  agentName: string | null;
  messages: Line[];
  pending: Pending[];
  agentTyping: boolean;
  /** The agent has read the visitor's messages up to this seq. */
  agentRead: number;
  connection: SocketStatus;
  /** The last error frame without a clientId (CONVERSATION_ENDED…). */
  error: string | null;
}

export type Action =
  | { kind: 'frame'; frame: ServerFrame }
  | { kind: 'connection'; status: SocketStatus }
  | { kind: 'send'; pending: Pending }
  | { kind: 'status'; status: ChatStatus; queuePosition?: number | null; agentName?: string | null };

export const initialConversation: ConversationState = {
  status: null,
  queuePosition: null,
  agentName: null,
  messages: [],
  pending: [],
  agentTyping: false,
  agentRead: 0,
  connection: 'connecting',
  error: null,
};

export function reduce(state: ConversationState, action: Action): ConversationState {
  switch (action.kind) {
    case 'connection':
      return { ...state, connection: action.status };
    case 'send':
      if (state.pending.some((p) => p.clientId === action.pending.clientId)) return state;
      return { ...state, pending: [...state.pending, action.pending] };
    case 'status':
      return {
        ...state,
        status: action.status,
        queuePosition: action.queuePosition === undefined ? state.queuePosition : action.queuePosition,
        agentName: action.agentName === undefined ? state.agentName : action.agentName,
      };
    case 'frame': {
      const frame = action.frame;
      switch (frame.type) {
        case 'message': {
          const last = state.messages.at(-1)?.seq ?? 0;
          const line: Line = { ...frame };
          delete (line as Partial<MessageFrame>).type;
          const pending = frame.clientId ? state.pending.filter((p) => p.clientId !== frame.clientId) : state.pending;
          if (frame.seq <= last) return pending === state.pending ? state : { ...state, pending };
          // An agent's message ends their typing.
          const agentTyping = frame.sender === 'agent' ? false : state.agentTyping;
          const ended = frame.sender === 'system' && frame.system?.key === 'ended';
          return {
            ...state,
            messages: [...state.messages, line],
            pending,
            agentTyping,
            status: ended ? 'ended' : state.status,
          };
        }
        case 'state':
          return {
            ...state,
            status: frame.status,
            queuePosition: frame.queuePosition,
            agentName: frame.agentName,
            agentTyping: frame.status === 'active' ? state.agentTyping : false,
          };
        case 'typing':
          return { ...state, agentTyping: frame.on };
        case 'read':
          return frame.seq > state.agentRead ? { ...state, agentRead: frame.seq } : state;
        case 'error':
          if (frame.clientId) {
            return {
              ...state,
              pending: state.pending.map((p) => (p.clientId === frame.clientId ? { ...p, errorCode: frame.errorCode } : p)),
            };
          }
          return { ...state, error: frame.errorCode };
        default:
          return state;
      }
    }
  }
}

/** The seq of the visitor's last message the agent has read, or 0. */
export function lastReadOwn(state: ConversationState): number {
  let seq = 0;
  for (const m of state.messages) if (m.sender === 'visitor' && m.seq <= state.agentRead) seq = m.seq;
  return seq;
}

/** A fresh client id for a message (idempotent resends). */
export function newClientId(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
