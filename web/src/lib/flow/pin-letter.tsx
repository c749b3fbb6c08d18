import { useId } from 'react';
import { useT } from '@/i18n/i18n';
import { privateMark } from '@/lib/cobrowse/privacy';
import './flow.css';

/**
 * Where the PIN is printed on the insurer's letter (spec §2.4, §2.5): a
 * drawing of the letter, text lines as bars, the PIN box at the top right
 * highlighted. Our own drawing, in the brand's colours. Both registrations
 * show it, each with its own texts. Marked private: a co-browsing agent
 * sees its caption, not the letter (lib/cobrowse/privacy.ts).
 */
export function PinLetter({ title, caption }: { title: string; caption: string }) {
  const t = useT();
  const titleId = useId();
  return (
    <figure className="pin-letter">
      <svg viewBox="0 0 240 300" {...privateMark('pinLetter')} role="img" aria-labelledby={titleId} focusable="false">
        <title id={titleId}>{title}</title>
        <rect x="8" y="8" width="224" height="284" rx="6" fill="#fff" stroke="currentColor" strokeWidth="2" />
        <rect x="24" y="28" width="64" height="14" rx="2" fill="currentColor" opacity="0.55" />
        <rect x="24" y="52" width="88" height="6" rx="2" fill="currentColor" opacity="0.3" />
        <rect x="24" y="64" width="72" height="6" rx="2" fill="currentColor" opacity="0.3" />
        <rect x="24" y="76" width="80" height="6" rx="2" fill="currentColor" opacity="0.3" />
        <rect x="132" y="24" width="88" height="50" rx="4" fill="var(--brand-background, #fff)" stroke="var(--brand-primary, currentColor)" strokeWidth="4" />
        <text x="176" y="44" textAnchor="middle" fontSize="11" fontFamily="sans-serif" fill="currentColor">
          {t('form.pin')}
        </text>
        <text x="176" y="64" textAnchor="middle" fontSize="14" fontFamily="monospace" fontWeight="700" fill="currentColor">
          AB12CD34
        </text>
        {[110, 124, 138, 152, 180, 194, 208, 222, 250].map((y, i) => (
          <rect key={y} x="24" y={y} width={i % 4 === 3 ? 120 : 192} height="6" rx="2" fill="currentColor" opacity="0.25" />
        ))}
      </svg>
      <figcaption>{caption}</figcaption>
    </figure>
  );
}
