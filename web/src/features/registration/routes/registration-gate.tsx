import { useState, type ReactNode } from 'react';
import { useLocation, useSearch } from 'wouter';
import { Redirect } from '@/lib/navigation/shown-location';
import { MessageSection } from '@/i18n/section';
import { previousPage } from '@/lib/flow/previous-page';
import { guardRedirect, hasLinkToken, mayOpen, needsRegistration, registrationPageOf, type RegistrationPage } from '@/lib/flow/registration-guard';
import { useFlow } from '@/lib/flow/state';
import { useSite } from '@/lib/site/site-context';
import '@/features/registration/registration.css';

/**
 * The legacy registration pages of spec §2.4, with their texts (the
 * registration message section); `pages` are those of the calling chunk
 * (identification.tsx: the first page, alone; registration.tsx: the
 * others). A page opens only when the visitor came from a page the guard
 * table allows (lib/flow/registration-guard) and, past identification, with
 * a registration under way (the link's entry: with its token); otherwise /
 * with the query string.
 */
export function RegistrationGate({ pages }: { pages: Partial<Record<RegistrationPage, ReactNode>> }) {
  const [path] = useLocation();
  const search = useSearch();
  const { language } = useSite();
  const { registration } = useFlow();
  const name = registrationPageOf(path);
  // Decided on arrival: the previous page is the one the visitor came from; the link's token leaves the address once read.
  const [allowed] = useState(() => name !== null && mayOpen(name, previousPage()) && (name !== 'link' || hasLinkToken(search)));
  if (!name || !allowed || (needsRegistration(name) && !registration?.id) || !pages[name]) {
    return <Redirect to={guardRedirect(search)} replace />;
  }
  return (
    <MessageSection name="registration" language={language}>
      {pages[name]}
    </MessageSection>
  );
}
