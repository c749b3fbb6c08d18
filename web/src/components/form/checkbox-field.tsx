import type { ReactNode } from 'react';
import { FieldError, useField } from './form';

export interface CheckboxFieldProps {
  /** The field's name in useForm; its input is a boolean (declare `initial: false` or true). */
  name: string;
  /** The label, after the box; it may hold a link. */
  label: ReactNode;
  disabled?: boolean;
  /** Called with the new state after the form has it (e.g. 'remember me' forgetting the email at once). */
  onChange?: (checked: boolean) => void;
}

/** A checkbox bound to a form field; once the form was submitted, each change is checked at once. */
export function CheckboxField({ name, label, disabled, onChange }: CheckboxFieldProps) {
  const field = useField(name, 'checkbox');
  return (
    <div className={field.error ? 'field field--checkbox field--invalid' : 'field field--checkbox'}>
      <input
        id={field.id}
        name={name}
        type="checkbox"
        className="field__checkbox"
        checked={field.input}
        disabled={disabled}
        onChange={(event) => {
          field.setInput(event.target.checked);
          field.onBlur();
          onChange?.(event.target.checked);
        }}
        onBlur={field.onBlur}
        aria-invalid={field.error ? true : undefined}
        aria-describedby={field.describedBy(false)}
      />
      <label htmlFor={field.id}>{label}</label>
      <FieldError id={field.errorId} message={field.error} />
    </div>
  );
}
