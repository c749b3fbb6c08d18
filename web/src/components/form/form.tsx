import { createContext, use, useCallback, useEffect, useRef, useState, type ChangeEvent, type FormEvent, type InputHTMLAttributes, type ReactNode, type Ref } from 'react';
import { messageText, useT } from '@/i18n/i18n';
import type { MessageKey, MessageParams } from '@/i18n/catalog';
import { PrivateText } from '@/i18n/private-text';
import { privateKinds, type PrivateKind } from '@/lib/cobrowse/privacy';
import { fieldId, type FieldInput, type FieldSpecs, type FormState, type FormValues } from './use-form';
import './form.css';

// The form of every screen: no browser validation bubbles (the rules speak,
// in the page's language), an error summary that takes the focus when a
// submit finds errors, and a role="alert" region for server answers.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- fields reach any form by name
type AnyForm = FormState<any>;

const FormContext = createContext<AnyForm | null>(null);

/** The form around a field; a field outside <Form> is a programming error. */
export function useFormContext(): AnyForm {
  const form = use(FormContext);
  if (!form) throw new Error('a form field must be inside <Form>');
  return form;
}

export interface FormProps<S extends FieldSpecs> {
  form: FormState<S>;
  /** Receives the rules' normalized values; while its promise runs the form is submitting. */
  onSubmit: (values: FormValues<S>) => void | Promise<void>;
  children: ReactNode;
  /** Accessible name of the form (a landmark when named). */
  'aria-labelledby'?: string;
  className?: string;
}

export function Form<S extends FieldSpecs>({ form, onSubmit, children, className, ...aria }: FormProps<S>) {
  const summary = useRef<HTMLDivElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const [focusSummary, setFocusSummary] = useState(0);
  const [submitted, setSubmitted] = useState(0);
  // A second submit (Enter pressed twice) before the button shows as disabled is ignored.
  const busy = useRef(false);

  useEffect(() => {
    if (focusSummary > 0) summary.current?.focus();
  }, [focusSummary]);

  // The submit button is disabled while the answer is awaited, and a
  // browser lets the focus fall to <body> when the focused button is
  // disabled (issue 32): once the answer is shown, a form still on the page
  // takes it back, on the server's message when there is one, else on the
  // button, so the next Tab goes on from where the visitor was.
  useEffect(() => {
    const element = formRef.current;
    if (submitted === 0 || !element?.isConnected) return;
    if (document.activeElement !== null && document.activeElement !== document.body) return;
    const alert = element.querySelector<HTMLElement>('.form-alert');
    (alert ?? element.querySelector<HTMLElement>('button[type="submit"]'))?.focus();
  }, [submitted]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy.current) return;
    form.setFormError(null);
    const values = form.validate();
    if (!values) {
      setFocusSummary((n) => n + 1);
      return;
    }
    busy.current = true;
    form.setSubmitting(true);
    try {
      await onSubmit(values);
    } finally {
      busy.current = false;
      form.setSubmitting(false);
      setSubmitted((n) => n + 1);
    }
  }

  return (
    <FormContext value={form}>
      <form ref={formRef} noValidate className={className ? `form ${className}` : 'form'} onSubmit={submit} {...aria}>
        <FormAlert />
        <ErrorSummary ref={summary} />
        {children}
      </form>
    </FormContext>
  );
}

/** Server answers for the whole form; the region is always there so that its message is announced. */
function FormAlert() {
  const t = useT();
  const { formError } = useFormContext();
  return (
    <div role="alert" className={formError ? 'form-alert' : undefined} tabIndex={formError ? -1 : undefined}>
      {formError ? <p>{typeof formError === 'string' ? messageText(t, formError) : <FormMessage message={formError} />}</p> : null}
    </div>
  );
}

/**
 * A form message with values: a value named for a kind of the co-browse
 * privacy list ({email}: the address the visitor typed, "already taken") is
 * the customer's and is marked, so an agent never reads it.
 */
function FormMessage({ message }: { message: { key: MessageKey; params: MessageParams } }) {
  const kinds: readonly string[] = privateKinds();
  const params = Object.fromEntries(Object.entries(message.params).map(([name, value]) => [name, String(value)]));
  const marked = Object.fromEntries(Object.keys(params).flatMap((name) => (kinds.includes(name) ? [[name, name as PrivateKind]] : [])));
  return <PrivateText id={message.key} params={params} kinds={marked} />;
}

