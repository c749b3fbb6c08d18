import { Component, type ErrorInfo, type ReactNode } from 'react';

interface State {
  failed: boolean;
}

/**
 * Last resort when rendering fails (a chunk that cannot load, a bug): a
 * plain bilingual message and a reload button instead of a blank page. It
 * sits outside the i18n provider, which may itself be what failed.
 */
export class AppErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error('guichet: rendering failed', error, info.componentStack);
  }

  override render() {
    if (!this.state.failed) return this.props.children;
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
