import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi, type FakeRoutes } from '@/lib/flow/testing';
import { ssoFields } from '@/lib/flow/sso-form';
import { PASSWORD_SIGN_IN } from '@/lib/webauthn/webauthn';
import { renderApp } from '@/test/render';
import { submittedForms } from '@/test/flow-hooks';
import { postedEntries } from '@/test/sso-post';
import { belair, siteConfig } from '@/test/site-fixture';

const EMAIL = 'demo@belair.example';
const submitted = submittedForms();

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

/** A browser with WebAuthn whose navigator.credentials.get answers with a made-up assertion (the server checks it). */
function stubWebAuthn({ conditional }: { conditional: boolean }) {
  class AuthenticatorAssertionResponse {
    clientDataJSON = new Uint8Array([1]).buffer;
    authenticatorData = new Uint8Array([2]).buffer;
    signature = new Uint8Array([3]).buffer;
    userHandle = new Uint8Array([4]).buffer;
  }
  class AuthenticatorAttestationResponse {}
  class PublicKeyCredential {
    static isUserVerifyingPlatformAuthenticatorAvailable = async () => true;
    static isConditionalMediationAvailable = async () => conditional;
    id = 'cred-1';
    rawId = new Uint8Array([9]).buffer;
    type = 'public-key';
    authenticatorAttachment = 'platform';
    response = new AuthenticatorAssertionResponse();
    getClientExtensionResults = () => ({});
  }
  const get = vi.fn(async (options: { mediation?: string }) => (void options, new PublicKeyCredential()));
  vi.stubGlobal('PublicKeyCredential', PublicKeyCredential);
  vi.stubGlobal('AuthenticatorAttestationResponse', AuthenticatorAttestationResponse);
  vi.stubGlobal('navigator', Object.assign(Object.create(navigator), { credentials: { create: vi.fn(), get } }));
  return get;
}

const ceremony = { status: 200, body: { challengeId: 'CCCCCCCCCCCCCCCCCCCCCC', options: { publicKey: { challenge: 'AQID', rpId: 'belair.localhost' } } } };

async function openLogin(routes: FakeRoutes) {
  const calls = fakeApi(routes);
  await renderApp(siteConfig({ brand: belair }), '/');
  await screen.findByRole('heading', { level: 1, name: 'Sign in to your account' });
  return calls;
}

describe('login: passkeys', () => {
  it('the email field offers passkeys in its autofill', async () => {
    stubWebAuthn({ conditional: false });
    await openLogin({});
    expect(screen.getByLabelText('Email address').getAttribute('autocomplete')).toBe('username webauthn');
  });

  it('signs in with the button: the assertion to the server, its ticket and email to the SSO form post', async () => {
    const get = stubWebAuthn({ conditional: false });
    sessionStorage.setItem(PASSWORD_SIGN_IN, '1');
    const calls = await openLogin({
      'POST /api/v1/passkeys/login': ceremony,
      'POST /api/v1/passkeys/login/finish': { status: 200, body: { loginTicket: 'ticket-9', email: EMAIL } },
    });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Sign in with a passkey' })));
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(postedEntries(submitted[0] as HTMLFormElement)).toEqual(ssoFields({ username: EMAIL, password: '', ticket: 'ticket-9' }));
    expect(get).toHaveBeenCalledOnce();
    const finish = calls.find((c) => c.path === '/api/v1/passkeys/login/finish');
    expect(finish?.body).toMatchObject({ challengeId: 'CCCCCCCCCCCCCCCCCCCCCC', credential: { id: 'cred-1', response: { userHandle: 'BA' } } });
    // Not a password sign-in: My account makes no passkey offer.
    expect(sessionStorage.getItem(PASSWORD_SIGN_IN)).toBeNull();
  });

  it('a refused passkey says so on the form; the page stays', async () => {
    stubWebAuthn({ conditional: false });
    await openLogin({
      'POST /api/v1/passkeys/login': ceremony,
      'POST /api/v1/passkeys/login/finish': { status: 400, body: { errorCode: '3005', messageKey: 'login.passkeyError' } },
    });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Sign in with a passkey' })));
    const alert = await screen.findByRole('alert');
    await waitFor(() => expect(alert.textContent).toBe('This passkey could not sign you in. Sign in with your password.'));
    expect(submitted).toHaveLength(0);
  });

  it('asks for the autofill (conditional mediation) as the page opens', async () => {
    const get = stubWebAuthn({ conditional: true });
    await openLogin({
      'POST /api/v1/passkeys/login': ceremony,
      'POST /api/v1/passkeys/login/finish': { status: 200, body: { loginTicket: 'ticket-9', email: EMAIL } },
    });
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(get.mock.calls.some(([options]) => options.mediation === 'conditional')).toBe(true);
  });
});