/** Spec-independent pattern (GOV.UK): a heading and a link to each invalid field, in field order. */
function ErrorSummary({ ref }: { ref: Ref<HTMLDivElement> }) {
  const t = useT();
  const form = useFormContext();
  // The summary of the last submit (and the server's answer to it): a blur
  // does not change it, so nothing above the submit button moves (use-form).
  const invalid = Object.keys(form.specs).flatMap((name) => {
    const key = form.summary[name];
    return key ? [{ name, key }] : [];
  });
  if (invalid.length === 0) return null;
  const headingId = `${form.id}-summary`;
  return (
    <div ref={ref} className="error-summary" role="alert" aria-labelledby={headingId} tabIndex={-1}>
      <h2 id={headingId} className="error-summary__title">
        {t('form.errorSummary')}
      </h2>
      <ul>
        {invalid.map(({ name, key }) => {
          const target = fieldId(form.id, name);
          return (
            <li key={name}>
              <a
                href={`#${target}`}
                onClick={(event) => {
                  event.preventDefault();
                  const element = document.getElementById(target);
                  element?.focus();
                  element?.scrollIntoView?.({ block: 'center' });
                }}
              >
                {t(key)}
              </a>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/** The submit button: disabled and aria-busy while onSubmit runs. */
export function SubmitButton({
  children,
  className = 'button button--primary',
  disabled = false,
}: {
  children: ReactNode;
  className?: string;
  disabled?: boolean;
}) {
  const { submitting } = useFormContext();
  return (
    <button type="submit" className={className} disabled={submitting || disabled} aria-busy={submitting || undefined}>
      {children}
    </button>
  );
}

export interface FieldBinding<I extends FieldInput> {
  /** id of the control (of the first one in a group). */
  id: string;
  errorId: string;
  hintId: string;
  input: I;
  setInput: (input: I) => void;
  onBlur: () => void;
  error: string | null;
  /** aria-describedby: the hint when there is one, then the message when there is one. */
  describedBy: (hasHint: boolean) => string | undefined;
}

/** Binds a control to the field `name` of the surrounding form: a text (the default) or a checkbox. */
export function useField(name: string, kind?: 'text'): FieldBinding<string>;
export function useField(name: string, kind: 'checkbox'): FieldBinding<boolean>;
export function useField(name: string, kind: 'text' | 'checkbox' = 'text'): FieldBinding<string> | FieldBinding<boolean> {
  const fallback = kind === 'checkbox' ? false : '';
  const t = useT();
  const form = useFormContext();
  const id = fieldId(form.id, name);
  const key = form.errors[name];
  const raw: unknown = form.inputs[name];
  const input = typeof raw === typeof fallback ? (raw as FieldInput) : fallback;
  const { setInput: setFormInput, blur } = form;
  const setInput = useCallback((value: FieldInput) => setFormInput(name, value), [setFormInput, name]);
  const onBlur = useCallback(() => blur(name), [blur, name]);
  if (!Object.hasOwn(form.specs, name)) throw new Error(`field "${name}" is not declared in useForm`);
  const binding: FieldBinding<FieldInput> = {
    id,
    errorId: `${id}-error`,
    hintId: `${id}-hint`,
    input,
    setInput,
    onBlur,
    error: key ? t(key) : null,
    describedBy: (hasHint) => [hasHint ? `${id}-hint` : '', key ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined,
  };
  // The input is of the kind asked for (typeof check above).
  return binding as FieldBinding<string> | FieldBinding<boolean>;
}

/** The props of a preset field (phone, first name…): its name, and a label and hint that replace the defaults. */
export interface PresetFieldProps {
  name: string;
  label?: string;
  hint?: ReactNode;
  disabled?: boolean;
}

/**
 * What a text input or a select bound to the field `name` carries: its id and
 * name, the fields' look, the input kept as typed, the blur that checks it,
 * its invalid state and descriptions.
 */
export function controlProps(field: FieldBinding<string>, name: string, hasHint: boolean) {
  return {
    id: field.id,
    name,
    className: 'field__input',
    value: field.input,
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => field.setInput(event.target.value),
    onBlur: field.onBlur,
    'aria-invalid': field.error ? true : undefined,
    'aria-describedby': field.describedBy(hasHint),
  };
}

/** The message under a field, with a hidden "Error:" for screen readers. */
export function FieldError({ id, message }: { id: string; message: string | null }) {
  const t = useT();
  if (!message) return null;
  return (
    <p id={id} className="field__error">
      <span className="visually-hidden">{t('form.errorPrefix')} </span>
      {message}
    </p>
  );
}

export interface FieldFrameProps {
  binding: Pick<FieldBinding<FieldInput>, 'id' | 'hintId' | 'errorId' | 'error'>;
  label: string;
  hint?: ReactNode;
  children: ReactNode;
}

/** Label above, hint, control, message: one field's layout. */
export function FieldFrame({ binding, label, hint, children }: FieldFrameProps) {
  return (
    <div className={binding.error ? 'field field--invalid' : 'field'}>
      <label className="field__label" htmlFor={binding.id}>
        {label}
      </label>
      {hint ? (
        <p id={binding.hintId} className="field__hint">
          {hint}
        </p>
      ) : null}
      {children}
      <FieldError id={binding.errorId} message={binding.error} />
    </div>
  );
}

export interface InputFieldProps extends InputHTMLAttributes<HTMLInputElement> {
  binding: FieldBinding<string>;
  name: string;
  label: string;
  hint?: ReactNode;
}

/** A labelled input bound to its form field (FieldFrame, controlProps); the other props are the input's, set after the binding's. */
export function InputField({ binding, name, label, hint, ...input }: InputFieldProps) {
  return (
    <FieldFrame binding={binding} label={label} hint={hint}>
      <input {...controlProps(binding, name, Boolean(hint))} {...input} />
    </FieldFrame>
  );
}
