// The staff console's calls to /api/console/v1 (api/openapi.yaml, tag console):
// same-origin JSON with the staff session cookie; an error answers
// {errorCode, messageKey}. No retries: every call is a person's click.

import { fillPath, type HttpMethod, type MethodOf, type Operation, type PathUnder, type SuccessBody } from '@/lib/api/client';
import type { components } from '@/lib/api/schema';

export type Role = components['schemas']['StaffMe']['role'];

export interface Me {
  id: string;
  email: string;
  name: string;
  role: Role;
  /** The brands served; empty: all of them. */
  brands: string[];
  factorAt?: string;
}


export interface Answer<T> {
  status: number;
  data: T | null;
  /** The error's code when the call failed (errorCode of the body), else ''. */
  errorCode: string;
  /** A 400 VALIDATION's message key per field ({fields: {password: key}}), else {}. */
  fields: Record<string, string>;
  /** The server's clock when it answered (its Date header, ms since the epoch), if it sent one. */
  serverDate?: number;
  /** A refusal's Retry-After, in seconds, if it sent one. */
  retryAfter?: number;
}

export const API = '/api/console/v1';

type Console = typeof API;
/** A path of the console's API, relative to /api/console/v1, as api/openapi.yaml writes it ("/customers/{id}"). */
export type ConsolePath = PathUnder<Console>;
export type ConsoleMethod<P extends ConsolePath> = MethodOf<Console, P>;
type Op<P extends ConsolePath, M extends HttpMethod> = Operation<Console, P, M>;

/** A body sent as is (a CSV file), not as JSON. */
export interface RawBody {
  type: string;
  text: string;
}

type JsonBody<O> = O extends { requestBody: { content: { 'application/json': infer Body } } }
  ? { body: Body }
  : O extends { requestBody?: { content: { 'application/json': infer Body } } }
    ? [Body] extends [never]
      ? { body?: never }
      : { body?: Body }
    : { body?: never };
type Raw<O> = O extends { requestBody: { content: { 'text/csv': string } } } ? { raw: RawBody } : { raw?: never };
type Params<O> = O extends { parameters: { path: infer P extends object } } ? { params: { [K in keyof P]: string } } : { params?: never };
type Query<O> = O extends { parameters: { query?: infer Q } }
  ? [NonNullable<Q>] extends [never]
    ? { query?: never }
    : { query?: { [K in keyof NonNullable<Q>]?: string } }
  : { query?: never };

/** What a call sends besides its path, as the contract declares the operation: path parameters, query, JSON or raw body. */
export type CallOptions<O> = Params<O> & Query<O> & JsonBody<O> & Raw<O>;

/**
 * A call to the console's API, checked against api/openapi.yaml: the path,
 * the method, the parameters and the body must be the contract's, and the
 * answer's data is the operation's success body.
 */
export function call<P extends ConsolePath, M extends ConsoleMethod<P>>(
  method: M,
  path: P,
  ...[options]: Record<never, never> extends CallOptions<Op<P, M>> ? [CallOptions<Op<P, M>>?] : [CallOptions<Op<P, M>>]
): Promise<Answer<SuccessBody<Op<P, M>>>> {
  return send(method, path, (options as unknown as SendOptions | undefined) ?? {}) as never;
}

/** Paths the contract lets a browser GET: a link's or a socket's address. */
type GetPath = { [P in ConsolePath]: 'get' extends ConsoleMethod<P> ? P : never }[ConsolePath];
type AddressOptions<O> = Params<O> & Query<O>;

/**
 * The address of a GET of the console's API (a download link, a socket),
 * checked against api/openapi.yaml as `call` is.
 */
export function consoleUrl<P extends GetPath>(
  path: P,
  ...[options]: Record<never, never> extends AddressOptions<Op<P, 'get'>> ? [AddressOptions<Op<P, 'get'>>?] : [AddressOptions<Op<P, 'get'>>]
): string {
  const { params, query } = (options as unknown as SendOptions | undefined) ?? {};
  return address(path, params, query);
}

