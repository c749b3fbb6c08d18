import type { Message, MessageKey } from '@/i18n/catalog';
import { CODE_GUESSES } from '@/features/recovery/limits';

/**
 * Tries left before the resend-code roadblock (spec §4.4): the page visit's
 * random limit (3 to 6) or the server's 5 guesses of a code, whichever ends first.
 */
export function triesLeft(limit: number, wrongCodes: number, wrongOfCode: number): number {
  return Math.max(0, Math.min(limit - wrongCodes, CODE_GUESSES - wrongOfCode));
}

/**
 * The wrong-code message: from the second wrong code on it says how many
 * tries are left, so the roadblock does not come without warning.
 */
export function wrongCodeMessage(plain: MessageKey, wrongCodes: number, left: number): Message {
  if (wrongCodes < 2 || left < 1) return plain;
  return left === 1 ? 'recovery.verify.triesLeft.one' : { key: 'recovery.verify.triesLeft.other', params: { count: left } };
}
