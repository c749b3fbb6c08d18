import { screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readFlow } from '@/lib/flow/state';
import { renderApp } from '@/test/render';
import { where } from '@/test/page';
import { siteConfig } from '@/test/site-fixture';

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

// The other-application codes leave the app for the marketing site: the
// browser tests follow that navigation (jsdom cannot).
describe('/webseal.do (spec §8.5)', () => {
  it.each([
    { code: '0x00000000', to: '/', heading: 'Sign in to your account', roadblocked: false, loginError: false },
    { code: '0x132120ea', to: '/roadblock/forgot-password', heading: 'Reset your password', roadblocked: true, loginError: false },
    { code: '0x13212132', to: '/roadblock/forgot-password', heading: 'Reset your password', roadblocked: true, loginError: false },
    { code: '0x38cf04d7', to: '/roadblock/technical', heading: 'Something went wrong', roadblocked: true, loginError: false },
    { code: 'garbage', to: '/roadblock/technical', heading: 'Something went wrong', roadblocked: true, loginError: false },
    { code: '0x132120c8', to: '/', heading: 'Sign in to your account', roadblocked: false, loginError: true },
    { code: 'HPDIA0300W', to: '/', heading: 'Sign in to your account', roadblocked: false, loginError: true },
  ])('error=$code goes to $to', async ({ code, to, heading, roadblocked, loginError }) => {
    await renderApp(siteConfig(), `/webseal.do?error=${encodeURIComponent(code)}`);
    await waitFor(() => expect(where()).toBe(to));
    expect(await screen.findByRole('heading', { level: 1, name: heading })).toBeTruthy();
    expect(readFlow().roadblocked).toBe(roadblocked);
    if (loginError) expect(await screen.findByText('The email or password is incorrect. Please try again.')).toBeTruthy();
    else expect(screen.queryByText('The email or password is incorrect. Please try again.')).toBeNull();
  });

  it('without a code: technical', async () => {
    await renderApp(siteConfig(), '/webseal.do');
    await waitFor(() => expect(where()).toBe('/roadblock/technical'));
  });
});
