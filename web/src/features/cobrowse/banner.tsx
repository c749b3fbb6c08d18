import { useT } from '@/i18n/i18n';
import type { Phase } from './cobrowse';
import { groupCode } from './dialogs';

export interface BannerProps {
  phase: Phase;
  /** The agent's name, or 'your agent' (active only). */
  agent: string;
  onStop: () => void;
  onShowCode: () => void;
  onDismiss: () => void;
  /** Keep the banner's room while nothing is shown yet (a remembered session being checked). */
  reserved?: boolean;
}

/**
 * Above the header on every page while a session is live: what is shared
 * and with whom, and Stop. The status element stays in the page (empty when
 * nothing is shared) so its changes are announced, 'Sharing ended' included.
 */
export function Banner({ phase, agent, onStop, onShowCode, onDismiss, reserved = false }: BannerProps) {
  const t = useT();
  const shown = phase.kind !== 'idle';
  const idle = reserved ? 'cobrowse-banner-idle cobrowse-reserve' : 'cobrowse-banner-idle';
  return (
    <section className={shown ? `cobrowse-banner cobrowse-banner--${phase.kind}` : idle} aria-label={shown ? t('cobrowse.banner.label') : undefined}>
      <p role="status" className="cobrowse-banner__text">
        {phase.kind === 'waiting'
          ? t('cobrowse.banner.waiting', { code: phase.code ? groupCode(phase.code) : '…' })
          : phase.kind === 'active'
            ? t('cobrowse.banner.sharing', { agent })
            : phase.kind === 'ended'
              ? t('cobrowse.banner.ended')
              : null}
      </p>
      {phase.kind === 'waiting' && phase.code ? (
        <button type="button" className="cobrowse-banner__button" onClick={onShowCode}>
          {t('cobrowse.banner.showCode')}
        </button>
      ) : null}
      {phase.kind === 'waiting' || phase.kind === 'active' ? (
        <button type="button" className="cobrowse-banner__button cobrowse-banner__button--stop" onClick={onStop}>
          {t('cobrowse.banner.stop')}
        </button>
      ) : null}
      {phase.kind === 'ended' ? (
        <button type="button" className="cobrowse-banner__button" onClick={onDismiss}>
          {t('cobrowse.banner.dismiss')}
        </button>
      ) : null}
    </section>
  );
}

/** The agent's pointer (CSS pixels from the document's top left, as the console sends them), as a fading dot; decorative, so hidden from assistive technology. */
export interface Pointer {
  x: number;
  y: number;
  seq: number;
}

export function PointerDot({ pointer }: { pointer: Pointer }) {
  return (
    <div
      key={pointer.seq}
      className="cobrowse-pointer"
      aria-hidden="true"
      data-testid="cobrowse-pointer"
      style={{ left: `${Math.round(pointer.x)}px`, top: `${Math.round(pointer.y)}px` }}
    />
  );
}
