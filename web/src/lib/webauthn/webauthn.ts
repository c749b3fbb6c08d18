// The browser's side of a passkey ceremony (issue 31): the server's options
// ({publicKey: ...} as go-webauthn writes them, base64url for bytes) to
// navigator.credentials, and the PublicKeyCredential back as JSON. The
// checks are the server's (go-webauthn); nothing here is cryptography.

type Json = Record<string, unknown>;

/**
 * The sessionStorage key set before the SSO form post of a password
 * sign-in: My account then may offer, once, to add a passkey.
 */
export const PASSWORD_SIGN_IN = 'guichet.passwordSignIn';

const fromB64url = (s: string): ArrayBuffer => {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
};

const toB64url = (b: ArrayBuffer): string => {
  let bin = '';
  for (const byte of new Uint8Array(b)) bin += String.fromCharCode(byte);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};

const publicKeyOf = (options: unknown): Json =>
  typeof options === 'object' && options !== null && typeof (options as Json).publicKey === 'object'
    ? ((options as Json).publicKey as Json)
    : {};

const descriptors = (list: unknown) =>
  Array.isArray(list) ? list.map((d: Json) => ({ ...d, id: fromB64url(String(d.id)) })) : undefined;

/** Whether this browser has WebAuthn at all. */
export const passkeysSupported = () =>
  typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function' && !!navigator.credentials;

/** Whether the browser can offer passkeys in the email field's autofill. */
export async function conditionalSupported(): Promise<boolean> {
  if (!passkeysSupported()) return false;
  const pkc = window.PublicKeyCredential as unknown as { isConditionalMediationAvailable?: () => Promise<boolean> };
  return (await pkc.isConditionalMediationAvailable?.().catch(() => false)) === true;
}

/** Whether this device has a platform authenticator that verifies its user (a phone, Touch ID, Windows Hello). */
export async function platformAuthenticator(): Promise<boolean> {
  if (!passkeysSupported()) return false;
  return PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable().catch(() => false);
}

function credentialJSON(c: PublicKeyCredential): Json {
  const r = c.response as AuthenticatorResponse & Record<string, unknown>;
  const response: Json = { clientDataJSON: toB64url(r.clientDataJSON) };
  if (r instanceof AuthenticatorAttestationResponse) {
    response.attestationObject = toB64url(r.attestationObject);
    response.transports = r.getTransports?.() ?? [];
  } else {
    const a = r as unknown as AuthenticatorAssertionResponse;
    response.authenticatorData = toB64url(a.authenticatorData);
    response.signature = toB64url(a.signature);
    if (a.userHandle) response.userHandle = toB64url(a.userHandle);
  }
  return {
    id: c.id,
    rawId: toB64url(c.rawId),
    type: c.type,
    authenticatorAttachment: c.authenticatorAttachment ?? undefined,
    clientExtensionResults: c.getClientExtensionResults(),
    response,
  };
}

/** navigator.credentials.create with the server's options; the credential as JSON. */
export async function createPasskey(options: unknown): Promise<Json> {
  const pk = publicKeyOf(options);
  const user = pk.user as Json;
  const publicKey = {
    ...pk,
    challenge: fromB64url(String(pk.challenge)),
    user: { ...user, id: fromB64url(String(user.id)) },
    excludeCredentials: descriptors(pk.excludeCredentials),
  } as unknown as PublicKeyCredentialCreationOptions;
  const c = await navigator.credentials.create({ publicKey });
  if (!(c instanceof PublicKeyCredential)) throw new Error('no credential');
  return credentialJSON(c);
}

/** navigator.credentials.get with the server's options (conditional: the autofill's); the assertion as JSON. */
export async function getPasskey(options: unknown, mediation?: 'conditional', signal?: AbortSignal): Promise<Json> {
  const pk = publicKeyOf(options);
  const publicKey = {
    ...pk,
    challenge: fromB64url(String(pk.challenge)),
    allowCredentials: descriptors(pk.allowCredentials),
  } as unknown as PublicKeyCredentialRequestOptions;
  const c = await navigator.credentials.get({ publicKey, mediation, signal } as CredentialRequestOptions);
  if (!(c instanceof PublicKeyCredential)) throw new Error('no credential');
  return credentialJSON(c);
}
