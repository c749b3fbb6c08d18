import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadSection } from '@/i18n/section';
import { fakeApi } from '@/lib/flow/testing';
import { PASSWORD_SIGN_IN } from '@/lib/webauthn/webauthn';
import { renderApp } from '@/test/render';
import { siteConfig } from '@/test/site-fixture';

beforeAll(() => Promise.all([loadSection('security', 'en'), loadSection('oidc', 'en')]));

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

const me = { firstName: 'Alex', lastName: 'Martin', email: 'demo@belair.example', brand: 'belair', language: 'en', ubiDriver: false, policies: [] };
const phone = { id: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'My phone', createdAt: '2026-11-01T10:00:00Z', lastUsedAt: null };

/** A browser with WebAuthn: navigator.credentials.create answers with a made-up attestation (the server checks it). */
function stubWebAuthn(platform = true) {
  class AuthenticatorAttestationResponse {
    clientDataJSON = new Uint8Array([1, 2]).buffer;
    attestationObject = new Uint8Array([3, 4]).buffer;
    getTransports = () => ['internal'];
  }
  class PublicKeyCredential {
    static isUserVerifyingPlatformAuthenticatorAvailable = async () => platform;
    static isConditionalMediationAvailable = async () => true;
    id = 'cred-1';
    rawId = new Uint8Array([9, 9]).buffer;
    type = 'public-key';
    authenticatorAttachment = 'platform';
    response = new AuthenticatorAttestationResponse();
    getClientExtensionResults = () => ({});
  }
  const create = vi.fn(async () => new PublicKeyCredential());
  vi.stubGlobal('PublicKeyCredential', PublicKeyCredential);
  vi.stubGlobal('AuthenticatorAttestationResponse', AuthenticatorAttestationResponse);
  vi.stubGlobal('navigator', Object.assign(Object.create(navigator), { credentials: { create, get: vi.fn() } }));
  return create;
}

const routes = (list: unknown[], offer = false) => ({
  'GET /api/v1/me': { status: 200, body: me },
  'GET /api/v1/me/applications': { status: 200, body: { applications: [] } },
  'GET /api/v1/me/passkeys': { status: 200, body: { passkeys: list, offer } },
});

describe('My account: passkeys', () => {
  it('lists the passkeys and removes one', async () => {
    stubWebAuthn();
    const calls = fakeApi({ ...routes([phone]), [`DELETE /api/v1/me/passkeys/${phone.id}`]: { status: 204 } });
    await renderApp(siteConfig(), '/my-account');
    const section = within(await screen.findByRole('region', { name: 'Passkeys' }));
    expect(await section.findByText('My phone')).toBeTruthy();
    expect(section.getByText('Not used yet')).toBeTruthy();
    fireEvent.click(section.getByRole('button', { name: 'Remove My phone' }));
    expect(await section.findByText(/Your passkey “My phone” was removed/)).toBeTruthy();
    expect(calls.some((c) => c.method === 'DELETE' && c.path === `/api/v1/me/passkeys/${phone.id}`)).toBe(true);
    expect(section.queryByText('My phone')).toBeNull();
  });

  it('adds a named passkey: the options to the browser, its answer and the name to the server', async () => {
    const create = stubWebAuthn();
    const options = { publicKey: { challenge: 'AQID', rp: { id: 'belair.localhost', name: 'belairdirect' }, user: { id: 'BAUG', name: 'x', displayName: 'x' } } };
    const calls = fakeApi({
      ...routes([]),
      'POST /api/v1/me/passkeys/registration': { status: 200, body: { challengeId: 'BBBBBBBBBBBBBBBBBBBBBB', options } },
      'POST /api/v1/me/passkeys': { status: 201, body: { ...phone, name: 'Laptop' } },
    });
    await renderApp(siteConfig(), '/my-account');
    const section = within(await screen.findByRole('region', { name: 'Passkeys' }));
    expect(await section.findByText('You have no passkey yet.')).toBeTruthy();
    fireEvent.change(section.getByLabelText('Name of the passkey'), { target: { value: 'Laptop' } });
    fireEvent.click(section.getByRole('button', { name: 'Add a passkey' }));
    expect(await section.findByText(/Your passkey “Laptop” was added/)).toBeTruthy();
    expect(create).toHaveBeenCalledOnce();
    const finish = calls.find((c) => c.method === 'POST' && c.path === '/api/v1/me/passkeys');
    expect(finish?.body).toMatchObject({
      challengeId: 'BBBBBBBBBBBBBBBBBBBBBB',
      name: 'Laptop',
      credential: { id: 'cred-1', rawId: 'CQk', type: 'public-key', response: { clientDataJSON: 'AQI', attestationObject: 'AwQ' } },
    });
  });

  it('after a password sign-in on a device that can, offers once to add one; Not now dismisses it', async () => {
    stubWebAuthn(true);
    sessionStorage.setItem(PASSWORD_SIGN_IN, '1');
    const calls = fakeApi({ ...routes([], true), 'POST /api/v1/me/passkeys/offer': { status: 204 } });
    await renderApp(siteConfig(), '/my-account');
    const offer = within(await screen.findByRole('region', { name: 'Sign in faster next time' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path === '/api/v1/me/passkeys/offer')).toBe(true));
    expect(sessionStorage.getItem(PASSWORD_SIGN_IN)).toBeNull();
    fireEvent.click(offer.getByRole('button', { name: 'Not now' }));
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Sign in faster next time' })).toBeNull());
  });

  it('makes no offer on a device without a platform authenticator', async () => {
    stubWebAuthn(false);
    sessionStorage.setItem(PASSWORD_SIGN_IN, '1');
    const calls = fakeApi({ ...routes([], true), 'POST /api/v1/me/passkeys/offer': { status: 204 } });
    await renderApp(siteConfig(), '/my-account');
    await screen.findByRole('region', { name: 'Passkeys' });
    await waitFor(() => expect(sessionStorage.getItem(PASSWORD_SIGN_IN)).toBeNull());
    expect(screen.queryByRole('region', { name: 'Sign in faster next time' })).toBeNull();
    expect(calls.some((c) => c.path === '/api/v1/me/passkeys/offer')).toBe(false);
  });
});
