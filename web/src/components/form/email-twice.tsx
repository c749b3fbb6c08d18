import { checkEmail } from '@/lib/rules/email';
import { checkEmailConfirmation } from '@/lib/rules/email-confirmation';
import { EmailField } from './email-field';
import { Form, SubmitButton } from './form';
import { useForm } from './use-form';

/** The state of a form that asks an email twice (spec §5: the confirmation must be the same address). */
export function useEmailTwiceForm() {
  return useForm({
    email: { rule: checkEmail },
    emailConfirmation: { rule: checkEmailConfirmation, with: 'email' },
  });
}

export interface EmailTwiceFormProps {
  form: ReturnType<typeof useEmailTwiceForm>;
  onSubmit: (values: { email: string; emailConfirmation: string }) => void | Promise<void>;
  /** The confirmation field's label, in the flow's words. */
  confirmationLabel: string;
  submit: string;
  /** The class of the buttons' row (the flow's layout). */
  actionsClassName: string;
  /** A second button after the submit (cancel, back), where the page offers one. */
  secondary?: { label: string; onClick: () => void } | null;
  'aria-labelledby'?: string;
}

/** An email and its confirmation (autocomplete email), the submit, and the page's other button, if any. */
export function EmailTwiceForm({ form, onSubmit, confirmationLabel, submit, actionsClassName, secondary, ...aria }: EmailTwiceFormProps) {
  return (
    <Form form={form} onSubmit={onSubmit} {...aria}>
      <EmailField name="email" autoComplete="email" />
      <EmailField name="emailConfirmation" autoComplete="email" label={confirmationLabel} />
      <div className={actionsClassName}>
        <SubmitButton>{submit}</SubmitButton>
        {secondary ? (
          <button type="button" className="button button--secondary" onClick={secondary.onClick}>
            {secondary.label}
          </button>
        ) : null}
      </div>
    </Form>
  );
}
