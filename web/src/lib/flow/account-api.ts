import type { ApiResponse, HttpMethod, RequestOptions } from '@/lib/api/client';
import type { ApiClients } from '@/lib/api/use-api';

// The sign-in calls of spec §7 on the second client (api/v1), as
// internal/account/handler.go and internal/sso/handler.go answer them.
// api/openapi.yaml does not list these paths yet, so the typed client cannot
// name them: this module is the one place that calls them by their path, with
// the answer shapes written out below.

/** POST accounts/find (login variant): status "A" signs in with the password, "T" holds a temporary password. */
export interface FoundAccount {
  id: string;
  status: string;
  email: string;
}

/** POST accounts/{id}/authentication: the ticket the SSO form post presents. */
export interface Authenticated {
  loginTicket: string;
}

export interface MePolicy {
  number: string;
  kind: string;
  province: string;
  role: string;
}

/** GET api/v1/me: the signed-in policyholder. */
export interface Me {
  firstName: string;
  lastName: string;
  email: string;
  brand: string;
  language: string;
  ubiDriver: boolean;
  policies: MePolicy[];
}

export type NotificationType = 'LOCKED_ACCOUNT' | 'RESET_PSW';

interface PathRequester {
  request(method: HttpMethod, path: string, options?: RequestOptions): Promise<ApiResponse<unknown>>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** The answer, with the success body typed in `value` when it has the expected shape. */
function typed<T>(answer: ApiResponse<unknown>, guard: (data: unknown) => data is T): AccountAnswer<T> {
  const ok = answer.status >= 200 && answer.status < 300;
  return { ...answer, value: ok && guard(answer.data) ? answer.data : undefined };
}

/** An answer whose success body is not read (notification, logout). */
function untyped(answer: ApiResponse<unknown>): AccountAnswer<never> {
  return { ...answer, value: undefined };
}

const isFound = (d: unknown): d is FoundAccount => isObject(d) && typeof d.id === 'string' && typeof d.status === 'string';
const isAuthenticated = (d: unknown): d is Authenticated => isObject(d) && typeof d.loginTicket === 'string';
const isMe = (d: unknown): d is Me => isObject(d) && typeof d.email === 'string' && Array.isArray(d.policies);

/**
 * An answer: `data` is the body as it came (an error's errorCode for spec
 * §8), `value` the success body when it has the expected shape.
 */
export interface AccountAnswer<T> extends ApiResponse<unknown> {
  value: T | undefined;
}

export interface AccountApi {
  find(email: string): Promise<AccountAnswer<FoundAccount>>;
  temporary(id: string, tempPassword: string): Promise<AccountAnswer<never>>;
  authenticate(id: string, password: string): Promise<AccountAnswer<Authenticated>>;
  notify(id: string, notificationType: NotificationType): Promise<AccountAnswer<never>>;
  me(): Promise<AccountAnswer<Me>>;
  logout(): Promise<AccountAnswer<never>>;
}

export function accountApi(clients: ApiClients): AccountApi {
  const v1 = clients.second as unknown as PathRequester;
  const post = (path: string, params: Record<string, string>, body?: unknown) => v1.request('post', path, { params, body });
  return {
    find: async (email) => typed(await post('/accounts/find', {}, { email }), isFound),
    temporary: async (id, tempPassword) => untyped(await post('/accounts/{id}/temporary', { id }, { tempPassword })),
    authenticate: async (id, password) =>
      typed(await post('/accounts/{id}/authentication', { id }, { password }), isAuthenticated),
    notify: async (id, notificationType) =>
      untyped(await post('/accounts/{id}/notification', { id }, { mediumType: 'EMAIL', notificationType })),
    me: async () => typed(await v1.request('get', '/me'), isMe),
    logout: async () => untyped(await post('/logout', {})),
  };
}
