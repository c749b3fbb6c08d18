import type { ReactNode } from 'react';

/**
 * A field of a console form: its label above its control, then its hint
 * when it has one. The hint's id is the field's id with -hint; a control that
 * is described by it takes children as a function of that id.
 */
export function ConsoleField({ id, label, hint, children }: { id: string; label: string; hint?: string; children: ReactNode | ((hintId: string) => ReactNode) }) {
  const hintId = `${id}-hint`;
  return (
    <div className="console-field">
      <label htmlFor={id}>{label}</label>
      {typeof children === 'function' ? children(hintId) : children}
      {hint === undefined ? null : <small id={hintId}>{hint}</small>}
    </div>
  );
}
