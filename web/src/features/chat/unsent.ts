// The visitor's messages not yet acknowledged by the server, kept in the
// browser's storage: a message typed while the phone was offline survives a
// reload, and goes out (with its clientId, so the server stores it once) as
// soon as the conversation's socket opens again. Kept per conversation: a
// later conversation never receives an earlier one's leftovers.

import { UNSENT_KEY } from '@/components/shell/chat-bubble';
import type { Pending } from './conversation';

interface Stored {
  conversationId: string;
  messages: { clientId: string; body: string }[];
}

function read(): Stored | null {
  try {
    const raw = window.localStorage.getItem(UNSENT_KEY);
    if (!raw) return null;
    const value = JSON.parse(raw) as Partial<Stored>;
    if (typeof value.conversationId !== 'string' || !Array.isArray(value.messages)) return null;
    const messages = value.messages.filter(
      (m): m is Stored['messages'][number] => !!m && typeof m.clientId === 'string' && typeof m.body === 'string',
    );
    return { conversationId: value.conversationId, messages };
  } catch {
    return null;
  }
}

/** The conversation's unsent messages; another conversation's (ended since) are dropped. */
export function readUnsent(conversationId: string): Pending[] {
  const stored = read();
  if (!stored) return [];
  if (stored.conversationId !== conversationId) {
    try {
      window.localStorage.removeItem(UNSENT_KEY);
    } catch {
      // storage disabled
    }
    return [];
  }
  return stored.messages.map((m) => ({ clientId: m.clientId, body: m.body }));
}

/** Keeps what is still to send; messages the server refused (errorCode) are not sent again. */
export function writeUnsent(conversationId: string, pending: Pending[]) {
  const messages = pending.filter((p) => !p.errorCode).map((p) => ({ clientId: p.clientId, body: p.body }));
  try {
    if (messages.length === 0) {
      const stored = read();
      if (stored && stored.conversationId === conversationId) window.localStorage.removeItem(UNSENT_KEY);
      return;
    }
    window.localStorage.setItem(UNSENT_KEY, JSON.stringify({ conversationId, messages } satisfies Stored));
  } catch {
    // storage disabled or full: the messages stay in this page only
  }
}
