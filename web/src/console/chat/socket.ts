// The agent socket (GET /api/console/v1/chat/socket on the console host, the
// staff session cookie, same origin). The reconnecting socket itself is the
// portal's (web/src/lib/chat/socket.ts, shared with the visitor's widget):
// backoff with jitter, close codes honoured, heartbeats (the agent's presence),
// message frames once each per conversation, messages resent with their
// clientId and other frames queued while reconnecting.

import { openChatSocket, type ChatSocket, type ChatSocketOptions } from '@/lib/chat/socket';
import { consoleUrl, socketUrl } from '@/console/api';
import type { ClientFrame, ServerFrame } from './api';

export type { SocketStatus } from '@/lib/chat/frames';

export type AgentSocketOptions = ChatSocketOptions<ServerFrame>;
export type AgentSocket = ChatSocket<ClientFrame>;
export type OpenSocket = (options: AgentSocketOptions) => AgentSocket;

/** ws(s)://<this host>/api/console/v1/chat/socket */
export function agentSocketUrl(): string {
  return socketUrl(consoleUrl('/chat/socket'));
}

export const openAgentSocket: OpenSocket = (options) => openChatSocket<ServerFrame, ClientFrame>(options);