/** A socket's ws(s):// address on this host, from its consoleUrl. */
export function socketUrl(consoleAddress: string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${window.location.host}${consoleAddress}`;
}

function address(path: string, params: SendOptions['params'], query: SendOptions['query']): string {
  const search = query ? new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined)).toString() : '';
  return `${API}${fillPath(path, params)}${search ? `?${search}` : ''}`;
}

interface SendOptions {
  params?: Record<string, string>;
  query?: Record<string, string | undefined>;
  body?: unknown;
  raw?: RawBody;
}

async function send(method: HttpMethod, path: string, { params, query, body, raw }: SendOptions): Promise<Answer<unknown>> {
  const init: RequestInit = { method: method.toUpperCase(), credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (raw) {
    init.headers = { ...init.headers, 'Content-Type': raw.type };
    init.body = raw.text;
  } else if (body !== undefined) {
    init.headers = { ...init.headers, 'Content-Type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  const url = address(path, params, query);
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch {
    return { status: 0, data: null, errorCode: 'NETWORK', fields: {} };
  }
  const text = await response.text();
  const dateHeader = response.headers.get('Date');
  const serverDate = dateHeader ? Date.parse(dateHeader) : NaN;
  let data: unknown = null;
  if (text !== '') {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (response.ok)
    return { status: response.status, data, errorCode: '', fields: {}, ...(Number.isNaN(serverDate) ? {} : { serverDate }) };
  // An import's refusal (400 IMPORT_INVALID) answers its report: kept for the page.
  if (data && typeof data === 'object' && 'errors' in data && Array.isArray((data as { errors: unknown }).errors))
    return { status: response.status, data, errorCode: 'IMPORT_INVALID', fields: {} };
  const error = (data && typeof data === 'object' ? data : {}) as { errorCode?: unknown; fields?: unknown };
  const fields: Record<string, string> = {};
  if (error.fields && typeof error.fields === 'object')
    for (const [name, key] of Object.entries(error.fields)) if (typeof key === 'string') fields[name] = key;
  const code = typeof error.errorCode === 'string' || typeof error.errorCode === 'number' ? String(error.errorCode) : '';
  // The session ended (idle 15 minutes, 8 hours, signed out in another tab):
  // the app goes back to /sign-in and says so. GET /session's 401 is how a
  // signed-out visitor is told apart, not an ending.
  if (response.status === 401 && code === 'SIGN_IN_REQUIRED' && !(method === 'get' && path === '/session'))
    window.dispatchEvent(new Event(SESSION_ENDED));
  const retryAfter = Number(response.headers.get('Retry-After') ?? '');
  return {
    status: response.status,
    data: null,
    errorCode: code || `HTTP_${response.status}`,
    fields,
    ...(retryAfter > 0 ? { retryAfter } : {}),
  };
}

/** The window event `call` sends when a call finds the staff session ended. */
export const SESSION_ENDED = 'guichet:console-session-ended';

/** Brands as the server sends them: a list, or a comma list ('' = all). */
export function brandList(brands: unknown): string[] {
  if (Array.isArray(brands)) return brands.map(String).filter((b) => b !== '' && b !== 'all');
  if (typeof brands === 'string') return brands.split(',').map((b) => b.trim()).filter((b) => b !== '' && b !== 'all');
  return [];
}

export function readMe(data: unknown): Me | null {
  if (!data || typeof data !== 'object') return null;
  const m = data as Record<string, unknown>;
  if (typeof m.id !== 'string' && typeof m.id !== 'number') return null;
  return {
    id: String(m.id),
    email: String(m.email ?? ''),
    name: String(m.name ?? ''),
    role: (m.role === 'supervisor' || m.role === 'admin' ? m.role : 'agent') as Role,
    brands: brandList(m.brands),
    factorAt: typeof m.factorAt === 'string' ? m.factorAt : undefined,
  };
}

/** Roles in order of what they may do: a supervisor does what an agent does, and more. */
export function atLeast(me: Me | null, role: Role): boolean {
  const rank: Record<Role, number> = { agent: 0, supervisor: 1, admin: 2 };
  return me !== null && rank[me.role] >= rank[role];
}
