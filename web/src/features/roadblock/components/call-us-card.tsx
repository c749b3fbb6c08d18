import { useId } from 'react';
import { useLocation } from 'wouter';
import { useT } from '@/i18n/i18n';
import { ContactDetails } from '@/lib/flow/contact';
import { resetAfterRoadblock, resetRegistration, useFlow } from '@/lib/flow/state';
import type { RoadblockBehaviour } from '@/features/roadblock/content';

const REGISTRATION_IDENTIFICATION = '/registration/identification';

/**
 * Spec §2.6 call-us card: the province's phone number and opening hours, and
 * a button back to registration identification (while a registration is
 * under way) or to login. Leaving resets what the page's behaviour says:
 * the PIN roadblock always returns to the root; inconsistency and technical
 * drop the registration state only; the others drop the roadblocked flag,
 * the registration data and the email token.
 */
export function CallUsCard({ behaviour }: { behaviour: RoadblockBehaviour }) {
  const t = useT();
  const titleId = useId();
  const [, navigate] = useLocation();
  const { registration } = useFlow();
  const target = behaviour !== 'pin' && registration !== null ? REGISTRATION_IDENTIFICATION : '/';

  const leave = () => {
    navigate(target);
    if (behaviour === 'registration-reset') resetRegistration();
    else resetAfterRoadblock();
  };

  return (
    <section className="roadblock-card" aria-labelledby={titleId}>
      <h2 id={titleId}>{t('contact.title')}</h2>
      <ContactDetails />
      <button type="button" className="button button--secondary" onClick={leave}>
        {target === '/' ? t('roadblock.backToLogin') : t('roadblock.backToRegistration')}
      </button>
    </section>
  );
}
