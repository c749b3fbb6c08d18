// The field rules of spec §5, the same as internal/rules (Go). Import the
// module of the rule you need (the login route takes email and
// login-password only); this file only re-exports them.
export { checkDateOfBirth, MAX_AGE, MIN_AGE } from './date-of-birth';
export { checkDriverLicence, DRIVER_LICENCE_MAX_LENGTH } from './driver-licence';
export { checkEmail, EMAIL_MAX_LENGTH, emailEqual } from './email';
export { checkEmailConfirmation } from './email-confirmation';
export { RULE_KEYS, type RuleField, type RuleKey } from './keys';
export { checkLoginPassword } from './login-password';
export { checkFirstName, checkLastName, NAME_MAX_LENGTH, NAME_MIN_LENGTH } from './names';
export { normalizePassword } from './normalize-password';
export { checkPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password';
export { checkPasswordConfirmation } from './password-confirmation';
export { checkPhone } from './phone';
export { checkPin } from './pin';
export { checkPolicyNumber, policyFormatValid, type PolicyFormat } from './policy-number';
export { checkPostalCode } from './postal-code';
export type { RuleResult } from './result';
export { checkSecurityCode } from './security-code';
export { checkTerms } from './terms';
export { MAX_INPUT_BYTES } from './text';
