// rrweb's replayer in live mode (a chunk of its own, loaded by the viewer
// page only). The visitor's page is rebuilt in rrweb's sandboxed iframe
// (sandbox="allow-same-origin": no script runs; UNSAFE_replayCanvas, which
// would add allow-scripts, stays off), view only: rrweb turns the frame's
// pointer events off and the frame is out of the tab order.

import { Replayer } from '@rrweb/replay';
import '@rrweb/replay/dist/style.css';

export interface Size {
  width: number;
  height: number;
}

export interface Replay {
  /** An rrweb event of the visitor (a frame's data). */
  add(event: unknown): void;
  /** The replayed page's iframe. */
  readonly iframe: HTMLIFrameElement;
  destroy(): void;
}

export type CreateReplay = (root: HTMLElement, options: { frameTitle: string; onResize: (size: Size) => void }) => Replay;

type ReplayEvent = Parameters<Replayer['addEvent']>[0];

function isEvent(value: unknown): value is ReplayEvent {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'number' &&
    typeof (value as { timestamp?: unknown }).timestamp === 'number';
}

export const createReplay: CreateReplay = (root, { frameTitle, onResize }) => {
  const replayer = new Replayer([], {
    root,
    liveMode: true,
    UNSAFE_replayCanvas: false,
    useVirtualDom: false,
    mouseTail: false,
    showWarning: false,
    triggerFocus: false,
  });
  replayer.iframe.title = frameTitle;
  replayer.iframe.tabIndex = -1;
  replayer.on('resize', (size) => onResize(size as Size));
  // Every event is applied as it comes (its time is behind the baseline):
  // the agent sees the page as it is now, never a replay of the history a
  // (re)connection brings first.
  replayer.startLive(Number.MAX_SAFE_INTEGER);
  return {
    add(event) {
      if (isEvent(event)) replayer.addEvent(event);
    },
    iframe: replayer.iframe,
    destroy() {
      replayer.destroy();
    },
  };
};
