import { AccountType, AccountTypeHelp } from '@/features/smart-registration/components/account-type';
import { SmartRegistrationGate } from './smart-gate';

const PAGES = { accountType: <AccountType />, accountTypeHelp: <AccountTypeHelp /> };

/**
 * The account type page and its help, in a chunk of their own: a visitor
 * who opens them downloads neither the later pages nor their fields
 * (issue 32, the JavaScript budget of an entry page).
 */
export default function SmartAccountTypeRoute() {
  return <SmartRegistrationGate pages={PAGES} />;
}
