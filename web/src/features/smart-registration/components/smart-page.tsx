import { useId, type ReactNode } from 'react';
import { FormAside } from '@/components/form-aside/form-aside';
import { usePageTitle } from '@/lib/page-title';

/**
 * The frame of every smart registration page (spec §2.5): a section named by
 * its h1 (which a page change focuses), the page's content, the promo
 * panel beside it and the soft roadblock dialog when open.
 */
export function SmartPage({ title, children, aside = true, dialog }: { title: string; children: ReactNode; aside?: boolean; dialog?: ReactNode }) {
  const titleId = useId();
  usePageTitle(title);
  return (
    <section className="page page--narrow smart-registration" aria-labelledby={titleId}>
      <h1 id={titleId}>{title}</h1>
      {children}
      {aside ? <FormAside /> : null}
      {dialog}
    </section>
  );
}
