import type { components } from '@/lib/api/schema';
import type { ApiClients } from '@/lib/api/use-api';

// The OpenID provider's calls for the consent page and My account's
// connected applications (api/openapi.yaml, tag oidc); the server's form
// post (/oidc/consent) takes the answer.

export type ConsentInfo = components['schemas']['ConsentInfo'];
export type Application = components['schemas']['Applications']['applications'][number];

/** An answer: the success body, or the status that refused it. */
export type Answer<T> = { ok: true; value: T } | { ok: false; status: number };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

export const isConsentInfo = (d: unknown): d is ConsentInfo =>
  isObject(d) && typeof d.client === 'string' && isStrings(d.scopes) && typeof d.account === 'string';
const isApplication = (d: unknown): d is Application =>
  isObject(d) && typeof d.clientId === 'string' && typeof d.name === 'string' && isStrings(d.scopes) && typeof d.grantedAt === 'string';
export const isApplications = (d: unknown): d is { applications: Application[] } =>
  isObject(d) && Array.isArray(d.applications) && d.applications.every(isApplication);

function answer<T>(status: number, data: unknown, guard: (d: unknown) => d is T): Answer<T> {
  return status === 200 && guard(data) ? { ok: true, value: data } : { ok: false, status };
}

export function oidcApi(clients: ApiClients) {
  const v1 = clients.second;
  return {
    consentInfo: async (id: string) => {
      const r = await v1.request('get', '/oidc/requests/{id}/consent', { params: { id } });
      return answer(r.status, r.data, isConsentInfo);
    },
    applications: async () => {
      const r = await v1.request('get', '/me/applications');
      return answer(r.status, r.data, isApplications);
    },
    withdraw: async (clientId: string) => (await v1.request('delete', '/me/applications/{clientId}', { params: { clientId } })).status,
  };
}

/** The scopes the consent page explains, in the order it lists them. */
export const SCOPE_KEYS = {
  openid: 'oidc.consent.scope.openid',
  profile: 'oidc.consent.scope.profile',
  email: 'oidc.consent.scope.email',
  policies: 'oidc.consent.scope.policies',
  offline_access: 'oidc.consent.scope.offline_access',
} as const;

/** The message keys of the scopes a client asks, known ones only, in SCOPE_KEYS' order. */
export function scopeKeys(scopes: readonly string[]) {
  return Object.entries(SCOPE_KEYS)
    .filter(([scope]) => scopes.includes(scope))
    .map(([, key]) => key);
}
