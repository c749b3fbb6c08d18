import { useLayoutEffect, useId, useRef, type ReactNode } from 'react';
import { useT } from '@/i18n/i18n';

/**
 * A modal dialog (the native <dialog>: focus moves in and stays in, Escape
 * closes it, the page behind is inert). Named by its heading. When it goes,
 * the focus goes back to the control that opened it, or, when the action
 * took that control away, to the page's heading (issue 32: never to
 * <body>, where a keyboard user's next Tab would start again at the top).
 */
export function Dialog({ title, children, onClose }: { title: string; children: ReactNode; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  // A layout effect: its clean-up runs while the dialog is still in the
  // document, before React removes it.
  useLayoutEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement;
    if (dialog && !dialog.open) {
      if (typeof dialog.showModal === 'function') dialog.showModal();
      else dialog.setAttribute('open', '');
    }
    return () => {
      dialog?.close?.();
      // After the commit that removes the dialog (and may remove the opener).
      requestAnimationFrame(() => {
        if (document.activeElement !== null && document.activeElement !== document.body) return;
        const back = opener instanceof HTMLElement && opener.isConnected && opener !== document.body ? opener : null;
        (back ?? document.querySelector<HTMLElement>('main h1[tabindex="-1"]'))?.focus();
      });
    };
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
