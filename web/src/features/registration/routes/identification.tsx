import { Identification } from '@/features/registration/components/identification';
import { RegistrationGate } from './registration-gate';

const PAGES = { identification: <Identification /> };

/**
 * The first registration page, in a chunk of its own: a visitor who opens
 * it downloads neither the later pages nor their fields (issue 32, the
 * JavaScript budget of an entry page).
 */
export default function RegistrationIdentificationRoute() {
  return <RegistrationGate pages={PAGES} />;
}
