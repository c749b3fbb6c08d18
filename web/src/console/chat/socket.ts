// The agent socket (GET /api/console/v1/chat/socket on the console host, the
// staff session cookie, same origin). The reconnecting socket itself is the
// portal's (web/src/lib/chat/socket.ts, shared with the visitor's widget):
// backoff with jitter, close codes honoured, heartbeats, client frames queued
// while reconnecting.

import type { ClientFrame, ServerFrame } from './api';

export type SocketStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface AgentSocketOptions {
  url: (after: number) => string;
  onFrame: (frame: ServerFrame) => void;
  onStatus?: (status: SocketStatus) => void;
  heartbeatMs?: number;
}

export interface AgentSocket {
  send(frame: ClientFrame): void;
  close(): void;
}

export type OpenSocket = (options: AgentSocketOptions) => AgentSocket;

/** ws(s)://<this host>/api/console/v1/chat/socket */
export function agentSocketUrl(): string {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${window.location.host}/api/console/v1/chat/socket`;
}

/** No live socket (yet): the page keeps its figures and queue by polling. */
export const openAgentSocket: OpenSocket | null = null;
