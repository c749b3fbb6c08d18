import { Component, type ErrorInfo, type ReactNode } from 'react';

interface State {
  failed: boolean;
  /** A chunk would not load and the page is loading afresh: nothing shown meanwhile. */
  reloading: boolean;
}

/** sessionStorage: the address this tab last loaded afresh for a chunk, and when. */
const RELOADED = 'guichet.chunkReload';

/** How long after a fresh load for a chunk the same failure shows the message instead. */
const RELOAD_WINDOW_MS = 30_000;

/**
 * A lazy chunk that would not load (the browsers' messages for a dynamic
 * import that failed): its file is gone, or the network failed.
 */
export function isChunkLoadError(error: unknown): boolean {
  return (
    error instanceof Error &&
    /dynamically imported module|Importing a module script failed|error loading dynamically imported module/i.test(error.message)
  );
}

/**
 * Whether the page should load afresh for error: during a rolling upgrade
 * an instance of the new release answers 404 for a chunk of a page the old
 * one served (a chunk's name carries its hash; docs/cluster.md), and the
 * same address loaded afresh gets the new release's page and chunks. The
 * flow's state lives in sessionStorage, so the visitor goes on where they
 * were. Once per address within RELOAD_WINDOW_MS: a second failure shows
 * the message (a chunk that truly cannot load must not loop).
 */
export function reloadForChunk(error: unknown, storage: Storage, address: string, now: number): boolean {
  if (!isChunkLoadError(error)) return false;
  let last: { address?: string; at?: number } = {};
  try {
    last = JSON.parse(storage.getItem(RELOADED) ?? '{}') as typeof last;
  } catch {
    // a value this code did not write: as if none
  }
  if (last.address === address && typeof last.at === 'number' && now - last.at < RELOAD_WINDOW_MS) return false;
  storage.setItem(RELOADED, JSON.stringify({ address, at: now }));
  return true;
}

interface Props {
  children: ReactNode;
  /** Loads the page afresh (tests pass their own). */
  reload?: () => void;
}

/**
 * Last resort when rendering fails (a chunk that cannot load, a bug): a
 * plain bilingual message and a reload button instead of a blank page. It
 * sits outside the i18n provider, which may itself be what failed. A chunk
 * gone with a new release loads the page afresh once (reloadForChunk).
 */
export class AppErrorBoundary extends Component<Props, State> {
  override state: State = { failed: false, reloading: false };

  static getDerivedStateFromError(): Partial<State> {
    return { failed: true };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    const address = window.location.pathname + window.location.search;
    if (reloadForChunk(error, window.sessionStorage, address, Date.now())) {
      this.setState({ reloading: true });
      (this.props.reload ?? (() => window.location.reload()))();
      return;
    }
    console.error('guichet: rendering failed', error, info.componentStack);
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    if (this.state.reloading) return null;
    return (
      <main id="main" className="page page--narrow">
        <h1>
          <span lang="en">Something went wrong</span> / <span lang="fr">Une erreur est survenue</span>
        </h1>
        <button type="button" className="button button--primary" onClick={() => window.location.reload()}>
          <span lang="en">Reload</span> / <span lang="fr">Recharger</span>
        </button>
      </main>
    );
  }
}
