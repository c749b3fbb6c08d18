import { useState } from 'react';
import { useT } from '@/i18n/i18n';
import type { SmartSend } from '@/features/smart-registration/use-smart-send';

/** Back (spec §4.1): the server's previous step, then where its session leads. */
export function BackButton({ smart }: { smart: SmartSend }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const back = async () => {
    if (busy) return;
    setBusy(true);
    const result = await smart.send((api) => api.back());
    if (result?.outcome.kind === 'continue') await smart.follow();
    setBusy(false);
  };
  return (
    <button type="button" className="button button--secondary" disabled={busy} aria-busy={busy || undefined} onClick={() => void back()}>
      {t('smartRegistration.back')}
    </button>
  );
}
