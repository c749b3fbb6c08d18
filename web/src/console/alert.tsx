import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';

/** The live region a page's or a dialog's refusal is read in: always there, empty until there is one. */
export function ErrorAlert({ error, id }: { error: MessageKey | null; id?: string }) {
  const t = useT();
  return (
    <div id={id} role="alert" className={error ? 'console-error' : undefined}>
      {error ? t(error) : null}
    </div>
  );
}
