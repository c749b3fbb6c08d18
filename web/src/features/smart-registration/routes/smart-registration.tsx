import type { ReactNode } from 'react';
import { Confirmation } from '@/features/smart-registration/components/confirmation';
import { Create } from '@/features/smart-registration/components/create';
import { Identification } from '@/features/smart-registration/components/identification';
import { SmartRoadblockPage } from '@/features/smart-registration/components/roadblock';
import { VerifyCode } from '@/features/smart-registration/components/verify-code';
import { VerifyEmail } from '@/features/smart-registration/components/verify-email';
import { VerifyOptions } from '@/features/smart-registration/components/verify-options';
import type { SmartPage } from '@/features/smart-registration/session';
import { SmartRegistrationGate } from './smart-gate';

/**
 * The smart registration pages after the account type, by their name in the
 * session (the roadblocks too): one lazy chunk, which the account type page
 * fetches as soon as the visitor starts on it (routes.tsx, `next`), so the
 * next page opens at once.
 */
const PAGES: Partial<Record<SmartPage, ReactNode>> = {
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

export default function SmartRegistrationRoute() {
  return <SmartRegistrationGate pages={PAGES} />;
}
