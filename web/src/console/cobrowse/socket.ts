// The viewer socket: the portal's reconnecting socket (web/src/lib/chat/
// socket.ts: full-jitter backoff, 1012 and any other close reconnect,
// heartbeat pings) with the co-browse resume point: every (re)connection
// asks ?after=<the last event seq shown>, and an event frame seen already is
// dropped. Final (no reconnection, onFinal tells which): 1000 ended, 4401
// staff session ended, 4403 a brand not served, 4404 unknown or no longer
// live, 4409 another agent's session. Pointer frames are only worth sending
// now: dropped while not open (no burst on reopen).

import { openChatSocket, type ChatSocketOptions, type SocketStatus } from '@/lib/chat/socket';
import { viewerSocketUrl, type ViewerClientFrame, type ViewerServerFrame } from './api';

export type { SocketStatus };

export interface ViewerSocket {
  send(frame: ViewerClientFrame): void;
  close(): void;
}

/** The viewer socket's final close codes (docs/cobrowse.md). */
export const VIEWER_FINAL_CODES: ReadonlySet<number> = new Set([1000, 4401, 4403, 4404, 4409]);

export interface ViewerSocketOptions
  extends Pick<ChatSocketOptions<ViewerServerFrame>, 'onStatus' | 'onFinal' | 'WebSocket' | 'random' | 'events' | 'online' | 'heartbeatMs'> {
  session: string;
  onFrame: (frame: ViewerServerFrame) => void;
}

export type OpenViewerSocket = (options: ViewerSocketOptions) => ViewerSocket;

export const openViewerSocket: OpenViewerSocket = ({ session, onFrame, ...rest }) => {
  let last = 0;
  return openChatSocket<ViewerServerFrame, ViewerClientFrame>({
    ...rest,
    finalCloseCodes: VIEWER_FINAL_CODES,
    transientTypes: ['ping', 'pointer'],
    url: () => viewerSocketUrl(session, last),
    onFrame(frame) {
      if (frame.type === 'event') {
        if (typeof frame.seq !== 'number' || frame.seq <= last) return;
        last = frame.seq;
      }
      onFrame(frame);
    },
  });
};
