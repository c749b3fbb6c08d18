import type { ReactNode } from 'react';
import type { Message, MessageKey } from '@/i18n/catalog';
import { messageText, useT } from '@/i18n/i18n';
import './flow.css';

export interface ResendLinkProps {
  /** The question above, the link, its label while sending, and the status once sent. */
  texts: { notReceived: MessageKey; resend: MessageKey; resending: MessageKey; resent: MessageKey };
  sending: boolean;
  sent: boolean;
  /** A refusal to wait for (429 RATE_LIMITED or BUSY), in an alert. */
  refused: Message | null;
  onResend: () => void;
  /** The soft roadblock dialog of the page's flow, when open. */
  children?: ReactNode;
}

/**
 * The resend "link" of a code page (spec §2.1 /verify, §2.4 validation):
 * an action that reads as a link, with a spinner while it works (the
 * button keeps the focus: aria-disabled, not disabled), a status region
 * saying a new code went, and an alert for a refusal.
 */
export function ResendLink({ texts, sending, sent, refused, onResend, children }: ResendLinkProps) {
  const t = useT();
  return (
    <div className="resend">
      <p>{t(texts.notReceived)}</p>
      <button
        type="button"
        className="link-button resend__link-button"
        aria-disabled={sending || undefined}
        aria-busy={sending || undefined}
        onClick={onResend}
      >
        {sending ? <span className="spinner" aria-hidden="true" /> : null}
        {t(sending ? texts.resending : texts.resend)}
      </button>
      <p role="status" className="resend__status">
        {sent ? t(texts.resent) : null}
      </p>
      <div role="alert" className={refused ? 'form-alert' : undefined}>
        {refused ? <p>{messageText(t, refused)}</p> : null}
      </div>
      {children}
    </div>
  );
}
