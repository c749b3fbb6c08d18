import { privateMark } from '@/lib/cobrowse/privacy';
import { useState, type ReactNode } from 'react';
import { useT } from '@/i18n/i18n';
import { controlProps, FieldFrame, useField } from './form';

export interface PasswordFieldProps {
  name: string;
  /** current-password to sign in; new-password to create one (password managers offer to generate it). */
  autoComplete: 'current-password' | 'new-password';
  /** Defaults to "Password". */
  label?: string;
  hint?: ReactNode;
  disabled?: boolean;
}

/**
 * A password with a show/hide toggle: a button that says what it will do,
 * "Show password" while the password is hidden and "Hide password" while it
 * shows (its name changes, so it carries no aria-pressed: a pressed "Hide"
 * would say the opposite). data-private marks what co-browse must never
 * send (issue 18).
 */
export function PasswordField({ name, autoComplete, label, hint, disabled }: PasswordFieldProps) {
  const t = useT();
  const field = useField(name);
  const [shown, setShown] = useState(false);
  return (
    <FieldFrame binding={field} label={label ?? t('form.password')} hint={hint}>
      <div className="password-field">
        <input
          {...controlProps(field, name, Boolean(hint))}
          type={shown ? 'text' : 'password'}
          autoComplete={autoComplete}
          autoCapitalize="none"
          spellCheck={false}
          {...privateMark('password')}
          disabled={disabled}
        />
        <button
          type="button"
          className="outline-button password-field__toggle"
          aria-controls={field.id}
          disabled={disabled}
          onClick={() => setShown((s) => !s)}
        >
          <svg className="password-field__icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
            <path d="M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12z" />
            <circle cx="12" cy="12" r="3" />
            {shown ? <path d="M4 4l16 16" /> : null}
          </svg>
          {t(shown ? 'form.hidePassword' : 'form.showPassword')}
        </button>
      </div>
    </FieldFrame>
  );
}
