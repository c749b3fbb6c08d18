import type { ApiResponse } from '@/lib/api/client';
import type { components } from '@/lib/api/schema';
import type { ApiClients } from '@/lib/api/use-api';

// The sign-in calls of spec §7 on the second client (api/v1), typed by
// api/openapi.yaml; this module is the one place that calls them.

type Schemas = components['schemas'];

/** POST accounts/find (login variant): status "A" signs in with the password, "T" holds a temporary password. */
export type FoundAccount = Schemas['FindResponse'];

/** POST accounts/{id}/authentication: the ticket the SSO form post presents. */
export type Authenticated = Schemas['AuthenticationResponse'];

export type MePolicy = Schemas['Policy'];

/** GET api/v1/me: the signed-in policyholder. */
export type Me = Schemas['Me'];

export type NotificationType = Schemas['NotificationRequest']['notificationType'];

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

const isFound = (d: unknown): d is FoundAccount =>
  isObject(d) && typeof d.id === 'string' && (d.status === 'A' || d.status === 'T') && typeof d.email === 'string';
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
  const v1 = clients.second;
  return {
    find: async (email) => typed(await v1.request('post', '/accounts/find', { body: { email } }), isFound),
    temporary: async (id, tempPassword) =>
      untyped(await v1.request('post', '/accounts/{id}/temporary', { params: { id }, body: { tempPassword } })),
    authenticate: async (id, password) =>
      typed(await v1.request('post', '/accounts/{id}/authentication', { params: { id }, body: { password } }), isAuthenticated),
    notify: async (id, notificationType) =>
      untyped(
        await v1.request('post', '/accounts/{id}/notification', { params: { id }, body: { mediumType: 'EMAIL', notificationType } }),
      ),
    me: async () => typed(await v1.request('get', '/me'), isMe),
    logout: async () => untyped(await v1.request('post', '/logout')),
  };
}
