import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useT, type Translate } from '@/i18n/i18n';
import { AGENT_NEVER_SEES, AGENT_SEES, PRIVATE_KINDS, type PrivateGroup, type PrivateKind } from '@/lib/cobrowse/privacy';
import type { Language } from '@/lib/site/types';
import type { SectionKey } from '@/i18n/catalog';
import { trapKeys } from '@/lib/dialog/trap';
import { useSite } from '@/lib/site/site-context';
import type { Phase } from './cobrowse';

/**
 * A modal dialog: labelled by its title, which takes the focus when it opens;
 * Tab stays inside; Escape is onEscape. Keys are handled on the dialog and
 * stopped there, so the chat widget's own trap (the request comes from it)
 * does not pull the focus back.
 */
function Modal({ title, describedBy, onEscape, children }: { title: string; describedBy?: string; onEscape: () => void; children: ReactNode }) {
  const titleId = useId();
  const dialog = useRef<HTMLDivElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, []);
  return (
    <div className="cobrowse-backdrop">
      <div
        ref={dialog}
        className="cobrowse-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={describedBy}
        onKeyDown={(event) => {
          if (event.key !== 'Escape' && event.key !== 'Tab') return;
          event.stopPropagation();
          if (dialog.current) trapKeys(event, dialog.current, onEscape);
        }}
      >
        <h2 id={titleId} ref={heading} tabIndex={-1} className="cobrowse-dialog__title">
          {title}
        </h2>
        {children}
      </div>
    </div>
  );
}

export interface ConsentDialogProps {
  fromChat: boolean;
  busy: boolean;
  error: SectionKey | null;
  onAccept: () => void;
  onDecline: () => void;
}

/**
 * What the agent will and will not see, generated from the one list
 * (lib/cobrowse/privacy.ts) the recorder obeys; Accept / Decline; Escape declines. Nothing is recorded or sent before Accept. */
export function ConsentDialog({ fromChat, busy, error, onAccept, onDecline }: ConsentDialogProps) {
  const t = useT();
  const { language } = useSite();
  const introId = useId();
  return (
    <Modal title={t('cobrowse.consent.title')} describedBy={introId} onEscape={onDecline}>
      <p id={introId}>{t(fromChat ? 'cobrowse.consent.chatIntro' : 'cobrowse.consent.intro')}</p>
      <div className="cobrowse-dialog__lists">
        <section aria-labelledby={`${introId}-will`}>
          <h3 id={`${introId}-will`}>{t('cobrowse.consent.willSee')}</h3>
          <ul>
            {agentSeesLines(t).map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </section>
        <section aria-labelledby={`${introId}-wont`}>
          <h3 id={`${introId}-wont`}>{t('cobrowse.consent.wontSee')}</h3>
          <ul>
            {agentNeverSeesLines(t, language).map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </section>
      </div>
      {error ? (
        <p role="alert" className="cobrowse-dialog__error">
          {t(error)}
        </p>
      ) : null}
      <div className="cobrowse-dialog__actions">
        <button type="button" className="button button--primary" onClick={onAccept} aria-disabled={busy}>
          {busy ? t('cobrowse.consent.starting') : t('cobrowse.consent.accept')}
        </button>
        <button type="button" className="button button--secondary" onClick={onDecline}>
          {t('cobrowse.consent.decline')}
        </button>
      </div>
    </Modal>
  );
}

// The keys of the list's entries (cobrowse.privacy.*): typed, so an entry
// without its message fails the typecheck; the catalogue test checks French.
const seesKey = (id: (typeof AGENT_SEES)[number]) => `cobrowse.privacy.sees.${id}` as const;
const neverKey = (id: (typeof AGENT_NEVER_SEES)[number]) => `cobrowse.privacy.never.${id}` as const;
const kindKey = (kind: PrivateKind) => `cobrowse.privacy.kind.${kind}` as const;

/** The dialog's "will see" lines: one per entry of AGENT_SEES. */
export function agentSeesLines(t: Translate): string[] {
  return AGENT_SEES.map((id) => t(seesKey(id)));
}

const isGroup = (id: string): id is PrivateGroup => Object.hasOwn(PRIVATE_KINDS, id);

/**
 * The dialog's "will never see" lines: one per entry of AGENT_NEVER_SEES; a
 * private group's line names every kind the components mark with it, as the
 * language lists them ("name, email address and phone numbers").
 */
export function agentNeverSeesLines(t: Translate, language: Language): string[] {
  const list = new Intl.ListFormat(`${language}-CA`, { style: 'long', type: 'conjunction' });
  return AGENT_NEVER_SEES.map((id) =>
    isGroup(id)
      ? t(neverKey(id), { kinds: list.format(PRIVATE_KINDS[id].map((kind) => t(kindKey(kind)))) })
      : t(neverKey(id)),
  );
}

/** "123456" as "123 456" (read aloud digit by digit by the label). */
export function groupCode(code: string): string {
  return code.length === 6 ? `${code.slice(0, 3)} ${code.slice(3)}` : code;
}

/** The code to read to the agent, its expiry, and the live status that turns to 'Sharing with <agent>'. */
export function CodeDialog({ phase, agent, onClose, onStop }: { phase: Phase; agent: string; onClose: () => void; onStop: () => void }) {
  const t = useT();
  const { language } = useSite();
  const readId = useId();
  const waiting = phase.kind === 'waiting' ? phase : null;
  // Once the agent has joined, the code has served: its lines stay, hidden,
  // so that the dialog keeps its size and nothing in it moves (issue 32).
  const shown = useRef<{ code: string; expiresAt?: string } | null>(null);
  if (waiting?.code) shown.current = { code: waiting.code, expiresAt: waiting.expiresAt ?? undefined };
  const spent = !waiting?.code;
  const code = shown.current?.code ?? null;
  const expiresAt = shown.current?.expiresAt ? new Date(shown.current.expiresAt) : null;
  const time =
    expiresAt && !Number.isNaN(expiresAt.getTime())
      ? new Intl.DateTimeFormat(`${language}-CA`, { hour: 'numeric', minute: '2-digit' }).format(expiresAt)
      : null;
  return (
    <Modal title={t('cobrowse.code.title')} describedBy={spent ? undefined : readId} onEscape={onClose}>
      {code ? (
        <div className={spent ? 'cobrowse-code-area cobrowse-code-area--spent' : 'cobrowse-code-area'}>
          <p id={spent ? undefined : readId}>{t('cobrowse.code.read')}</p>
          <p className="cobrowse-code">
            <span aria-hidden="true">{groupCode(code)}</span>
            {/* The code as screen readers read it (digit by digit); the grouped digits show instead. */}
            <span className="visually-hidden">{t('cobrowse.code.digits', { digits: code.split('').join(' ') })}</span>
          </p>
          {time ? <p>{t('cobrowse.code.expires', { time })}</p> : null}
        </div>
      ) : null}
      <p role="status" className="cobrowse-dialog__status">
        {phase.kind === 'active' ? t('cobrowse.status.sharing', { agent }) : t('cobrowse.status.waiting')}
      </p>
      <div className="cobrowse-dialog__actions">
        <button type="button" className="button button--primary" onClick={onClose}>
          {t('cobrowse.code.close')}
        </button>
        <button type="button" className="button button--secondary" onClick={onStop}>
          {t('cobrowse.banner.stop')}
        </button>
      </div>
    </Modal>
  );
}
