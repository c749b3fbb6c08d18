import { useState, type ReactNode } from 'react';
import { Redirect, useLocation, useSearch } from 'wouter';
import { MessageSection } from '@/i18n/section';
import { previousPage } from '@/lib/flow/previous-page';
import { guardRedirect, hasLinkToken, mayOpen, needsRegistration, registrationPageOf, type RegistrationPage } from '@/lib/flow/registration-guard';
import { useFlow } from '@/lib/flow/state';
import { useSite } from '@/lib/site/site-context';
import { AccountEmail } from '@/features/registration/components/account-email';
import { AccountPassword } from '@/features/registration/components/account-password';
import { ConfirmEmail } from '@/features/registration/components/confirm-email';
import { EmailSent } from '@/features/registration/components/email-sent';
import { Identification } from '@/features/registration/components/identification';
import { PasswordValidation } from '@/features/registration/components/password-validation';
import { TokenLink } from '@/features/registration/components/token-link';
import { ValidationChoice } from '@/features/registration/components/validation-choice';
import { ValidationCode } from '@/features/registration/components/validation-code';
import '@/features/registration/registration.css';

/** Each registration page by its name in the guard table. */
const PAGES: Record<RegistrationPage, ReactNode> = {
  identification: <Identification />,
  validation: <ValidationChoice />,
  'validation/sms': <ValidationCode method="SMS" />,
  'validation/email': <ValidationCode method="EMAIL" />,
  'validation/pin': <ValidationCode method="PIN" />,
  'account-creation/email': <AccountEmail mode="email" />,
  'account-creation/new-email': <AccountEmail mode="new-email" />,
  'account-creation/password': <AccountPassword />,
  'password-validation': <PasswordValidation />,
  'email-sent': <EmailSent />,
  link: <TokenLink />,
  'confirm-email': <ConfirmEmail />,
};

/**
 * The legacy registration pages of spec §2.4 (one lazy chunk, with their
 * texts: the registration message section). A page opens only when the
 * visitor came from a page the guard table allows (lib/flow/registration-guard)
 * and, past identification, with a registration under way (the link's entry:
 * with its token); otherwise / with the query string.
 */
export default function RegistrationRoute() {
  const [path] = useLocation();
  const search = useSearch();
  const { language } = useSite();
  const { registration } = useFlow();
  const name = registrationPageOf(path);
  // Decided on arrival: the previous page is the one the visitor came from; the link's token leaves the address once read.
  const [allowed] = useState(() => name !== null && mayOpen(name, previousPage()) && (name !== 'link' || hasLinkToken(search)));
  if (!name || !allowed || (needsRegistration(name) && !registration?.id)) {
    return <Redirect to={guardRedirect(search)} replace />;
  }
  return (
    <MessageSection name="registration" language={language}>
      {PAGES[name]}
    </MessageSection>
  );
}
