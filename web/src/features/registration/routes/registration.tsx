import type { ReactNode } from 'react';
import type { RegistrationPage } from '@/lib/flow/registration-guard';
import { AccountEmail } from '@/features/registration/components/account-email';
import { AccountPassword } from '@/features/registration/components/account-password';
import { ConfirmEmail } from '@/features/registration/components/confirm-email';
import { EmailSent } from '@/features/registration/components/email-sent';
import { PasswordValidation } from '@/features/registration/components/password-validation';
import { TokenLink } from '@/features/registration/components/token-link';
import { ValidationChoice } from '@/features/registration/components/validation-choice';
import { ValidationCode } from '@/features/registration/components/validation-code';
import { RegistrationGate } from './registration-gate';

/**
 * The registration pages after identification, by their name in the guard
 * table: one lazy chunk, which the identification page fetches as soon as
 * the visitor starts on it (routes.tsx, `next`), so the next page opens at
 * once; a visit that starts here (the email's link) has it preloaded by the
 * server like any page.
 */
const PAGES: Partial<Record<RegistrationPage, ReactNode>> = {
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

export default function RegistrationRoute() {
  return <RegistrationGate pages={PAGES} />;
}
