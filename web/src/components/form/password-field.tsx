import { useState, type ReactNode } from 'react';
import { useT } from '@/i18n/i18n';
import { FieldFrame, useField } from './form';

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
 * A password with a show/hide toggle: a button whose name stays "Show
 * password" and whose aria-pressed tells whether the password shows.
 * data-sensitive marks what co-browsing must never send.
 */
export function PasswordField({ name, autoComplete, label, hint, disabled }: PasswordFieldProps) {
  const t = useT();
  const field = useField(name);
  const [shown, setShown] = useState(false);
  return (
    <FieldFrame binding={field} label={label ?? t('form.password')} hint={hint}>
      <div className="password-field">
        <input
          id={field.id}
          name={name}
          className="field__input"
          type={shown ? 'text' : 'password'}
          autoComplete={autoComplete}
          autoCapitalize="none"
          spellCheck={false}
          data-sensitive=""
          disabled={disabled}
          value={field.input}
          onChange={(event) => field.setInput(event.target.value)}
          onBlur={field.onBlur}
          aria-invalid={field.error ? true : undefined}
          aria-describedby={field.describedBy(Boolean(hint))}
        />
        <button
          type="button"
          className="password-field__toggle"
          aria-pressed={shown}
          aria-controls={field.id}
          disabled={disabled}
          onClick={() => setShown((s) => !s)}
        >
          {t('form.showPassword')}
        </button>
      </div>
    </FieldFrame>
  );
}
