import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { english } from '@/i18n/english';
import { setPkmsAccount } from '@/lib/flow/cookies';
import { forgetPages, notePage } from '@/lib/flow/previous-page';
import { ROADBLOCK_PAGES } from '@/lib/flow/roadblocks';
import { leaveVerify, readResetProgress, startReset, updateResetProgress } from '@/lib/flow/reset-state';
import { readFlow, updateFlow } from '@/lib/flow/state';
import { fakeApi } from '@/lib/flow/testing';
import type { PublicBrand } from '@/lib/site/types';
import { renderApp } from '@/test/render';
import { where } from '@/test/page';
import { belair, siteConfig } from '@/test/site-fixture';
import { roadblockContent } from './content';

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

/** Opens a roadblock page as a flow does: the flag set, arriving from a registration validation page (spec §2.4's guards). */
async function openRoadblock(path: string, config = siteConfig({ brand: belair }), from = '/registration/validation') {
  updateFlow({ roadblocked: true });
  forgetPages();
  notePage(from);
  await renderApp(config, path);
}

describe('the roadblock guard (spec §2.6)', () => {
  it.each([...ROADBLOCK_PAGES.map((page) => `/roadblock/${page}`), '/roadblock'])(
    '%s without the flag goes to / keeping the query string',
    async (path) => {
      fakeApi({});
      await renderApp(siteConfig(), `${path}?province=qc&lang=fr`);
      await waitFor(() => expect(where()).toBe('/?province=qc&lang=fr'));
    },
  );

  // Spec §2.4: no-options and pin-difficulties only from validation (and
  // no-options from identification, when it finds no option: §4.2).
  it.each([
    { page: 'no-options', from: '/registration/validation', opens: true },
    { page: 'no-options', from: '/registration/validation/sms', opens: true },
    { page: 'no-options', from: '/registration/identification', opens: true },
    { page: 'no-options', from: '/', opens: false },
    { page: 'no-options', from: null, opens: false },
    { page: 'pin-difficulties', from: '/registration/validation/pin', opens: true },
    { page: 'pin-difficulties', from: '/registration/validation/email', opens: true },
    { page: 'pin-difficulties', from: '/registration/identification', opens: false },
    { page: 'pin-difficulties', from: '/registration/account-creation/password', opens: false },
    { page: 'pin-difficulties', from: null, opens: false },
    { page: 'block', from: null, opens: true },
  ] as const)('$page from $from: opens $opens', async ({ page, from, opens }) => {
    fakeApi({});
    updateFlow({ roadblocked: true });
    forgetPages();
    if (from !== null) notePage(from);
    await renderApp(siteConfig({ brand: belair }), `/roadblock/${page}?lang=en`);
    await waitFor(() => expect(where()).toBe(opens ? `/roadblock/${page}?lang=en` : '/?lang=en'));
    if (opens) expect(screen.getByRole('heading', { level: 1, name: english[roadblockContent[page].title] })).toBeTruthy();
  });

  it('an unknown roadblock page is not found', async () => {
    await openRoadblock('/roadblock/no-such-page');
    await waitFor(() => expect(where()).toBe('/not-found'));
  });
});

