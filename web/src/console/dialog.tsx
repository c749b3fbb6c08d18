import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useT } from '@/i18n/i18n';

/**
 * A modal dialog (the native <dialog>: focus moves in and stays in, Escape
 * closes it, the page behind is inert). Named by its heading.
 */
export function Dialog({ title, children, onClose }: { title: string; children: ReactNode; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) {
      if (typeof dialog.showModal === 'function') dialog.showModal();
      else dialog.setAttribute('open', '');
    }
    return () => dialog?.close?.();
  }, []);
  return (
    <dialog
      ref={ref}
      className="console-dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}

/** A dialog's buttons: its own (the action), then Cancel. */
export function DialogActions({ children, onCancel }: { children?: ReactNode; onCancel: () => void }) {
  const t = useT();
  return (
    <div className="console-dialog__actions">
      {children}
      <button type="button" className="console-button console-button--quiet" onClick={onCancel}>
        {t('console.confirm.cancel')}
      </button>
    </div>
  );
}

/** A confirmation: the question (children), then the action's button (Yes unless named) and Cancel. */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  busy,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ReactNode;
  confirmLabel?: string;
  /** While the action runs: the button is disabled and says so. */
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const t = useT();
  return (
    <Dialog title={title} onClose={onCancel}>
      {children}
      <DialogActions onCancel={onCancel}>
        <button type="button" className="console-button" onClick={onConfirm} disabled={busy} aria-busy={busy || undefined}>
          {confirmLabel ?? t('console.confirm.yes')}
        </button>
      </DialogActions>
    </Dialog>
  );
}
