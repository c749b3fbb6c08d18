import type { BaseKey } from '@/i18n/catalog';
import type { RoadblockPage } from '@/lib/flow/roadblocks';

/**
 * What a roadblock page does besides its title, text and call-us card
 * (spec §2.6):
 * - call-us: the card's button goes back to registration identification
 *   (a registration is under way) or to login, resetting the roadblocked
 *   flag, the registration data and the email token;
 * - pin: the same resets, then the root;
 * - registration-reset (inconsistency, technical): the registration state
 *   goes, then registration identification or the root;
 * - reset-password: a link to /forgot besides the card;
 * - token-expired: a button that emails a new reset link (RESET_PSW);
 * - resend-code: 'Send me a new code' while the reset request allows a resend;
 * - locked-account: sends the LOCKED_ACCOUNT email on load. The locked
 *   account page is wrong-cellphone ("account locked 24 hours", reached
 *   with the registration id or the login's pkms cookie); block is 403 3001,
 *   an access blocked by the insurer, where no email is sent.
 */
export type RoadblockBehaviour = 'call-us' | 'pin' | 'registration-reset' | 'reset-password' | 'token-expired' | 'resend-code' | 'locked-account';

export interface RoadblockContent {
  title: BaseKey;
  text: BaseKey;
  behaviour: RoadblockBehaviour;
}

/** A group of roadblock.* messages: its title and its text. */
type MessageGroup = {
  [K in BaseKey]: K extends `roadblock.${infer G}.title` ? (`roadblock.${G}.text` extends BaseKey ? G : never) : never;
}[BaseKey];

const content = (group: MessageGroup, behaviour: RoadblockBehaviour): RoadblockContent => ({
  title: `roadblock.${group}.title`,
  text: `roadblock.${group}.text`,
  behaviour,
});

export const roadblockContent: Record<RoadblockPage, RoadblockContent> = {
  technical: content('technical', 'registration-reset'),
  block: content('block', 'call-us'),
  'token-expired': content('tokenExpired', 'token-expired'),
  'two-factor': content('twoFactor', 'call-us'),
  'forgot-password': content('forgotPassword', 'reset-password'),
  inconsistency: content('inconsistency', 'registration-reset'),
  temporary: content('temporary', 'call-us'),
  'login-difficulties': content('loginDifficulties', 'reset-password'),
  maintenance: content('maintenance', 'call-us'),
  'more-than-one-profile': content('moreThanOneProfile', 'call-us'),
  'registration-difficulties': content('registrationDifficulties', 'call-us'),
  'no-options': content('noOptions', 'call-us'),
  'resend-code': content('resendCode', 'resend-code'),
  'resend-email': content('resendEmail', 'call-us'),
  'resend-reset-password': content('resendResetPassword', 'call-us'),
  'pin-difficulties': content('pinDifficulties', 'pin'),
  'wrong-cellphone': content('wrongCellphone', 'locked-account'),
};
