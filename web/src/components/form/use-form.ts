import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import type { Message, MessageKey } from '@/i18n/catalog';
import type { RuleResult } from '@/lib/rules/result';

// One form state for a screen: each field names its rule (lib/rules), and the
// form runs them on submit, and on blur once the visitor has submitted. The
// screen receives the rules' normalized values, never what was typed.
//
// Nothing may move under the pointer between a press and its click (issue 12):
// the mousedown on the submit button blurs the field, and a blur that removed
// messages above the button moved it away before the click, which was lost.
// So a blur only updates the field's own message, never the error summary
// (the next submit rebuilds it), and a blur caused by a press waits until
// that press's click has been dispatched.

export type FieldInput = string | boolean;

/**
 * A field's rule: the typed input, and for rules that compare with another
 * field (retype, password against email, licence against its province) the
 * input of the field named by `with`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a rule's input type is read back by InputOf
export type FieldRule = (input: any, other: string) => RuleResult<unknown>;

export interface FieldSpec {
  /** Omitted: the input is the value, unchecked (a dropdown that only steers another field). */
  rule?: FieldRule;
  /** Name of the field whose input the rule receives as its second argument. */
  with?: string;
  /** The input at start; '' when omitted, so a checkbox (boolean input) must give it. */
  initial?: FieldInput;
}

export type FieldSpecs = Record<string, FieldSpec>;

/** What a field holds while the visitor types. */
export type InputOf<F> = F extends { rule: (input: infer I, ...rest: never[]) => unknown }
  ? I extends FieldInput
    ? I
    : string
  : F extends { initial: infer I extends FieldInput }
    ? I
    : string;

/** What the screen receives for a field: the rule's normalized value. */
export type ValueOf<F> = F extends { rule: (...args: never[]) => infer R }
  ? Extract<R, { ok: true }> extends { value: infer V }
    ? V
    : never
  : InputOf<F>;

export type FormInputs<S> = { [K in keyof S]: InputOf<S[K]> };
export type FormValues<S> = { [K in keyof S]: ValueOf<S[K]> };
export type FormErrors<S> = Partial<Record<keyof S & string, MessageKey>>;

/** Compile-time checks of a declaration: `with` names another field; a boolean field states its initial value. */
type Checked<S> = {
  [K in keyof S]: { with?: Exclude<keyof S, K> & string } & (InputOf<S[K]> extends boolean
    ? { initial: boolean }
    : unknown);
};

export interface FormState<S extends FieldSpecs> {
  /** Prefix of the fields' element ids. */
  id: string;
  specs: S;
  inputs: FormInputs<S>;
  errors: FormErrors<S>;
  /** The messages of the error summary: those of the last submit and of the server since; a blur leaves them. */
  summary: FormErrors<S>;
  /** A message for the whole form (a server answer that is no field's), shown in a role="alert" region. */
  formError: Message | null;
  /** The visitor has submitted once: blur validates from now on. */
  submitted: boolean;
  /** onSubmit is running: the submit button is disabled and aria-busy. */
  submitting: boolean;
  setInput<K extends keyof S & string>(name: K, input: InputOf<S[K]>): void;
  /** Sets or clears a field's message (a server error key, e.g. 'login.error'). */
  setError(name: keyof S & string, key: MessageKey | null): void;
  setFormError(message: Message | null): void;
  /** Runs the rule of one field if the form was submitted once (on blur); after the press under way, if any. */
  blur(name: keyof S & string): void;
  /** Starts over as if never submitted, with these inputs: no messages, and blur checks nothing until the next submit. */
  restart(inputs: Partial<FormInputs<S>>): void;
  /** Runs every rule and shows the messages: the normalized values, or null when a rule fails. */
  validate(): FormValues<S> | null;
  setSubmitting(submitting: boolean): void;
}

/** A mouse button or a tap is down; the blurs it caused wait for its click. */
let pressing = false;
const afterPress = new Set<() => void>();

function released() {
  if (!pressing) return;
  pressing = false;
  // mouseup and click are dispatched in one task: this runs after the click.
  setTimeout(() => {
    const waiting = [...afterPress];
    afterPress.clear();
    for (const run of waiting) run();
  }, 0);
}

let listening = false;

/** Follows presses on the whole document (a tap's mousedown too, which is what blurs the field). */
function followPresses() {
  if (listening || typeof document === 'undefined') return;
  listening = true;
  document.addEventListener(
    'mousedown',
    (event) => {
      // The main button only: a menu opened by another may swallow its mouseup.
      if (event.button === 0) pressing = true;
    },
    true,
  );
  // A key pressed meanwhile ends the wait too, so a lost mouseup cannot hold the checks back.
  for (const type of ['mouseup', 'pointercancel', 'dragend', 'keydown']) document.addEventListener(type, released, true);
}

