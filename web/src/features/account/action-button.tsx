import type { ReactNode } from 'react';

/** A secondary button of My account's lists (remove, sign out, withdraw): aria-busy while its own action runs. */
export function ActionButton({ busy, disabled, onClick, children }: { busy: boolean; disabled: boolean; onClick: () => void; children: ReactNode }) {
  return (
    <button type="button" className="button button--secondary" disabled={disabled} aria-busy={busy} onClick={onClick}>
      {children}
    </button>
  );
}
