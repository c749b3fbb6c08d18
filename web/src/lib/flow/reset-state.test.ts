import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import {
  codeResent,
  finishReset,
  initialProgress,
  leaveVerify,
  parseProgress,
  readResetProgress,
  RESET_STORAGE_KEY,
  startReset,
  tokenReceived,
  updateResetProgress,
  useResetProgress,
} from './reset-state';
import { holdTemporaryPassword, readFlow } from './state';
import { describeParse } from '@/test/stored-state';

afterEach(() => sessionStorage.clear());

describeParse('parseProgress', parseProgress, initialProgress, [
  { raw: '{"verifyFrom":"/elsewhere","resends":-1,"token":"","ubiDriver":"yes"}' },
  { raw: '{"resends":1.5,"token":7}' },
  {
    raw: '{"verifyFrom":"/reset","resends":3,"token":"tok","ubiDriver":true}',
    expected: { verifyFrom: '/reset', resends: 3, token: 'tok', ubiDriver: true },
  },
]);

describe('a recovery from /forgot to /reset', () => {
  it('keeps the ids, the resends and the token, then forgets everything', () => {
    startReset({ id: 'acc-1', validationId: 'v1', email: 'a@belair.example' });
    expect(readFlow().resetPassword).toEqual({
      id: 'acc-1',
      email: 'a@belair.example',
      emailResetPWD: 'a@belair.example',
      temp: null,
      isTempPWD: false,
      validationId: 'v1',
      resetPasswordId: 'acc-1',
    });
    expect(readResetProgress()).toEqual({ ...initialProgress, verifyFrom: '/forgot' });

    codeResent({ id: 'acc-1', validationId: 'v2' });
    codeResent({ id: 'acc-1', validationId: 'v3' });
    expect(readFlow().resetPassword?.validationId).toBe('v3');
    expect(readResetProgress().resends).toBe(2);

    tokenReceived({ id: 'acc-1', token: 'tok', ubiDriver: true });
    expect(readResetProgress()).toEqual({ verifyFrom: '/forgot', resends: 2, token: 'tok', ubiDriver: true });
    expect(readFlow().resetPassword).toMatchObject({ id: 'acc-1', email: 'a@belair.example', validationId: 'v3', isTempPWD: false });
    expect(JSON.parse(sessionStorage.getItem(RESET_STORAGE_KEY) ?? '{}')).toMatchObject({ token: 'tok' });

    leaveVerify();
    expect(readResetProgress().verifyFrom).toBeNull();

    finishReset();
    expect(readFlow().resetPassword).toBeNull();
    expect(readResetProgress()).toEqual(initialProgress);
  });

  it('a new request starts over: resends at 0 and no token', () => {
    startReset({ id: 'acc-1', validationId: 'v1', email: 'a@belair.example' });
    codeResent({ id: 'acc-1', validationId: 'v2' });
    tokenReceived({ id: 'acc-1', token: 'tok', ubiDriver: false });
    startReset({ id: 'acc-1', validationId: 'v9', email: 'a@belair.example' }, '/');
    expect(readResetProgress()).toEqual({ ...initialProgress, verifyFrom: '/' });
  });

  it('a token replaces a temporary password held by the login', () => {
    holdTemporaryPassword({ id: 'acc-1', email: 't@belair.example' }, 'Temp-Pass-2026');
    tokenReceived({ id: 'acc-1', token: 'tok', ubiDriver: false });
    expect(readFlow().resetPassword).toMatchObject({ temp: null, isTempPWD: false, email: 't@belair.example' });
  });

  it('useResetProgress re-renders on a change', () => {
    const { result } = renderHook(() => useResetProgress());
    expect(result.current).toBe(initialProgress);
    act(() => void updateResetProgress({ resends: 1 }));
    expect(result.current.resends).toBe(1);
  });
});
