import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadSection } from '@/i18n/section';
import { rememberedEmail, rememberEmail } from '@/lib/flow/cookies';
import { fakeApi, type FakeCall } from '@/lib/flow/testing';
import { renderApp } from '@/test/render';
import { siteConfig } from '@/test/site-fixture';

beforeAll(() => Promise.all([loadSection('security', 'en'), loadSection('security', 'fr'), loadSection('oidc', 'en')]));

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

const me = { firstName: 'Alex', lastName: 'Martin', email: 'demo@belair.example', brand: 'belair', language: 'en', ubiDriver: false, policies: [] };
const reauthRequired = { status: 403, body: { errorCode: 'REAUTH_REQUIRED' } };

/** An answer that is `first` the first time, then `then`. */
const once = (first: { status: number; body?: unknown }, then: { status: number; body?: unknown }) => {
  let n = 0;
  return () => (n++ === 0 ? first : then);
};

async function openAccount(routes: Record<string, unknown>) {
  const calls = fakeApi({
    'GET /api/v1/me': { status: 200, body: me },
    'GET /api/v1/me/applications': { status: 200, body: { applications: [] } },
    'GET /api/v1/me/sessions': { status: 200, body: { sessions: [] } },
    ...(routes as Parameters<typeof fakeApi>[0]),
  });
  await renderApp(siteConfig(), '/my-account');
  return calls;
}

const posts = (calls: FakeCall[], path: string) => calls.filter((c) => c.method === 'POST' && c.path === path);

