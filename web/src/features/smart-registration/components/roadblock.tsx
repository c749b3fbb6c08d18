import { useId } from 'react';
import { useLocation } from 'wouter';
import type { SectionKey } from '@/i18n/catalog';
import { useT } from '@/i18n/i18n';
import { ContactDetails } from '@/lib/flow/contact';
import { resetAfterRoadblock } from '@/lib/flow/state';
import { SmartPage } from './smart-page';

export type SmartRoadblock = 'identityVerification' | 'pinIdentification' | 'unavailableOption' | 'unableToIdentify';

const CONTENT: Record<SmartRoadblock, { title: SectionKey; text: SectionKey }> = {
  identityVerification: {
    title: 'smartRegistration.roadblock.identityVerification.title',
    text: 'smartRegistration.roadblock.identityVerification.text',
  },
  pinIdentification: { title: 'smartRegistration.roadblock.pinIdentification.title', text: 'smartRegistration.roadblock.pinIdentification.text' },
  unavailableOption: { title: 'smartRegistration.roadblock.unavailableOption.title', text: 'smartRegistration.roadblock.unavailableOption.text' },
  unableToIdentify: { title: 'smartRegistration.roadblock.unableToIdentify.title', text: 'smartRegistration.roadblock.unableToIdentify.text' },
};

/**
 * The identification roadblocks of smart registration (spec §2.5): what
 * happened, the province's phone number and hours, and back to login, which
 * drops the roadblocked flag and the registration.
 */
export function SmartRoadblockPage({ page }: { page: SmartRoadblock }) {
  const t = useT();
  const cardId = useId();
  const [, navigate] = useLocation();
  const { title, text } = CONTENT[page];
  const leave = () => {
    navigate('/');
    resetAfterRoadblock();
  };
  return (
    <SmartPage title={t(title)} aside={false}>
      <p>{t(text)}</p>
      <section className="smart-registration__card" aria-labelledby={cardId}>
        <h2 id={cardId}>{t('contact.title')}</h2>
        <ContactDetails />
        <button type="button" className="button button--secondary" onClick={leave}>
          {t('smartRegistration.roadblock.backToLogin')}
        </button>
      </section>
    </SmartPage>
  );
}