describe('every roadblock page, with the flag', () => {
  it.each(ROADBLOCK_PAGES)('%s: title, text, phone and opening hours', async (page) => {
    fakeApi({});
    await openRoadblock(`/roadblock/${page}`);
    const { title, text } = roadblockContent[page];
    // Focus on the title when a page leads here: src/app/page-focus.test.tsx.
    await screen.findByRole('heading', { level: 1, name: english[title] });
    // No account known here: token-expired says its button leads to /forgot (tests below).
    expect(screen.getByText(english[page === 'token-expired' ? 'roadblock.tokenExpired.textForgot' : text])).toBeTruthy();
    expect(document.title).toBe(`${english[title]} | belairdirect`);
    const card = screen.getByRole('region', { name: 'Call us' });
    expect(within(card).getByRole('link', { name: '1 833-000-0102' }).getAttribute('href')).toBe('tel:+18330000102');
    expect(within(card).getAllByRole('term').map((dt) => dt.textContent)).toEqual(['Monday to Friday', 'Saturday', 'Sunday']);
    expect(within(card).getAllByRole('definition').map((dd) => dd.textContent)).toEqual([
      '8\u00a0a.m. to 6\u00a0p.m.',
      'Closed',
      'Closed',
    ]);
  });

  it('/roadblock is the technical page', async () => {
    await openRoadblock('/roadblock');
    expect(await screen.findByRole('heading', { level: 1, name: 'Something went wrong' })).toBeTruthy();
  });

  it('shows the French text and hours in French', async () => {
    await openRoadblock('/roadblock/maintenance', siteConfig({ brand: belair, province: 'qc', language: 'fr' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Notre site est en maintenance' })).toBeTruthy();
    const card = screen.getByRole('region', { name: 'Appelez-nous' });
    expect(within(card).getAllByRole('definition').map((dd) => dd.textContent)).toEqual(['8\u00a0h à 18\u00a0h', 'Fermé', 'Fermé']);
  });

  it('no hours for a province without them (intact), the phone number still', async () => {
    const noHours: PublicBrand = {
      ...belair,
      provinces: belair.provinces.map((p) => ({ ...p, hours: null })),
    };
    await openRoadblock('/roadblock/technical', siteConfig({ brand: noHours }));
    const card = await screen.findByRole('region', { name: 'Call us' });
    expect(within(card).getByRole('link', { name: '1 833-000-0102' })).toBeTruthy();
    expect(within(card).queryByRole('term')).toBeNull();
  });

  it('shows the reference code a 500 left (spec §8.1)', async () => {
    updateFlow({ errorCode: 'lnr500120' });
    await openRoadblock('/roadblock/login-difficulties');
    expect(await screen.findByText('Error code: lnr500120')).toBeTruthy();
  });

  it.each(['forgot-password', 'login-difficulties'])('%s links to /forgot', async (page) => {
    await openRoadblock(`/roadblock/${page}`);
    expect((await screen.findByRole('link', { name: 'Reset my password' })).getAttribute('href')).toBe('/forgot');
  });
});

describe('leaving a roadblock (spec §2.6 resets)', () => {
  const registration = { id: 'reg-1', policyNumber: 'ABC1234' };
  const emailToken = { token: 'tok', emailSource: 'edoc', startDate: '2026-01-01' };
  const cases = [
    { page: 'block', inRegistration: false, button: 'Back to login', to: '/', keepsToken: false },
    { page: 'registration-difficulties', inRegistration: true, button: 'Back to registration', to: '/registration/identification', keepsToken: false },
    { page: 'pin-difficulties', inRegistration: true, button: 'Back to login', to: '/', keepsToken: false },
    { page: 'inconsistency', inRegistration: true, button: 'Back to registration', to: '/registration/identification', keepsToken: true },
    { page: 'technical', inRegistration: false, button: 'Back to login', to: '/', keepsToken: true },
  ] as const;
  it.each(cases)('$page: "$button" goes to $to', async ({ page, inRegistration, button, to, keepsToken }) => {
    updateFlow({ registration: inRegistration ? registration : null, emailToken });
    await openRoadblock(`/roadblock/${page}`);
    await act(async () => fireEvent.click(await screen.findByRole('button', { name: button })));
    await waitFor(() => expect(window.location.pathname).toBe(to));
    const flow = readFlow();
    expect(flow.roadblocked).toBe(false);
    expect(flow.registration).toBeNull();
    expect(flow.emailToken).toEqual(keepsToken ? emailToken : null);
  });
});

describe('locked account (wrong-cellphone)', () => {
  it('sends LOCKED_ACCOUNT for the pkms account on load, once, and says so', async () => {
    const calls = fakeApi({ 'POST /api/v1/accounts/acc-9/notification': { status: 200, body: {} } });
    setPkmsAccount('acc-9');
    await openRoadblock('/roadblock/wrong-cellphone');
    expect(await screen.findByText(english['roadblock.wrongCellphone.emailSent'])).toBeTruthy();
    expect(screen.getByRole('status').textContent).toBe(english['roadblock.wrongCellphone.emailSent']);
    expect(calls).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: '/api/v1/accounts/acc-9/notification',
        body: { mediumType: 'EMAIL', notificationType: 'LOCKED_ACCOUNT' },
      }),
    ]);
  });

  it('uses the registration id without a pkms cookie', async () => {
    const calls = fakeApi({ 'POST /api/v1/accounts/reg-7/notification': { status: 200, body: {} } });
    updateFlow({ registration: { id: 'reg-7' } });
    await openRoadblock('/roadblock/wrong-cellphone');
    await screen.findByText(english['roadblock.wrongCellphone.emailSent']);
    expect(calls.map((c) => c.path)).toEqual(['/api/v1/accounts/reg-7/notification']);
  });

  it('sends nothing without an account', async () => {
    const calls = fakeApi({});
    await openRoadblock('/roadblock/wrong-cellphone');
    await screen.findByRole('heading', { level: 1, name: 'Your account is locked for 24 hours' });
    expect(calls).toEqual([]);
  });

  it('a failed send leaves the page as it is', async () => {
    const calls = fakeApi({ 'POST /api/v1/accounts/gone/notification': { status: 404, body: { errorCode: 'ACCOUNT_NOT_FOUND' } } });
    setPkmsAccount('gone');
    await openRoadblock('/roadblock/wrong-cellphone');
    await waitFor(() => expect(calls).toHaveLength(1));
    await act(async () => undefined);
    expect(where()).toBe('/roadblock/wrong-cellphone');
    expect(screen.getByRole('status').textContent).toBe('');
  });
});

