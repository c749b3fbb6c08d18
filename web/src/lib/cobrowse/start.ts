// What the portal's first JavaScript knows of co-browse (issue 18): whether a
// session may be live in this tab (sessionStorage, so a reload or a SPA
// navigation brings the banner back), and the requests to start one (the
// footer link, an agent's request in the chat widget). The shell's
// CobrowseRoot listens and loads src/features/cobrowse only then, so a
// visitor who never shares downloads nothing of it and calls nothing.

/** Set while this tab may have a live co-browse session (its id); the session itself is the server's HttpOnly cookie. */
export const COBROWSE_LIVE_KEY = 'guichet.cobrowse.live';

/** A request to share: the footer link (a code to read to the agent), or an agent's request in chat (its session id). */
export type CobrowseStart = { origin: 'code' } | { origin: 'chat'; sessionId: string };

export function readLiveSession(): string | null {
  try {
    return window.sessionStorage.getItem(COBROWSE_LIVE_KEY);
  } catch {
    return null;
  }
}

type Listener = (start: CobrowseStart) => void;
const listeners = new Set<Listener>();

/** Asks for the consent dialog (the shell's CobrowseRoot opens it). */
export function requestCobrowse(start: CobrowseStart) {
  for (const listener of listeners) listener(start);
}

/** Listens to requestCobrowse; returns the unsubscribe. */
export function onCobrowseRequest(listener: Listener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
