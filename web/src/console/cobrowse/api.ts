// The agent's side of co-browse (issue 18, docs/cobrowse.md): joining a
// visitor's session by its code, asking from a chat, ending, and the frames
// of the viewer socket GET /api/console/v1/cobrowse/sessions/{id}/socket.

import type { MessageKey } from '@/i18n/catalog';
import type { components } from '@/lib/api/schema';
import { lookup } from '@/lib/lookup';
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

const cobrowseErrors: Record<string, MessageKey> = {
  INVALID_CODE: 'console.cobrowse.error.invalidCode',
  FORBIDDEN_BRAND: 'console.cobrowse.error.forbiddenBrand',
  NOT_HOLDER: 'console.cobrowse.error.notHolder',
  CONVERSATION_ENDED: 'console.cobrowse.error.conversationEnded',
  COBROWSE_PENDING: 'console.cobrowse.error.pending',
  NOT_FOUND: 'console.cobrowse.error.notFound',
};

/** The words of a co-browse call's refusal. */
export function cobrowseError(code: string): MessageKey {
  return lookup(cobrowseErrors, code) ?? errorMessage(code);
}

const reasons: Record<string, MessageKey> = {
  visitor: 'console.cobrowse.reason.visitor',
  agent: 'console.cobrowse.reason.agent',
  cap: 'console.cobrowse.reason.cap',
  visitor_gone: 'console.cobrowse.reason.visitorGone',
  expired: 'console.cobrowse.reason.expired',
  declined: 'console.cobrowse.reason.declined',
};

/** The words of an end reason. */
export function reasonKey(reason: string | undefined): MessageKey {
  return lookup(reasons, reason ?? '') ?? 'console.cobrowse.reason.other';
}
