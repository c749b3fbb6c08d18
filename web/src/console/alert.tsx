import type { Ref } from 'react';
import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';

/**
 * The live region a page's or a dialog's refusal is read in: always there,
 * empty until there is one. Given a ref, it can take the focus (tabIndex -1):
 * for a refusal whose button went with it (issue 32).
 */
export function ErrorAlert({ error, id, ref }: { error: MessageKey | null; id?: string; ref?: Ref<HTMLDivElement> }) {
  const t = useT();
  return (
    <div id={id} role="alert" className={error ? 'console-error' : undefined} ref={ref} tabIndex={ref ? -1 : undefined}>
      {error ? t(error) : null}
    </div>
  );
}
