import type { RoadblockPage } from '@/lib/flow/roadblocks';
import { registrationPath } from '@/lib/flow/registration-guard';
import type { TwoFactorOption } from '@/lib/flow/state';

// Spec §4.2 as pure functions: where each answer of legacy registration
// leads. The pages apply them (navigate, or the roadblock with its flag).

/** Spec §9: 3 for identification and email submission. */
export const ATTEMPTS = 3;
/** Spec §9: the resend spinner shows for at least 1 second. */
export const MIN_SPINNER_MS = 1000;

export type Next = { to: string } | { roadblock: RoadblockPage };

const go = (to: string): Next => ({ to });

/** The options a person can be verified with (NONE, "I can't use any of these", is no way). */
export const realOptions = (options: TwoFactorOption[]) => options.filter((o) => o.method !== 'NONE');

/** The code page of an option, or null for one that is no code. */
export function codePage(method: string): '/registration/validation/sms' | '/registration/validation/email' | '/registration/validation/pin' | null {
  switch (method) {
    case 'SMS':
      return '/registration/validation/sms';
    case 'EMAIL':
    case 'ask-email-code':
      return '/registration/validation/email';
    case 'PIN':
      return '/registration/validation/pin';
  }
  return null;
}

/**
 * Identification 240: no option, the no-options roadblock; a single ask-email,
 * account-creation/email; a single PIN, validation/pin; otherwise the choice.
 */
export function afterIdentification(options: TwoFactorOption[]): Next {
  const real = realOptions(options);
  if (real.length === 0) return { roadblock: 'no-options' };
  const [only] = real;
  if (real.length === 1 && only?.method === 'ask-email') return go(registrationPath('account-creation/email'));
  if (real.length === 1 && only?.method === 'PIN') return go(registrationPath('validation/pin'));
  return go(registrationPath('validation'));
}

/**
 * A right code or PIN: 200 (no next option), account-creation/password; 240
 * with ask-email, account-creation/email; ask-password,
 * password-validation; ask-username, new-email.
 */
export function afterCode(next: TwoFactorOption | undefined): Next | null {
  if (!next) return go(registrationPath('account-creation/password'));
  switch (next.method) {
    case 'ask-email':
      return go(registrationPath('account-creation/email'));
    case 'ask-password':
      return go(registrationPath('password-validation'));
    case 'ask-username':
      return go(registrationPath('account-creation/new-email'));
  }
  return null;
}

/**
 * An email submitted (account-creation/email or new-email), once accepted:
 * 202, email-sent; 2xx with ask-password, password-validation; with
 * ask-email-code, validation/email; 200 with the email, account-creation/password.
 */
export function afterEmail(status: number, next: TwoFactorOption | undefined): Next | null {
  if (status === 202) return go(registrationPath('email-sent'));
  if (next?.method === 'ask-password') return go(registrationPath('password-validation'));
  if (next?.method === 'ask-email-code') return go(registrationPath('validation/email'));
  if (!next && status === 200) return go(registrationPath('account-creation/password'));
  return null;
}
