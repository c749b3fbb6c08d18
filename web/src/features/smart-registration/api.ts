import type { ApiResponse } from '@/lib/api/client';
import type { ApiClients } from '@/lib/api/use-api';
import type { SmartOption } from '@/lib/flow/state';
import { SESSION_HEADER } from './session';

// The smart registration calls of spec §7 on the main client (api/v2), as
// api/openapi.yaml documents them. Every request but the first sends the
// session token; every answer carries the next one (`token`). Error bodies
// ({error, message}, spec §8.1) are given an errorCode as well, so spec §8's
// catalogue (lib/flow/error-catalogue) reads them as it reads the others.

export type AccountType = 'policyHolder' | 'insuredDriver';

export interface SmartAnswer<T> {
  status: number;
  /** The body, with errorCode set from error on a refusal ("invalid-token" reads INVALID_TOKEN). */
  data: unknown;
  headers: Headers;
  /** The session token the answer carries, or null. */
  token: string | null;
  /** The success body when it has the expected shape. */
  value: T | undefined;
}

/** A field of the identification step (GET /api/v2/registration/fields). */
export interface StepField {
  name: string;
  type: string;
  required: boolean;
  labelKey: string;
  mask: string;
  rules: { minLength?: number; maxLength?: number; pattern?: string };
  options?: { value: string; labelKey: string }[];
}

const isObject = (d: unknown): d is Record<string, unknown> => typeof d === 'object' && d !== null && !Array.isArray(d);
const text = (d: unknown): string => (typeof d === 'string' ? d : '');

/** The code of a refusal (SmartError's error, which errorCode repeats), "invalid-token" read as spec §8.2's INVALID_TOKEN. */
export function smartErrorCode(data: unknown): string | null {
  if (!isObject(data)) return null;
  const code = typeof data.error === 'string' && data.error !== '' ? data.error : data.errorCode;
  if (typeof code !== 'string' || code === '') return null;
  return code === 'invalid-token' ? 'INVALID_TOKEN' : code;
}

