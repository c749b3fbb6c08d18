import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import {
  holdTemporaryPassword,
  initialFlow,
  parseFlow,
  readFlow,
  resetAfterRoadblock,
  resetRegistration,
  STORAGE_KEY,
  updateFlow,
  useFlow,
} from './state';
import { describeParse } from '@/test/stored-state';

afterEach(() => sessionStorage.clear());

describeParse('parseFlow', parseFlow, initialFlow, [
  { raw: '{"roadblocked":"yes","errorCode":5}' },
  {
    raw: '{"roadblocked":true,"errorCode":"E1","loginError":true,"emailToken":{"token":""}}',
    expected: { ...initialFlow, roadblocked: true, errorCode: 'E1', loginError: true },
  },
  {
    raw: '{"resetPassword":{"id":"a1","temp":"T","isTempPWD":true,"email":7},"emailToken":{"token":"tok","emailSource":"edoc"}}',
    expected: {
      ...initialFlow,
      resetPassword: { id: 'a1', email: null, emailResetPWD: null, temp: 'T', isTempPWD: true, validationId: null, resetPasswordId: null },
      emailToken: { token: 'tok', emailSource: 'edoc', startDate: '' },
    },
  },
]);

describe('the flow store', () => {
  it('keeps the state in sessionStorage, so a reload keeps it', () => {
    updateFlow({ roadblocked: true, errorCode: 'lnr500120' });
    expect(JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '{}')).toMatchObject({ roadblocked: true, errorCode: 'lnr500120' });
    expect(readFlow()).toMatchObject({ roadblocked: true, errorCode: 'lnr500120' });
  });

  it('reads what another script wrote to the storage, and returns the same object until it changes', () => {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ roadblocked: true }));
    const first = readFlow();
    expect(first.roadblocked).toBe(true);
    expect(readFlow()).toBe(first);
    sessionStorage.clear();
    expect(readFlow()).toBe(initialFlow);
  });

  it('re-renders the pages that read it', () => {
    const { result } = renderHook(() => useFlow());
    expect(result.current.roadblocked).toBe(false);
    act(() => {
      updateFlow((s) => ({ roadblocked: !s.roadblocked }));
    });
    expect(result.current.roadblocked).toBe(true);
  });

  it('holds the temporary password for /reset', () => {
    holdTemporaryPassword({ id: 'acc-1', email: 'temp@belair.example' }, 'Temp-Pass-2026');
    expect(readFlow().resetPassword).toEqual({
      id: 'acc-1',
      email: 'temp@belair.example',
      emailResetPWD: null,
      temp: 'Temp-Pass-2026',
      isTempPWD: true,
      validationId: null,
      resetPasswordId: null,
    });
  });

  const busy = {
    roadblocked: true,
    errorCode: 'E',
    registration: { id: 'r1', policyNumber: 'ABC1234' },
    emailToken: { token: 't', emailSource: 'edoc', startDate: '2026-01-01' },
  };
  it.each([
    { name: 'resetAfterRoadblock', reset: resetAfterRoadblock, keeps: {}, clears: ['registration', 'emailToken'] },
    { name: 'resetRegistration', reset: resetRegistration, keeps: { emailToken: busy.emailToken }, clears: ['registration'] },
  ])('$name clears the flag and what spec §2.6 says', ({ reset, keeps, clears }) => {
    updateFlow(busy);
    const after = reset();
    expect(after.roadblocked).toBe(false);
    expect(after.errorCode).toBeNull();
    for (const key of clears) expect(after[key as keyof typeof after]).toBeNull();
    expect(after).toMatchObject(keeps);
  });
});
