import type { ReactNode } from 'react';
import { useT } from '@/i18n/i18n';
import { EMAIL_MAX_LENGTH } from '@/lib/rules/email';
import { TextField } from './text-field';

export interface EmailFieldProps {
  name: string;
  /** 'username' where the email is the account name (login), so password managers pair it with the password. */
  autoComplete: 'username' | 'username webauthn' | 'email';
  /** Defaults to "Email address"; a retype field passes its own. */
  label?: string;
  hint?: ReactNode;
  disabled?: boolean;
}

/** Email (spec §5): an email keyboard, at most 79 characters, no spell checking or capitals. */
export function EmailField({ label, ...props }: EmailFieldProps) {
  const t = useT();
  return (
    <TextField
      {...props}
      label={label ?? t('form.email')}
      type="email"
      inputMode="email"
      autoCapitalize="none"
      maxLength={EMAIL_MAX_LENGTH}
    />
  );
}
