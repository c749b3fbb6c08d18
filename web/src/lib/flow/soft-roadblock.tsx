import { useEffect, useId, useRef, type KeyboardEvent } from 'react';
import { useT } from '@/i18n/i18n';
import { ContactDetails } from './contact';
import './flow.css';

const focusable =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * Spec §8.2 soft roadblock (EMAIL_UPDATE_FAILED, code lnr500160): "It's not
 * you, it's us", the reference code, the phone number and opening hours. A
 * modal <dialog>: the page behind is inert, Tab stays inside, Escape and the
 * Close button close it, and focus returns to where it was.
 */
export function SoftRoadblockDialog({
  code,
  onClose,
  returnFocus = null,
}: {
  code: string;
  onClose: () => void;
  /** Where focus goes on close; by default the element focused when it opened. */
  returnFocus?: HTMLElement | null;
}) {
  const t = useT();
  const titleId = useId();
  const textId = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const close = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const previous = returnFocus?.isConnected ? returnFocus : focused;
    if (!element.open) {
      if (typeof element.showModal === 'function') element.showModal();
      else element.setAttribute('open', ''); // a DOM without <dialog> support (jsdom)
    }
    close.current?.focus();
    return () => {
      if (element.open && typeof element.close === 'function') element.close();
      previous?.focus();
    };
  }, [returnFocus]);

  // The modal dialog makes the page inert; this keeps Tab from leaving it for the browser's own controls.
  const trapTab = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key !== 'Tab' || !dialog.current) return;
    const items = [...dialog.current.querySelectorAll<HTMLElement>(focusable)];
    const first = items[0];
    const last = items[items.length - 1];
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return (
    <dialog
      ref={dialog}
      className="soft-roadblock"
      aria-labelledby={titleId}
      aria-describedby={textId}
      onKeyDown={trapTab}
      onCancel={(event) => {
        event.preventDefault(); // Escape: React closes it, so state and DOM agree
        onClose();
      }}
    >
      <h2 id={titleId}>{t('softRoadblock.title')}</h2>
      <p id={textId}>{t('softRoadblock.text')}</p>
      <p className="soft-roadblock__code">{t('softRoadblock.code', { code })}</p>
      <ContactDetails />
      <button ref={close} type="button" className="button button--primary" onClick={onClose}>
        {t('softRoadblock.close')}
      </button>
    </dialog>
  );
}
