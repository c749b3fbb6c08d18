import type { ReactNode } from 'react';
import { FormAside } from '@/components/form-aside/form-aside';
import { usePageTitle } from '@/lib/page-title';

/**
 * The frame of the registration pages with a form (spec §2.4): a section
 * named by its h1 (titleId, which the page's form is labelled by too), the
 * page's content, the link back under it when the page has one, the promo
 * panel beside it and the answers' dialog when open.
 */
export function RegistrationPage({
  titleId,
  title,
  back,
  dialog,
  children,
}: {
  titleId: string;
  title: string;
  back?: ReactNode;
  dialog: ReactNode;
  children: ReactNode;
}) {
  usePageTitle(title);
  return (
    <section className="page page--narrow registration" aria-labelledby={titleId}>
      <h1 id={titleId}>{title}</h1>
      {children}
      {back ? <p className="registration__links">{back}</p> : null}
      <FormAside />
      {dialog}
    </section>
  );
}
