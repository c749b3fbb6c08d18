import type { RoadblockPage } from '@/lib/flow/roadblocks';
import { registrationPath } from '@/lib/flow/registration-guard';
import type { RegistrationState, TwoFactorOption } from '@/lib/flow/state';

// Spec §4.2 as pure functions: where each answer of legacy registration
// leads. The pages apply them (navigate, or the roadblock with its flag).

/** Spec §9: 3 for identification and email submission. */
export const ATTEMPTS = 3;
/** Spec §9: the resend spinner shows for at least 1 second. */
export const MIN_SPINNER_MS = 1000;

export type Next = { to: string } | { roadblock: RoadblockPage };

/** A move of identification: the page, and the option it goes on with when one was selected for the visitor. */
export type IdentificationNext = { to: string; selected?: TwoFactorOption } | { roadblock: RoadblockPage };

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
 * The two single options are selected for the visitor: `selected` is the
 * option the next page submits with (the flow keeps it, selectionOf).
 */
export function afterIdentification(options: TwoFactorOption[]): IdentificationNext {
  const real = realOptions(options);
  if (real.length === 0) return { roadblock: 'no-options' };
  const [only] = real;
  if (real.length === 1 && only?.method === 'ask-email') return { to: registrationPath('account-creation/email'), selected: only };
  if (real.length === 1 && only?.method === 'PIN') return { to: registrationPath('validation/pin'), selected: only };
  return go(registrationPath('validation'));
}

/**
 * What the registration state keeps of an option selected (by the visitor
 * on the choice, or for them after identification), for the page that
 * submits with it: a code or PIN option is the code page's
 * (selectedTwoFactor, its resends counted from 0); ask-email is the email
 * page's (nextOption).
 */
export function selectionOf(option: TwoFactorOption): Pick<RegistrationState, 'selectedTwoFactor' | 'resendTwoFactor' | 'nextOption'> {
  if (option.method === 'ask-email') return { nextOption: option, selectedTwoFactor: undefined };
  return { selectedTwoFactor: option.id, resendTwoFactor: 0 };
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
