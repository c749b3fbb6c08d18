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

function page(name: RegistrationPage): ReactNode {
  switch (name) {
    case 'identification':
      return <Identification />;
    case 'validation':
      return <ValidationChoice />;
    case 'validation/sms':
      return <ValidationCode method="SMS" />;
    case 'validation/email':
      return <ValidationCode method="EMAIL" />;
    case 'validation/pin':
      return <ValidationCode method="PIN" />;
    case 'account-creation/email':
      return <AccountEmail mode="email" />;
    case 'account-creation/new-email':
      return <AccountEmail mode="new-email" />;
    case 'account-creation/password':
      return <AccountPassword />;
    case 'password-validation':
      return <PasswordValidation />;
    case 'email-sent':
      return <EmailSent />;
    case 'link':
      return <TokenLink />;
    case 'confirm-email':
      return <ConfirmEmail />;
  }
}

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
      {page(name)}
    </MessageSection>
  );
}
