// The agents' side of live chat (issue 17, /work notes chat.md): the REST
// calls of /api/console/v1/chat and the frames of the agent socket. These
// routes ask a staff session but no fresh second factor; a session that ended
// answers 401 SIGN_IN_REQUIRED, which `call` turns into the console's
// session-ended handling.

import type { MessageKey } from '@/i18n/catalog';
import type { components } from '@/lib/api/schema';
import { lookup } from '@/lib/lookup';
import { call } from '@/console/api';
import { errorMessage } from '@/console/errors';

export type ChatLanguage = 'en' | 'fr';
export const CHAT_LANGUAGES: ChatLanguage[] = ['en', 'fr'];

type Schemas = components['schemas'];

export type Availability = Schemas['ChatAvailability'];
/** A conversation as the queue lists it (offline ones: kind offline, with email and question). */
export type Item = Schemas['ChatItem'];
export type Queue = Schemas['ChatQueue'];
/** One message of a conversation (a `message` frame, or a transcript's line). */
export type ChatMessage = Omit<Schemas['ChatMessageFrame'], 'type'> & { type?: 'message' };
export type AgentRow = Schemas['ChatAgentLine'];
export type Figures = Schemas['ChatFigures'];
/** GET canned: per brand, per language. */
export type Canned = Schemas['ChatCanned'];

export type ServerFrame =
  | ({ type: 'queue' } & Queue)
  | ({ type: 'message'; conversationId: string } & ChatMessage)
  | { type: 'typing'; conversationId: string; on: boolean }
  | { type: 'read'; conversationId: string; seq: number }
  | { type: 'state'; conversationId: string; status: Schemas['ChatStatus']; agentName?: string | null }
  | ({ type: 'figures' } & Figures)
  | { type: 'pong' }
  | { type: 'error'; errorCode: string; clientId?: string; conversationId?: string };

export type ClientFrame =
  | { type: 'subscribe'; conversationId: string; after: number }
  | { type: 'message'; conversationId: string; clientId: string; body: string }
  | { type: 'typing'; conversationId: string; on: boolean }
  | { type: 'read'; conversationId: string; seq: number }
  | { type: 'ping' };

/** Longest message, in characters after trimming (the server refuses longer ones). */
export const MAX_MESSAGE = 2000;

export const chatApi = {
  availability: () => call('get', '/chat/availability'),
  setAvailability: (a: Availability) => call('put', '/chat/availability', { body: a }),
  queue: () => call('get', '/chat/queue'),
  accept: (conversation: string) => call('post', '/chat/conversations/{id}/accept', { params: { id: conversation } }),
  transfer: (conversation: string, staffId: string) =>
    call('post', '/chat/conversations/{id}/transfer', { params: { id: conversation }, body: { staffId } }),
  end: (conversation: string) => call('post', '/chat/conversations/{id}/end', { params: { id: conversation } }),
  reply: (conversation: string, body: string) => call('post', '/chat/conversations/{id}/reply', { params: { id: conversation }, body: { body } }),
  conversation: (conversation: string) => call('get', '/chat/conversations/{id}', { params: { id: conversation } }),
  agents: () => call('get', '/chat/agents'),
  canned: () => call('get', '/chat/canned'),
  transcripts: (q: { q: string; from: string; to: string; brand: string }) =>
    call('get', '/chat/transcripts', { query: Object.fromEntries(Object.entries(q).filter(([, value]) => value !== '')) }),
  figures: () => call('get', '/chat/figures'),
};

const chatErrors: Record<string, MessageKey> = {
  ALREADY_TAKEN: 'console.chat.error.alreadyTaken',
  AGENT_LIMIT: 'console.chat.error.agentLimit',
  TARGET_UNAVAILABLE: 'console.chat.error.transferRefused',
  CONVERSATION_ENDED: 'console.chat.error.ended',
  MESSAGE_TOO_LONG: 'console.chat.error.tooLong',
  NOT_HOLDER: 'console.chat.error.notHolder',
  NOT_FOUND: 'console.chat.error.gone',
};

/** The words of a chat call's refusal. */
export function chatError(code: string): MessageKey {
  return lookup(chatErrors, code) ?? errorMessage(code);
}