/** Runs `run` now, or after the click of the press under way. */
function whenReleased(run: () => void) {
  if (pressing) afterPress.add(run);
  else run();
}

/** The id of a field's (first) control: error summary links point at it. */
export function fieldId(formId: string, name: string): string {
  return `${formId}-${name}`;
}

function check(spec: FieldSpec, inputs: Record<string, FieldInput>, name: string): RuleResult<unknown> {
  const input = inputs[name] ?? '';
  if (!spec.rule) return { ok: true, value: input };
  const other = spec.with === undefined ? '' : inputs[spec.with];
  return spec.rule(input, typeof other === 'string' ? other : '');
}

function withError<E extends Partial<Record<string, MessageKey>>>(current: E, name: string, key: MessageKey | null): E {
  const next: Partial<Record<string, MessageKey>> = { ...current };
  if (key === null) delete next[name];
  else next[name] = key;
  return next as E;
}

/**
 * Declares a screen's fields and their rules:
 *
 *     const form = useForm({
 *       email: { rule: checkEmail },
 *       password: { rule: checkLoginPassword },
 *     });
 *     <Form form={form} onSubmit={(values) => signIn(values.email, values.password)}>
 *
 * A retype gets the other field: `{ rule: checkEmailConfirmation, with: 'email' }`.
 */
export function useForm<const S extends FieldSpecs>(specs: S & NoInfer<Checked<S>>): FormState<S> {
  // React's ids hold characters that need escaping in a URL fragment.
  const id = `form-${useId().replace(/[^A-Za-z0-9_-]/g, '')}`;
  const [inputs, setInputs] = useState(
    () => Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, spec.initial ?? ''])) as FormInputs<S>,
  );
  const [errors, setErrors] = useState<FormErrors<S>>({});
  const [summary, setSummary] = useState<FormErrors<S>>({});
  const [formError, setFormError] = useState<Message | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const [submitting, setSubmitting] = useState(false);

  // Rules may be new functions on every render (they close over the brand's
  // format or today's date); the latest ones and inputs are always used.
  const latest = useRef({ specs, inputs, submitted });
  // Counts submits, restarts and server messages: a check put off by a press
  // is dropped when one came first (it has checked or set the field since).
  const round = useRef(0);
  useLayoutEffect(() => {
    latest.current = { specs, inputs, submitted };
  });
  useEffect(followPresses, []);

  const setInput = useCallback((name: string, input: FieldInput) => {
    latest.current.inputs = { ...latest.current.inputs, [name]: input };
    setInputs((current) => ({ ...current, [name]: input }));
  }, []);

  const setFieldError = useCallback((name: string, key: MessageKey | null) => {
    setErrors((current) => withError(current, name, key));
  }, []);

  // A server's message for a field answers a submit: the summary shows it too.
  const setError = useCallback((name: string, key: MessageKey | null) => {
    round.current += 1;
    setErrors((current) => withError(current, name, key));
    setSummary((current) => withError(current, name, key));
  }, []);

  const blur = useCallback(
    (name: string) => {
      if (!latest.current.submitted) return;
      const at = round.current;
      whenReleased(() => {
        const { specs: s, inputs: i, submitted: done } = latest.current;
        const spec = s[name];
        if (round.current !== at || !done || !spec) return;
        const result = check(spec, i, name);
        setFieldError(name, result.ok ? null : result.key);
      });
    },
    [setFieldError],
  );

  const restart = useCallback((next: Partial<Record<string, FieldInput>>) => {
    latest.current.inputs = { ...latest.current.inputs, ...next };
    latest.current.submitted = false;
    round.current += 1;
    setInputs((current) => ({ ...current, ...next }));
    setSubmitted(false);
    setErrors({});
    setSummary({});
  }, []);

  const validate = useCallback((): FormValues<S> | null => {
    const { specs: s, inputs: i } = latest.current;
    const values: Record<string, unknown> = {};
    const found: Record<string, MessageKey> = {};
    for (const [name, spec] of Object.entries(s)) {
      const result = check(spec, i, name);
      if (result.ok) values[name] = result.value;
      else found[name] = result.key;
    }
    latest.current.submitted = true;
    round.current += 1;
    setSubmitted(true);
    setErrors(found as FormErrors<S>);
    setSummary(found as FormErrors<S>);
    return Object.keys(found).length === 0 ? (values as FormValues<S>) : null;
  }, []);

  return {
    id,
    specs,
    inputs,
    errors,
    summary,
    formError,
    submitted,
    submitting,
    setInput: setInput as FormState<S>['setInput'],
    setError,
    setFormError,
    blur,
    restart: restart as FormState<S>['restart'],
    validate,
    setSubmitting,
  };
}
