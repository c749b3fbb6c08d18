// The agent's side of co-browse (issue 18, docs/cobrowse.md): joining a
// visitor's session by its code, asking from a chat, ending, and the frames
// of the viewer socket GET /api/console/v1/cobrowse/sessions/{id}/socket.

import type { MessageKey } from '@/i18n/catalog';
import type { components } from '@/lib/api/schema';
import { call, consoleUrl, socketUrl } from '@/console/api';
import { errorMessage } from '@/console/errors';

type Schemas = components['schemas'];

export type CobrowseSession = Schemas['CobrowseSession'];
export type EndReason = NonNullable<Schemas['CobrowseStateFrame']['reason']>;
export type LiveStatus = Schemas['CobrowseStateFrame']['status'];

export type ViewerServerFrame =
  | { type: 'state'; status: LiveStatus; agentName?: string; reason?: EndReason }
  | { type: 'event'; seq: number; data: unknown }
  | { type: 'pong' }
  | { type: 'error'; errorCode: string };

/** Agent → server: the pointer (the visitor's page coordinates, a highlight only), ping, end. */
export type ViewerClientFrame = { type: 'pointer'; data: { x: number; y: number } } | { type: 'ping' } | { type: 'end' };

/** Six digits, white space ignored: the code the visitor reads. */
export function readCode(input: string): string | null {
  const code = input.replace(/\s+/g, '');
  return /^[0-9]{6}$/.test(code) ? code : null;
}

const id = (value: string) => encodeURIComponent(value);

export const cobrowseApi = {
  join: (code: string) => call('post', '/cobrowse/join', { body: { code } }),
  end: (session: string) => call('post', '/cobrowse/sessions/{id}/end', { params: { id: session } }),
  request: (conversation: string) => call('post', '/chat/conversations/{id}/cobrowse', { params: { id: conversation } }),
};

/**
 * The viewer's page: a document of its own (the server gives this path the
 * policy that lets the replayed page's styles show), the visitor's brand and
 * language in the query (the socket does not repeat them).
 */
export function viewerHref(session: { id: string; brand?: string; language?: string }): string {
  const q = new URLSearchParams();
  if (session.brand) q.set('brand', session.brand);
  if (session.language) q.set('language', session.language);
  const query = q.toString();
  return `/cobrowse/sessions/${id(session.id)}${query ? `?${query}` : ''}`;
}

/** ws(s)://<this host>/api/console/v1/cobrowse/sessions/{id}/socket?after=<last seq> */
export function viewerSocketUrl(session: string, after: number): string {
  return socketUrl(consoleUrl('/cobrowse/sessions/{id}/socket', { params: { id: session }, query: { after: String(after) } }));
}

/** The words of a co-browse call's refusal. */
export function cobrowseError(code: string): MessageKey {
  switch (code) {
    case 'INVALID_CODE':
      return 'console.cobrowse.error.invalidCode';
    case 'FORBIDDEN_BRAND':
      return 'console.cobrowse.error.forbiddenBrand';
    case 'NOT_HOLDER':
      return 'console.cobrowse.error.notHolder';
    case 'CONVERSATION_ENDED':
      return 'console.cobrowse.error.conversationEnded';
    case 'COBROWSE_PENDING':
      return 'console.cobrowse.error.pending';
    case 'NOT_FOUND':
      return 'console.cobrowse.error.notFound';
    default:
      return errorMessage(code);
  }
}

/** The words of an end reason. */
export function reasonKey(reason: string | undefined): MessageKey {
  switch (reason) {
    case 'visitor':
      return 'console.cobrowse.reason.visitor';
    case 'agent':
      return 'console.cobrowse.reason.agent';
    case 'cap':
      return 'console.cobrowse.reason.cap';
    case 'visitor_gone':
      return 'console.cobrowse.reason.visitorGone';
    case 'expired':
      return 'console.cobrowse.reason.expired';
    case 'declined':
      return 'console.cobrowse.reason.declined';
    default:
      return 'console.cobrowse.reason.other';
  }
}
