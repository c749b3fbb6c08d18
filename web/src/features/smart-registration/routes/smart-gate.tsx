import { useState, type ReactNode } from 'react';
import { useLocation, useSearch } from 'wouter';
import { Redirect } from '@/lib/navigation/shown-location';
import { MessageSection } from '@/i18n/section';
import { guardRedirect } from '@/lib/flow/registration-guard';
import { readFlow } from '@/lib/flow/state';
import { useSite } from '@/lib/site/site-context';
import { accountTypeTarget, decodeSession, mayShow, smartPageOf, type SmartPage } from '@/features/smart-registration/session';
import '@/features/smart-registration/smart-registration.css';

const ROADBLOCKS: ReadonlySet<SmartPage> = new Set(['identityVerification', 'pinIdentification', 'unavailableOption', 'unableToIdentify', 'unableToIdentifyRoadblock']);

/**
 * The smart registration pages of spec §2.5, with their texts (the
 * smartRegistration message section); `pages` are those of the calling
 * chunk (account-type.tsx: the first page and its help, alone;
 * smart-registration.tsx: the others). The guarded route: a step
 * page opens only when the session token's page is this one (the code page
 * while the step is VERIFY), else the account type with the query string.
 * The roadblocks open only while the roadblocked flag is set (spec §2.6),
 * else / with the query string.
 */
export function SmartRegistrationGate({ pages }: { pages: Partial<Record<SmartPage, ReactNode>> }) {
  const [path] = useLocation();
  const search = useSearch();
  const { language } = useSite();
  const name = smartPageOf(path);
  // Decided on arrival: a page whose answer moves the session on stays until it navigates.
  const [target] = useState(() => {
    const flow = readFlow();
    if (name === null) return '/not-found';
    if (ROADBLOCKS.has(name)) return flow.roadblocked ? null : guardRedirect(search);
    return mayShow(name, decodeSession(flow.smartRegistration?.token)) ? null : accountTypeTarget(search);
  });
  if (target !== null || name === null || !pages[name]) return <Redirect to={target ?? '/not-found'} replace />;
  return (
    <MessageSection name="smartRegistration" language={language}>
      {pages[name]}
    </MessageSection>
  );
}
