// Message keys of the field rules, the same as internal/rules (Go) and
// testdata/rules/keys.json; rules.vectors.test.ts checks all three agree.
// Rule modules import the types only, so this list costs nothing at runtime
// unless a module (the i18n checks) imports RULE_KEYS itself.

export const RULE_KEYS = [
  'errorCodeFormat',
  'errorCodeRequired',
  'errorDateOfBirthAge',
  'errorDateOfBirthFormat',
  'errorDateOfBirthRequired',
  'errorEmailConfirm',
  'errorEmailConfirmRequired',
  'errorEmailFormat',
  'errorEmailRequired',
  'errorFirstNameFormat',
  'errorFirstNameLength',
  'errorFirstNameRequired',
  'errorLastNameFormat',
  'errorLastNameLength',
  'errorLastNameRequired',
  'errorPasswordCommon',
  'errorPasswordConfirmRequired',
  'errorPasswordContainsEmail',
  'errorPasswordDontMatch',
  'errorPasswordInvalidCharacter',
  'errorPasswordRequired',
  'errorPhoneFormat',
  'errorPhoneRequired',
  'errorPinFormat',
  'errorPinRequired',
  'errorPolicyNumberFormat',
  'errorPolicyNumberRequired',
  'errorPostalCodeFormat',
  'errorPostalCodeRequired',
  'errorTermsRequired',
  'protectAccount.passwordInfo',
  'validations:driverLicense.format',
  'validations:driverLicense.required',
] as const;

export type RuleKey = (typeof RULE_KEYS)[number];

/** Form fields of spec §3 that the rules report on. */
export type RuleField =
  | 'email'
  | 'emailConfirmation'
  | 'phone'
  | 'policyNumber'
  | 'postalCode'
  | 'password'
  | 'passwordConfirmation'
  | 'loginPassword'
  | 'checkbox'
  | 'code'
  | 'pin'
  | 'firstName'
  | 'lastName'
  | 'birthDate'
  | 'driverLicense';