describe('My account: change your email address', () => {
  it('asks for the password when the proof is stale, goes on, then confirms the code; the username follows', async () => {
    rememberEmail('demo@belair.example');
    const calls = await openAccount({
      'POST /api/v1/me/email': once(reauthRequired, { status: 204 }),
      'POST /api/v1/me/reauth': { status: 200, body: { freshUntil: '2026-11-29T06:00:00Z' } },
      'POST /api/v1/me/email/confirm': { status: 200, body: { email: 'alex.new@example.com' } },
    });
    const section = within(await screen.findByRole('region', { name: 'Change your email address' }));
    fireEvent.change(section.getByLabelText('New email address'), { target: { value: 'alex.new@example.com' } });
    fireEvent.click(section.getByRole('button', { name: 'Send a code' }));

    const prompt = within(await section.findByRole('region', { name: "Confirm it's you" }));
    await waitFor(() => expect(document.activeElement?.textContent).toBe("Confirm it's you"));
    fireEvent.change(prompt.getByLabelText('Current password'), { target: { value: 'Guichet-Demo-2026!' } });
    fireEvent.click(prompt.getByRole('button', { name: 'Confirm' }));

    expect(await section.findByText(/We sent a 6-digit code to alex.new@example.com/)).toBeTruthy();
    expect(section.queryByRole('region', { name: "Confirm it's you" })).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(section.getByLabelText('Code')));
    expect(posts(calls, '/api/v1/me/email').map((c) => c.body)).toEqual([{ email: 'alex.new@example.com' }, { email: 'alex.new@example.com' }]);
    expect(posts(calls, '/api/v1/me/reauth')[0]?.body).toEqual({ password: 'Guichet-Demo-2026!' });

    fireEvent.change(section.getByLabelText('Code'), { target: { value: '123456' } });
    fireEvent.click(section.getByRole('button', { name: 'Confirm' }));
    expect(await section.findByText('Your email address is now alex.new@example.com. Use it to sign in.')).toBeTruthy();
    expect(posts(calls, '/api/v1/me/email/confirm')[0]?.body).toEqual({ code: '123456' });
    expect(rememberedEmail()).toBe('alex.new@example.com');
    // The details show the new address.
    await waitFor(() => expect(document.querySelector('.my-account__email')?.textContent).toBe('alex.new@example.com'));
  });

  it('a proof by emailed code instead of the password; cancelling leaves the form as it was', async () => {
    const calls = await openAccount({
      'POST /api/v1/me/email': reauthRequired,
      'POST /api/v1/me/reauth/code': { status: 204 },
      'POST /api/v1/me/reauth': { status: 400, body: { errorCode: 'INVALID_ACTIVATION_CODE' } },
    });
    const section = within(await screen.findByRole('region', { name: 'Change your email address' }));
    fireEvent.change(section.getByLabelText('New email address'), { target: { value: 'alex.new@example.com' } });
    fireEvent.click(section.getByRole('button', { name: 'Send a code' }));
    const prompt = within(await section.findByRole('region', { name: "Confirm it's you" }));
    fireEvent.click(prompt.getByRole('button', { name: 'Email me a code instead' }));
    expect(await prompt.findByText('We emailed you a code.')).toBeTruthy();
    fireEvent.change(prompt.getByLabelText('Code'), { target: { value: '654321' } });
    fireEvent.click(prompt.getByRole('button', { name: 'Confirm' }));
    expect(await prompt.findAllByText('This code is not right. Check it and try again.')).not.toHaveLength(0);
    expect(posts(calls, '/api/v1/me/reauth')[0]?.body).toEqual({ code: '654321' });
    fireEvent.click(prompt.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(section.queryByRole('region', { name: "Confirm it's you" })).toBeNull());
    expect((section.getByLabelText('New email address') as HTMLInputElement).value).toBe('alex.new@example.com');
    expect(posts(calls, '/api/v1/me/email')).toHaveLength(1);
  });

  it("another person's remembered email stays; 'Use another address' goes back to the address, focused", async () => {
    rememberEmail('someone.else@example.com');
    await openAccount({
      'POST /api/v1/me/email': { status: 204 },
      'POST /api/v1/me/email/confirm': { status: 200, body: { email: 'alex.new@example.com' } },
    });
    const section = within(await screen.findByRole('region', { name: 'Change your email address' }));
    fireEvent.change(section.getByLabelText('New email address'), { target: { value: 'alex.other@example.com' } });
    fireEvent.click(section.getByRole('button', { name: 'Send a code' }));
    fireEvent.click(await section.findByRole('button', { name: 'Use another address' }));
    await waitFor(() => expect(document.activeElement).toBe(section.getByLabelText('New email address')));
    fireEvent.change(section.getByLabelText('New email address'), { target: { value: 'alex.new@example.com' } });
    fireEvent.click(section.getByRole('button', { name: 'Send a code' }));
    fireEvent.change(await section.findByLabelText('Code'), { target: { value: '123456' } });
    fireEvent.click(section.getByRole('button', { name: 'Confirm' }));
    expect(await section.findByText(/Your email address is now alex.new@example.com/)).toBeTruthy();
    expect(rememberedEmail()).toBe('someone.else@example.com');
  });

  it('one proof answers the prompts of both changes', async () => {
    const calls = await openAccount({
      'POST /api/v1/me/email': once(reauthRequired, { status: 204 }),
      'POST /api/v1/me/phone': once(reauthRequired, { status: 204 }),
      'POST /api/v1/me/reauth': { status: 200, body: { freshUntil: '2026-11-29T06:00:00Z' } },
    });
    const email = within(await screen.findByRole('region', { name: 'Change your email address' }));
    const phone = within(screen.getByRole('region', { name: 'Change your cell phone number' }));
    fireEvent.change(email.getByLabelText('New email address'), { target: { value: 'alex.new@example.com' } });
    fireEvent.click(email.getByRole('button', { name: 'Send a code' }));
    await email.findByRole('region', { name: "Confirm it's you" });
    fireEvent.change(phone.getByLabelText(/New cell phone number/), { target: { value: '4385550199' } });
    fireEvent.click(phone.getByRole('button', { name: 'Text me a code' }));
    await phone.findByRole('region', { name: "Confirm it's you" });
    const prompt = within(email.getByRole('region', { name: "Confirm it's you" }));
    fireEvent.change(prompt.getByLabelText('Current password'), { target: { value: 'Guichet-Demo-2026!' } });
    fireEvent.click(prompt.getByRole('button', { name: 'Confirm' }));
    expect(await phone.findByText(/We texted a 6-digit code to 438-555-0199/)).toBeTruthy();
    expect(await email.findByText(/We sent a 6-digit code/)).toBeTruthy();
    expect(posts(calls, '/api/v1/me/reauth')).toHaveLength(1);
  });

  it("the server's refusals at the field: another account's address, a wrong code", async () => {
    await openAccount({
      'POST /api/v1/me/email': once(
        { status: 409, body: { errorCode: 'EMAIL_ALREADY_EXISTS', fields: { email: 'security.email.taken' } } },
        { status: 204 },
      ),
      'POST /api/v1/me/email/confirm': { status: 400, body: { errorCode: 'INVALID_ACTIVATION_CODE' } },
    });
    const section = within(await screen.findByRole('region', { name: 'Change your email address' }));
    fireEvent.change(section.getByLabelText('New email address'), { target: { value: 'taken@example.com' } });
    fireEvent.click(section.getByRole('button', { name: 'Send a code' }));
    expect(await section.findAllByText('Another account already uses this email address.')).not.toHaveLength(0);
    fireEvent.click(section.getByRole('button', { name: 'Send a code' }));
    fireEvent.change(await section.findByLabelText('Code'), { target: { value: '111111' } });
    fireEvent.click(section.getByRole('button', { name: 'Confirm' }));
    expect(await section.findAllByText('This code is not right. Check it and try again.')).not.toHaveLength(0);
  });
});

