import { afterEach, describe, expect, it } from 'vitest';
import { holdTokenNext, readTokenAnswer, tokenNext } from './email-token';
import { readResetProgress } from './reset-state';
import { readFlow, updateFlow } from './state';

// Spec §4.2 "Token routing by action", written out row by row.
const TOKEN = 'Tk9uZS1vZi10aGVzZS1pcy1hLXJlYWwtdG9rZW4tYWJj';
const body = (action: string, extra: Record<string, unknown> = {}) => ({
  status: 200,
  data: { id: 'reg-7', twoFactorValidations: [], email: 'marie@example.com', ubiMatchPH: false, action, startDate: '2026-11-20T10:00:00Z', ...extra },
});

afterEach(() => sessionStorage.clear());

describe('spec §4.2 token routing by action', () => {
  it.each([
    {
      action: 'ask-password',
      extra: { ubiMatchPH: true, email: 'holder@example.com', twoFactorValidations: [{ id: 'reg-7', method: 'ask-password', maskedValue: '' }] },
      to: '/registration/password-validation',
    },
    { action: 'ask-username', extra: { email: '', twoFactorValidations: [{ id: 'reg-7', method: 'ask-username' }] }, to: '/registration/account-creation/new-email' },
    { action: 'default-password-register', extra: {}, to: '/registration/account-creation/password' },
    { action: 'reset-password-login', extra: { id: 'acct-3', email: '' }, to: '/reset' },
    { action: 'token-expired', extra: { id: 'acct-3', email: '' }, to: '/roadblock/token-expired' },
  ])('$action goes to $to', ({ action, extra, to }) => {
    const next = tokenNext(body(action, extra));
    expect('to' in next && next.to).toBe(to);
  });

  it.each([
    { name: 'an unknown action', answer: body('sms-please') },
    { name: 'an action without the id it needs', answer: body('default-password-register', { id: '' }) },
    { name: 'ask-username without its option', answer: body('ask-username') },
    { name: '404 NOT_FOUND', answer: { status: 404, data: { errorCode: 'NOT_FOUND' } } },
    { name: '400', answer: { status: 400, data: { errorCode: 'VALIDATION' } } },
    { name: '200 without a body', answer: { status: 200, data: undefined } },
    { name: '200 with another shape', answer: { status: 200, data: { action: 42 } } },
  ])('$name goes to /', ({ answer }) => {
    expect(tokenNext(answer)).toEqual({ kind: 'home', to: '/' });
  });

  it.each([412, 500, 502, 503, 530])('%i is a failure for the catalogue', (status) => {
    expect(tokenNext({ status, data: { errorCode: '5001' } })).toEqual({ kind: 'failure' });
  });

  it('429 waits: the link works later', () => {
    expect(tokenNext({ status: 429, data: { errorCode: 'RATE_LIMITED' } })).toEqual({ kind: 'wait' });
  });

  it('reads the answer defensively (maskedValue missing, ubiDriver absent)', () => {
    expect(readTokenAnswer(body('ask-username', { twoFactorValidations: [{ id: 'o', method: 'ask-username' }, 'x'] }).data)).toEqual({
      id: 'reg-7',
      twoFactorValidations: [{ id: 'o', method: 'ask-username', maskedValue: '' }],
      email: 'marie@example.com',
      ubiMatchPH: false,
      action: 'ask-username',
      startDate: '2026-11-20T10:00:00Z',
      ubiDriver: false,
    });
  });
});

describe('what the flow keeps for the page', () => {
  it('ask-password: the UBI flow with the holder email and the option, and the token', () => {
    const next = tokenNext(
      body('ask-password', { ubiMatchPH: true, email: 'holder@example.com', twoFactorValidations: [{ id: 'reg-7', method: 'ask-password', maskedValue: '' }] }),
    );
    expect(holdTokenNext(next, TOKEN, 'edoc')).toBe('/registration/password-validation');
    expect(readFlow().registration).toMatchObject({ id: 'reg-7', email: 'holder@example.com', ubiMatchPH: true, isUbiFlow: true });
    expect(readFlow().registration?.nextOption).toEqual({ id: 'reg-7', method: 'ask-password', maskedValue: '' });
    expect(readFlow().emailToken).toEqual({ token: TOKEN, emailSource: 'edoc', startDate: '2026-11-20T10:00:00Z' });
  });

  it('ask-username: new-email submits with the ask-username option', () => {
    holdTokenNext(tokenNext(body('ask-username', { twoFactorValidations: [{ id: 'opt-u', method: 'ask-username', maskedValue: '' }] })), TOKEN, 'BA');
    expect(readFlow().registration?.nextOption?.id).toBe('opt-u');
    expect(readFlow().emailToken?.emailSource).toBe('BA');
  });

  it('default-password-register: the registration and the UBI driver flag when the server gives it', () => {
    holdTokenNext(tokenNext(body('default-password-register', { ubiDriver: true })), TOKEN, 'mrkt');
    expect(readFlow().registration).toMatchObject({ id: 'reg-7', email: 'marie@example.com', ubiDriver: true });
  });

  it('reset-password-login: /reset holds the account and the email token as its proof', () => {
    updateFlow({ registration: { id: 'old' } });
    holdTokenNext(tokenNext(body('reset-password-login', { id: 'acct-3' })), TOKEN, 'edoc');
    expect(readFlow().resetPassword?.id).toBe('acct-3');
    expect(readFlow().registration).toBeNull();
    expect(readResetProgress()).toMatchObject({ token: TOKEN, ubiDriver: false });
  });

  it('token-expired: roadblocked, the account kept for RESET_PSW, the dead token dropped', () => {
    updateFlow({ emailToken: { token: TOKEN, emailSource: 'edoc', startDate: '' } });
    holdTokenNext(tokenNext(body('token-expired', { id: 'acct-3' })), TOKEN, 'edoc');
    expect(readFlow()).toMatchObject({ roadblocked: true, emailToken: null, registration: null });
    expect(readFlow().resetPassword?.id).toBe('acct-3');
  });

  it('token-expired without an account: no id kept', () => {
    holdTokenNext(tokenNext(body('token-expired', { id: '' })), TOKEN, 'edoc');
    expect(readFlow().resetPassword).toBeNull();
    expect(readFlow().roadblocked).toBe(true);
  });

  it('home drops the token', () => {
    updateFlow({ emailToken: { token: TOKEN, emailSource: 'edoc', startDate: '' } });
    expect(holdTokenNext(tokenNext({ status: 404, data: {} }), TOKEN, 'edoc')).toBe('/');
    expect(readFlow().emailToken).toBeNull();
  });
});
