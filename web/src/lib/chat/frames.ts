// The visitor socket's frames (issue 17, GET /api/v1/chat/socket): JSON text,
// one object per frame, told apart by `type`. The agent socket's frames are
// the same shapes with a conversationId (web/src/console/chat/api.ts).

export type ChatStatus = 'bot' | 'waiting' | 'active' | 'ended';
export type Sender = 'visitor' | 'agent' | 'bot' | 'system';

/** A link of a bot answer (https only; shown as text, never as HTML). */
export interface BotLink {
  label: string;
  url: string;
}

/** A button the visitor may press instead of typing: sends `text`. */
export interface QuickReply {
  id: string;
  text: string;
}

/** What the bot said (internal/chat/bot.Reply). */
export interface BotReply {
  text: string;
  links?: BotLink[];
  topicId?: string;
  score?: number;
  handover?: boolean;
  quickReplies?: QuickReply[];
}

export type SystemKey = 'agentJoined' | 'agentLeft' | 'transferred' | 'ended' | 'handover';

/** One message of the conversation, the visitor's own included (its ack). */
export interface MessageFrame {
  type: 'message';
  seq: number;
  sender: Sender;
  body: string;
  at: string;
  clientId?: string;
  agentName?: string;
  reply?: BotReply;
  system?: { key: SystemKey | (string & {}); name?: string };
  /** The agent socket only. */
  conversationId?: string;
}

export interface StateFrame {
  type: 'state';
  status: ChatStatus;
  queuePosition: number | null;
  agentName: string | null;
}

export interface TypingFrame {
  type: 'typing';
  on: boolean;
}

export interface ReadFrame {
  type: 'read';
  seq: number;
}

export interface PongFrame {
  type: 'pong';
}

export interface ErrorFrame {
  type: 'error';
  errorCode: string;
  clientId?: string;
}

export type ServerFrame = MessageFrame | StateFrame | TypingFrame | ReadFrame | PongFrame | ErrorFrame;

export type ClientFrame =
  | { type: 'message'; clientId: string; body: string }
  | { type: 'typing'; on: boolean }
  | { type: 'read'; seq: number }
  | { type: 'ping' };

/** The socket's connection, as shown to the visitor ('Reconnecting…'). */
export type SocketStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';
