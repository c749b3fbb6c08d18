// Spec §9's limits of the recovery screens. The server keeps its own
// (internal/recovery: 5 guesses a code, 4 resends a request); these are the
// browser's, for the visitor's sake.

export { CODE_GUESSES, MAX_RESENDS } from '@/lib/flow/reset-code';

/** Spec §9: the resend spinner shows for at least 1 second. */
export const MIN_SPINNER_MS = 1000;

/** Spec §4.2 token routing: the action of a right reset code (or link) that goes to /reset. */
export const RESET_ACTION = 'reset-password-login';