describe('token expired', () => {
  it('the button emails a new link (RESET_PSW) and 200 goes to /check-your-inbox', async () => {
    const calls = fakeApi({ 'POST /api/v1/accounts/acc-3/notification': { status: 200, body: {} } });
    updateFlow({
      resetPassword: { id: 'acc-3', email: null, emailResetPWD: null, temp: null, isTempPWD: false, validationId: null, resetPasswordId: null },
    });
    await openRoadblock('/roadblock/token-expired');
    await act(async () => fireEvent.click(await screen.findByRole('button', { name: 'Send me a new link' })));
    await waitFor(() => expect(where()).toBe('/check-your-inbox'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Check your inbox' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to login' }).getAttribute('href')).toBe('/');
    expect(calls[0]?.body).toEqual({ mediumType: 'EMAIL', notificationType: 'RESET_PSW' });
  });

  it.each([
    { status: 417, to: '/roadblock/login-difficulties' },
    { status: 404, to: '/roadblock/technical' },
    { status: 503, to: '/roadblock/maintenance' },
  ])('answer $status goes to $to', async ({ status, to }) => {
    fakeApi({ 'POST /api/v1/accounts/acc-3/notification': { status, body: { errorCode: 'X' } } });
    setPkmsAccount('acc-3');
    await openRoadblock('/roadblock/token-expired');
    await act(async () => fireEvent.click(await screen.findByRole('button', { name: 'Send me a new link' })));
    await waitFor(() => expect(where()).toBe(to));
  });

  // Issue 12 defect 11: the page promised an email its button did not send.
  it('without a known account, says what its button does: /forgot, for a new code', async () => {
    await openRoadblock('/roadblock/token-expired');
    expect((await screen.findByRole('link', { name: 'Get a new code' })).getAttribute('href')).toBe('/forgot');
    expect(screen.queryByRole('button', { name: 'Send me a new link' })).toBeNull();
    expect(screen.getByText(english['roadblock.tokenExpired.textForgot'])).toBeTruthy();
    expect(screen.queryByText(english['roadblock.tokenExpired.text'])).toBeNull();
  });

  it('with a known account, promises the email its button sends', async () => {
    setPkmsAccount('acc-3');
    await openRoadblock('/roadblock/token-expired');
    await screen.findByRole('button', { name: 'Send me a new link' });
    expect(screen.getByText(english['roadblock.tokenExpired.text'])).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Get a new code' })).toBeNull();
  });

  it('says it in French too', async () => {
    await openRoadblock('/roadblock/token-expired', siteConfig({ brand: belair, province: 'qc', language: 'fr' }));
    expect((await screen.findByRole('link', { name: 'Obtenir un nouveau code' })).getAttribute('href')).toBe('/forgot');
  });
});

// Issue 12 defect 8: too many wrong codes ended in a call, with no new code offered.
describe('resend code (too many wrong codes)', () => {
  const RESEND = 'POST /api/v1/accounts/acc-1/password-reset/v1/resend';
  const underWay = (resends = 0) => {
    startReset({ id: 'acc-1', validationId: 'v1', email: 'demo@belair.example' });
    leaveVerify();
    updateResetProgress({ resends });
  };

  it('"Send me a new code" emails one and goes back to /verify, which says so', async () => {
    const calls = fakeApi({ [RESEND]: { status: 200, body: { id: 'acc-1', validationId: 'v2' } } });
    underWay();
    await openRoadblock('/roadblock/resend-code');
    expect(await screen.findByText('We can email you a new security code.')).toBeTruthy();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Send me a new code' })));
    await screen.findByRole('heading', { level: 1, name: 'Enter your security code' });
    expect(where()).toBe('/verify');
    expect(screen.getByRole('status').textContent).toBe('We’ve sent you a new code. Only the newest code works.');
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([RESEND]);
    expect(readFlow()).toMatchObject({ roadblocked: false, resetPassword: { id: 'acc-1', validationId: 'v2' } });
    expect(readResetProgress()).toMatchObject({ resends: 1, verifyFrom: '/forgot' });
  });

  it('with no resend left, offers no button and says so', async () => {
    const calls = fakeApi({});
    underWay(4);
    await openRoadblock('/roadblock/resend-code');
    expect(await screen.findByText(english['roadblock.resendCode.noMoreCodes'])).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Send me a new code' })).toBeNull();
    expect(calls).toEqual([]);
  });

  it('without a reset under way, offers the call only', async () => {
    await openRoadblock('/roadblock/resend-code');
    await screen.findByRole('heading', { level: 1, name: 'Too many attempts' });
    expect(screen.queryByRole('button', { name: 'Send me a new code' })).toBeNull();
  });

  it('the server refusing the resend (409) is the resend-reset-password roadblock', async () => {
    fakeApi({ [RESEND]: { status: 409, body: { errorCode: 'RESEND_LIMIT_REACHED' } } });
    underWay(1);
    await openRoadblock('/roadblock/resend-code');
    await act(async () => fireEvent.click(await screen.findByRole('button', { name: 'Send me a new code' })));
    await waitFor(() => expect(where()).toBe('/roadblock/resend-reset-password'));
  });

  it('in French', async () => {
    underWay();
    await openRoadblock('/roadblock/resend-code', siteConfig({ brand: belair, province: 'qc', language: 'fr' }));
    expect(await screen.findByRole('button', { name: 'M’envoyer un nouveau code' })).toBeTruthy();
  });
});
