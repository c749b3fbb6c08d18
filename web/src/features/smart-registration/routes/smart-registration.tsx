import { useState, type ReactNode } from 'react';
import { Redirect, useLocation, useSearch } from 'wouter';
import { MessageSection } from '@/i18n/section';
import { guardRedirect } from '@/lib/flow/registration-guard';
import { readFlow } from '@/lib/flow/state';
import { useSite } from '@/lib/site/site-context';
import { AccountType, AccountTypeHelp } from '@/features/smart-registration/components/account-type';
import { Confirmation } from '@/features/smart-registration/components/confirmation';
import { Create } from '@/features/smart-registration/components/create';
import { Identification } from '@/features/smart-registration/components/identification';
import { SmartRoadblockPage } from '@/features/smart-registration/components/roadblock';
import { VerifyCode } from '@/features/smart-registration/components/verify-code';
import { VerifyEmail } from '@/features/smart-registration/components/verify-email';
import { VerifyOptions } from '@/features/smart-registration/components/verify-options';
import { accountTypeTarget, decodeSession, mayShow, smartPageOf, type SmartPage } from '@/features/smart-registration/session';
import '@/features/smart-registration/smart-registration.css';

const ROADBLOCKS: ReadonlySet<SmartPage> = new Set(['identityVerification', 'pinIdentification', 'unavailableOption', 'unableToIdentify', 'unableToIdentifyRoadblock']);

/** Each smart registration page by its name in the session (the roadblocks too). */
const PAGES: Record<SmartPage, ReactNode> = {
  accountType: <AccountType />,
  accountTypeHelp: <AccountTypeHelp />,
  identification: <Identification />,
  verifyOptions: <VerifyOptions />,
  verifyCode: <VerifyCode />,
  verifyEmail: <VerifyEmail />,
  create: <Create />,
  createShort: <Create />,
  confirmation: <Confirmation />,
  identityVerification: <SmartRoadblockPage page="identityVerification" />,
  pinIdentification: <SmartRoadblockPage page="pinIdentification" />,
  unavailableOption: <SmartRoadblockPage page="unavailableOption" />,
  unableToIdentify: <SmartRoadblockPage page="unableToIdentify" />,
  unableToIdentifyRoadblock: <SmartRoadblockPage page="unableToIdentify" />,
};

/**
 * The smart registration pages of spec §2.5 (one lazy chunk, with their
 * texts: the smartRegistration message section). The guarded route: a step
 * page opens only when the session token's page is this one (the code page
 * while the step is VERIFY), else the account type with the query string.
 * The roadblocks open only while the roadblocked flag is set (spec §2.6),
 * else / with the query string.
 */
export default function SmartRegistrationRoute() {
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
  if (target !== null || name === null) return <Redirect to={target ?? '/not-found'} replace />;
  return (
    <MessageSection name="smartRegistration" language={language}>
      {PAGES[name]}
    </MessageSection>
  );
}
