import type { HTMLAttributes, ReactNode } from 'react';
import { useT } from '@/i18n/i18n';
import { InputField, useField, type PresetFieldProps } from './form';

export interface TextFieldProps {
  /** The field's name in useForm. */
  name: string;
  label: string;
  /** An autofill token (HTML autocomplete), so password managers and phones fill the field. */
  autoComplete: string;
  hint?: ReactNode;
  disabled?: boolean;
  type?: 'text' | 'email';
  inputMode?: HTMLAttributes<HTMLInputElement>['inputMode'];
  maxLength?: number;
  autoCapitalize?: 'none' | 'words' | 'characters' | 'sentences';
}

/** A labelled text input bound to a form field; what is typed is kept as is, the rule normalizes it. */
export function TextField({ name, label, hint, type = 'text', ...input }: TextFieldProps) {
  const field = useField(name);
  return (
    <InputField binding={field} name={name} label={label} hint={hint} type={type} spellCheck={type === 'email' ? false : undefined} {...input} />
  );
}

/** First name (spec §5 names): autocomplete given-name. */
export function FirstNameField({ label, ...props }: PresetFieldProps) {
  const t = useT();
  return <TextField {...props} label={label ?? t('form.firstName')} autoComplete="given-name" autoCapitalize="words" />;
}

/** Last name (spec §5 names): autocomplete family-name. */
export function LastNameField({ label, ...props }: PresetFieldProps) {
  const t = useT();
  return <TextField {...props} label={label ?? t('form.lastName')} autoComplete="family-name" autoCapitalize="words" />;
}
