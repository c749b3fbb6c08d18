import { sessionStore, storedObject, useSessionStore } from './session-store';
import { updateFlow } from './state';

// The progress of a password recovery (spec §2.3, §4.4) beside the spec §3
// reset-password state that state.ts holds (account id, email, validation id,
// temporary password): where /verify was entered from, how many codes were
// resent, and what the code (or an emailed link) gave /reset. Kept in
// sessionStorage under its own key, so a reload of /verify or /reset keeps it
// and closing the tab forgets it.

/** Spec §2.1: /verify is reachable only from these pages. */
export const VERIFY_ENTRIES = ['/forgot', '/', '/reset'] as const;
export type VerifyEntry = (typeof VERIFY_ENTRIES)[number];

export interface ResetProgress {
  /** The page that sent the visitor to /verify in this recovery; null: /verify redirects to /. */
  verifyFrom: VerifyEntry | null;
  /** Codes resent for the current request (spec §9: at most 4). */
  resends: number;
  /** The one-time reset token of a right code or an emailed link, for POST accounts/{id}/password. */
  token: string | null;
  /** The account is a UBI driver: /reset asks for the cell phone instead of the postal code. */
  ubiDriver: boolean;
}

export const RESET_STORAGE_KEY = 'guichet.reset';

export const initialProgress: ResetProgress = Object.freeze({ verifyFrom: null, resends: 0, token: null, ubiDriver: false });

const isVerifyEntry = (value: unknown): value is VerifyEntry =>
  typeof value === 'string' && (VERIFY_ENTRIES as readonly string[]).includes(value);

/** Reads stored JSON defensively: anything malformed reads as no progress. */
export function parseProgress(raw: string | null): ResetProgress {
  const v = storedObject(raw);
  if (!v) return initialProgress;
  const resends = typeof v.resends === 'number' && Number.isInteger(v.resends) && v.resends >= 0 ? v.resends : 0;
  return {
    verifyFrom: isVerifyEntry(v.verifyFrom) ? v.verifyFrom : null,
    resends,
    token: typeof v.token === 'string' && v.token !== '' ? v.token : null,
    ubiDriver: v.ubiDriver === true,
  };
}

const progressStore = sessionStore(RESET_STORAGE_KEY, parseProgress);

/** The current recovery progress. */
export function readResetProgress(): ResetProgress {
  return progressStore.read();
}

/** Changes the recovery progress and tells the pages showing it. */
export function updateResetProgress(change: Partial<ResetProgress>): ResetProgress {
  return progressStore.write({ ...readResetProgress(), ...change });
}

/** The recovery progress, re-rendering when it changes. */
export function useResetProgress(): ResetProgress {
  return useSessionStore(progressStore);
}

/**
 * /forgot's request was answered: a new recovery for this email, with the
 * request's ids, entered from `from` (the page that sends the visitor to /verify).
 */
export function startReset(request: { id: string; validationId: string; email: string }, from: VerifyEntry = '/forgot'): void {
  updateFlow({
    resetPassword: {
      id: request.id,
      email: request.email,
      emailResetPWD: request.email,
      temp: null,
      isTempPWD: false,
      validationId: request.validationId,
      resetPasswordId: request.id,
    },
  });
  progressStore.write({ ...initialProgress, verifyFrom: from });
}

/** A new code went out: its validation id replaces the old one, and the resend is counted. */
export function codeResent(request: { id: string; validationId: string }): void {
  updateFlow((s) => ({
    resetPassword: s.resetPassword && { ...s.resetPassword, id: request.id, validationId: request.validationId },
  }));
  updateResetProgress({ resends: readResetProgress().resends + 1 });
}

/**
 * A right code or an emailed link gave a reset token: /reset asks for the
 * proof of identity (postal code, or phone for a UBI driver) and the new
 * password. A link arrives without the /forgot state, so it starts one.
 */
export function tokenReceived(verified: { id: string; token: string; ubiDriver: boolean }): void {
  updateFlow((s) => ({
    resetPassword: {
      id: verified.id,
      email: s.resetPassword?.email ?? null,
      emailResetPWD: s.resetPassword?.emailResetPWD ?? null,
      temp: null,
      isTempPWD: false,
      validationId: s.resetPassword?.validationId ?? null,
      resetPasswordId: s.resetPassword?.resetPasswordId ?? null,
    },
  }));
  updateResetProgress({ token: verified.token, ubiDriver: verified.ubiDriver });
}

/** /verify is left for good (back to /forgot, a roadblock): opened again, it redirects to /. */
export function leaveVerify(): void {
  updateResetProgress({ verifyFrom: null });
}

/** The password was changed (or the recovery abandoned): every trace of it goes. */
export function finishReset(): void {
  updateFlow({ resetPassword: null });
  progressStore.write(initialProgress);
}
