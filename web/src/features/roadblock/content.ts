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

export const roadblockContent: Record<RoadblockPage, RoadblockContent> = {
  technical: { title: 'roadblock.technical.title', text: 'roadblock.technical.text', behaviour: 'registration-reset' },
  block: { title: 'roadblock.block.title', text: 'roadblock.block.text', behaviour: 'call-us' },
  'token-expired': { title: 'roadblock.tokenExpired.title', text: 'roadblock.tokenExpired.text', behaviour: 'token-expired' },
  'two-factor': { title: 'roadblock.twoFactor.title', text: 'roadblock.twoFactor.text', behaviour: 'call-us' },
  'forgot-password': {
    title: 'roadblock.forgotPassword.title',
    text: 'roadblock.forgotPassword.text',
    behaviour: 'reset-password',
  },
  inconsistency: { title: 'roadblock.inconsistency.title', text: 'roadblock.inconsistency.text', behaviour: 'registration-reset' },
  temporary: { title: 'roadblock.temporary.title', text: 'roadblock.temporary.text', behaviour: 'call-us' },
  'login-difficulties': {
    title: 'roadblock.loginDifficulties.title',
    text: 'roadblock.loginDifficulties.text',
    behaviour: 'reset-password',
  },
  maintenance: { title: 'roadblock.maintenance.title', text: 'roadblock.maintenance.text', behaviour: 'call-us' },
  'more-than-one-profile': {
    title: 'roadblock.moreThanOneProfile.title',
    text: 'roadblock.moreThanOneProfile.text',
    behaviour: 'call-us',
  },
  'registration-difficulties': {
    title: 'roadblock.registrationDifficulties.title',
    text: 'roadblock.registrationDifficulties.text',
    behaviour: 'call-us',
  },
  'no-options': { title: 'roadblock.noOptions.title', text: 'roadblock.noOptions.text', behaviour: 'call-us' },
  'resend-code': { title: 'roadblock.resendCode.title', text: 'roadblock.resendCode.text', behaviour: 'resend-code' },
  'resend-email': { title: 'roadblock.resendEmail.title', text: 'roadblock.resendEmail.text', behaviour: 'call-us' },
  'resend-reset-password': {
    title: 'roadblock.resendResetPassword.title',
    text: 'roadblock.resendResetPassword.text',
    behaviour: 'call-us',
  },
  'pin-difficulties': { title: 'roadblock.pinDifficulties.title', text: 'roadblock.pinDifficulties.text', behaviour: 'pin' },
  'wrong-cellphone': {
    title: 'roadblock.wrongCellphone.title',
    text: 'roadblock.wrongCellphone.text',
    behaviour: 'locked-account',
  },
};