function readField(d: unknown): StepField | null {
  if (!isObject(d) || typeof d.name !== 'string' || d.name === '') return null;
  const rules = isObject(d.rules) ? d.rules : {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const field: StepField = {
    name: d.name,
    type: text(d.type),
    required: d.required !== false,
    labelKey: text(d.labelKey),
    mask: text(d.mask),
    rules: { minLength: num(rules.minLength), maxLength: num(rules.maxLength), pattern: typeof rules.pattern === 'string' ? rules.pattern : undefined },
  };
  if (Array.isArray(d.options)) {
    field.options = d.options.filter(isObject).map((o) => ({ value: text(o.value), labelKey: text(o.labelKey) }));
  }
  return field;
}

const readFields = (d: unknown): StepField[] | undefined => {
  if (!isObject(d) || !Array.isArray(d.fields)) return undefined;
  const fields = d.fields.map(readField);
  return fields.every((f) => f !== null) ? (fields as StepField[]) : undefined;
};

const OPTION_NAMES: readonly string[] = ['EMAIL', 'SMS', 'PIN'] satisfies SmartOption['optionName'][];

export const isOptionName = (name: unknown): name is SmartOption['optionName'] => typeof name === 'string' && OPTION_NAMES.includes(name);

/** The options, those of a kind this app does not know left out (none left: the unavailable-option roadblock). */
const readOptions = (d: unknown): SmartOption[] | undefined => {
  if (!isObject(d) || !Array.isArray(d.options)) return undefined;
  return d.options.filter(isObject).flatMap((o) => (typeof o.id === 'string' && o.id !== '' && isOptionName(o.optionName) ? [{ id: o.id, optionName: o.optionName, data: text(o.data) }] : []));
};

/** A step's data (SmartStepData): the fields this app reads, those of another type left out. */
export interface StepData {
  /** CONFIRM_USERNAME: the email on file; VERIFY after choose-username or verify/email: where the code went. */
  email?: string;
  /** VERIFY on the code page: the chosen option and where its code went. */
  optionName?: string;
  maskedValue?: string;
  /** REDIRECT after identify: for the legacy identification form. */
  policyNumber?: string;
  postalCode?: string;
  /** DONE (account-info). */
  username?: string;
}

const DATA_KEYS = ['email', 'optionName', 'maskedValue', 'policyNumber', 'postalCode', 'username'] as const;

const readData = (d: unknown): StepData => {
  if (!isObject(d) || !isObject(d.data)) return {};
  const data = d.data;
  return Object.fromEntries(DATA_KEYS.flatMap((k) => (typeof data[k] === 'string' ? [[k, data[k]]] : []))) as StepData;
};

/** VALIDATION's (and PASSWORD_POLICY_VIOLATION's) fields: field name to rule key. */
export function invalidFields(data: unknown): Record<string, string> {
  if (!isObject(data) || !isObject(data.fields)) return {};
  return Object.fromEntries(Object.entries(data.fields).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** The tries a wrong code leaves (INVALID_ACTIVATION_CODE {triesLeft}), or null. */
export function triesLeft(data: unknown): number | null {
  return isObject(data) && typeof data.triesLeft === 'number' ? data.triesLeft : null;
}

function answer<T>(response: ApiResponse<unknown>, read: (d: unknown) => T | undefined): SmartAnswer<T> {
  const ok = response.status >= 200 && response.status < 300;
  const code = ok ? null : smartErrorCode(response.data);
  const data = !ok && code !== null && isObject(response.data) ? { ...response.data, errorCode: code } : response.data;
  return {
    status: response.status,
    data,
    headers: response.headers,
    token: response.headers.get(SESSION_HEADER),
    value: ok ? read(response.data) : undefined,
  };
}


export interface SmartApi {
  /** GET registration: a new session for the account type. */
  start(accountType: AccountType): Promise<SmartAnswer<StepData>>;
  /** GET registration/fields: the identification step's fields. */
  fields(): Promise<SmartAnswer<StepField[]>>;
  /** POST registration/identify with the fields' values. */
  identify(values: Record<string, string>): Promise<SmartAnswer<StepData>>;
  /** GET verify/options. */
  options(): Promise<SmartAnswer<SmartOption[]>>;
  /** POST verify/send: a code to the option (EMAIL, SMS), or the PIN chosen. */
  send(optionId: string): Promise<SmartAnswer<StepData>>;
  /** GET verify/resend: a new code. */
  resend(): Promise<SmartAnswer<StepData>>;
  /** POST registration/verify with a code or PIN. */
  verify(code: string): Promise<SmartAnswer<StepData>>;
  /** POST verify/email: the email on file is the username. */
  confirmEmail(): Promise<SmartAnswer<StepData>>;
  /** POST choose-username with another email. */
  chooseUsername(email: string): Promise<SmartAnswer<StepData>>;
  /** POST create: 201 DONE. */
  create(password: string, passwordConfirmation: string): Promise<SmartAnswer<StepData>>;
  /** GET account-info: the username, in DONE. */
  accountInfo(): Promise<SmartAnswer<StepData>>;
  /** GET back: the previous step. */
  back(): Promise<SmartAnswer<StepData>>;
}

/** The calls, each sending the session token given (none for start). */
export function smartApi(clients: ApiClients, token: string | null): SmartApi {
  const v2 = clients.main;
  const headers: Record<string, string> = token ? { [SESSION_HEADER]: token } : {};
  const get = async <T,>(path: '/registration' | '/registration/fields' | '/verify/options' | '/verify/resend' | '/account-info' | '/back', read: (d: unknown) => T | undefined, query?: Record<string, string>) =>
    answer(await v2.request('get', path, { headers, ...(query ? { query } : {}) }), read);
  const post = async <T,>(
    path: '/registration/identify' | '/verify/send' | '/registration/verify' | '/verify/email' | '/choose-username' | '/create',
    body: object,
    read: (d: unknown) => T | undefined,
  ) => answer(await v2.request('post', path, { headers, body }), read);
  return {
    start: (accountType) => get('/registration', readData, { accountType }),
    fields: () => get('/registration/fields', readFields),
    identify: (values) => post('/registration/identify', values, readData),
    options: () => get('/verify/options', readOptions),
    send: (optionId) => post('/verify/send', { optionId }, readData),
    resend: () => get('/verify/resend', readData),
    verify: (code) => post('/registration/verify', { code }, readData),
    confirmEmail: () => post('/verify/email', {}, readData),
    chooseUsername: (email) => post('/choose-username', { email }, readData),
    create: (password, passwordConfirmation) => post('/create', { password, passwordConfirmation, termsAccepted: true }, readData),
    accountInfo: () => get('/account-info', readData),
    back: () => get('/back', readData),
  };
}