describe('My account: change your cell phone number', () => {
  it('texts a code to the new number, then confirms it', async () => {
    const calls = await openAccount({
      'POST /api/v1/me/phone': { status: 204 },
      'POST /api/v1/me/phone/confirm': { status: 200, body: { phone: '4385550199' } },
    });
    const section = within(await screen.findByRole('region', { name: 'Change your cell phone number' }));
    fireEvent.change(section.getByLabelText(/New cell phone number/), { target: { value: '4385550199' } });
    fireEvent.click(section.getByRole('button', { name: 'Text me a code' }));
    fireEvent.change(await section.findByLabelText('Code'), { target: { value: '222222' } });
    fireEvent.click(section.getByRole('button', { name: 'Confirm' }));
    expect(await section.findByText(/Your cell phone number is now/)).toBeTruthy();
    expect(posts(calls, '/api/v1/me/phone')[0]?.body).toEqual({ phone: '4385550199' });
  });
});

describe('/email-undo', () => {
  it('undoes the change on the button only, then offers a new password', async () => {
    const calls = fakeApi({ 'POST /api/v1/email-undo': { status: 204 } });
    await renderApp(siteConfig(), '/email-undo?token=abc');
    const button = await screen.findByRole('button', { name: 'Undo the change' });
    expect(calls.some((c) => c.path === '/api/v1/email-undo')).toBe(false);
    fireEvent.click(button);
    expect(await screen.findByText(/The change was undone/)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Choose a new password' }).getAttribute('href')).toBe('/forgot');
    expect(posts(calls, '/api/v1/email-undo')[0]?.body).toEqual({ token: 'abc' });
  });

  it('a used or old link says so, in French', async () => {
    fakeApi({ 'POST /api/v1/email-undo': { status: 403, body: { errorCode: 'UNDO_INVALID' } } });
    await renderApp(siteConfig({ language: 'fr' }), '/email-undo?token=abc');
    fireEvent.click(await screen.findByRole('button', { name: 'Annuler la modification' }));
    expect(await screen.findByText(/Ce lien ne fonctionne plus/)).toBeTruthy();
  });

  it('without a token: the link is incomplete', async () => {
    fakeApi({});
    await renderApp(siteConfig(), '/email-undo');
    expect(await screen.findByText(/This link is incomplete/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Undo the change' })).toBeNull();
  });
});
