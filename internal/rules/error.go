package rules

import (
	"slices"
)

// Error is a field that breaks its rule. Key is a message key of the SPA's
// catalogues (spec §8.4 where the spec names one); Field is the form field of
// spec §3 the key belongs to. Handlers answer 400 {"errorCode": Key}.
type Error struct {
	Field string
	Key   string
}

func (e Error) Error() string { return "rules: " + e.Field + ": " + e.Key }

// FieldKey lets the API layer answer 400 with the field and its key
// (api.FieldError) without knowing this package.
func (e Error) FieldKey() (field, key string) { return e.Field, e.Key }

// Form fields of spec §3 that the rules report on.
const (
	FieldEmail                = "email"
	FieldEmailConfirmation    = "emailConfirmation"
	FieldPhone                = "phone"
	FieldPolicyNumber         = "policyNumber"
	FieldPostalCode           = "postalCode"
	FieldPassword             = "password"
	FieldPasswordConfirmation = "passwordConfirmation"
	FieldLoginPassword        = "loginPassword"
	FieldTerms                = "checkbox" // the terms checkbox, named so in spec §3
	FieldCode                 = "code"
	FieldPIN                  = "pin"
	FieldFirstName            = "firstName"
	FieldLastName             = "lastName"
	FieldBirthDate            = "birthDate"
	FieldDriverLicense        = "driverLicense"
)

// Message keys. The spec names errorEmailRequired, errorEmailFormat,
// errorEmailConfirm, errorPhoneFormat, errorPasswordDontMatch,
// protectAccount.passwordInfo and validations:driverLicense.format; the others
// follow their pattern.
const (
	KeyEmailRequired            = "errorEmailRequired"
	KeyEmailFormat              = "errorEmailFormat"
	KeyEmailConfirmRequired     = "errorEmailConfirmRequired"
	KeyEmailConfirm             = "errorEmailConfirm"
	KeyPhoneRequired            = "errorPhoneRequired"
	KeyPhoneFormat              = "errorPhoneFormat"
	KeyPolicyNumberRequired     = "errorPolicyNumberRequired"
	KeyPolicyNumberFormat       = "errorPolicyNumberFormat"
	KeyPostalCodeRequired       = "errorPostalCodeRequired"
	KeyPostalCodeFormat         = "errorPostalCodeFormat"
	KeyPasswordRequired         = "errorPasswordRequired"
	KeyPasswordInfo             = "protectAccount.passwordInfo"
	KeyPasswordInvalidCharacter = "errorPasswordInvalidCharacter"
	KeyPasswordContainsEmail    = "errorPasswordContainsEmail"
	KeyPasswordCommon           = "errorPasswordCommon"
	KeyPasswordConfirmRequired  = "errorPasswordConfirmRequired"
	KeyPasswordDontMatch        = "errorPasswordDontMatch"
	KeyTermsRequired            = "errorTermsRequired"
	KeyCodeRequired             = "errorCodeRequired"
	KeyCodeFormat               = "errorCodeFormat"
	KeyPINRequired              = "errorPinRequired"
	KeyPINFormat                = "errorPinFormat"
	KeyFirstNameRequired        = "errorFirstNameRequired"
	KeyFirstNameFormat          = "errorFirstNameFormat"
	KeyFirstNameLength          = "errorFirstNameLength"
	KeyLastNameRequired         = "errorLastNameRequired"
	KeyLastNameFormat           = "errorLastNameFormat"
	KeyLastNameLength           = "errorLastNameLength"
	KeyDateOfBirthRequired      = "errorDateOfBirthRequired"
	KeyDateOfBirthFormat        = "errorDateOfBirthFormat"
	KeyDateOfBirthAge           = "errorDateOfBirthAge"
	KeyDriverLicenseRequired    = "validations:driverLicense.required"
	KeyDriverLicenseFormat      = "validations:driverLicense.format"
)

// RuleInfo names one rule (as in testdata/rules/<Rule>.json), the form field
// it reports on and every key it can return.
type RuleInfo struct {
	Rule  string
	Field string
	Keys  []string
}

// KeyTable lists every rule and its keys; testdata/rules/keys.json is written
// from it so the SPA's catalogues can be checked against it.
var KeyTable = []RuleInfo{
	{"email", FieldEmail, []string{KeyEmailRequired, KeyEmailFormat}},
	{"emailConfirmation", FieldEmailConfirmation, []string{KeyEmailConfirmRequired, KeyEmailConfirm}},
	{"phone", FieldPhone, []string{KeyPhoneRequired, KeyPhoneFormat}},
	{"policyNumber", FieldPolicyNumber, []string{KeyPolicyNumberRequired, KeyPolicyNumberFormat}},
	{"postalCode", FieldPostalCode, []string{KeyPostalCodeRequired, KeyPostalCodeFormat}},
	{"password", FieldPassword, []string{KeyPasswordRequired, KeyPasswordInfo, KeyPasswordInvalidCharacter, KeyPasswordContainsEmail, KeyPasswordCommon}},
	{"passwordConfirmation", FieldPasswordConfirmation, []string{KeyPasswordConfirmRequired, KeyPasswordDontMatch}},
	{"loginPassword", FieldLoginPassword, []string{KeyPasswordRequired, KeyPasswordInfo}},
	{"terms", FieldTerms, []string{KeyTermsRequired}},
	{"securityCode", FieldCode, []string{KeyCodeRequired, KeyCodeFormat}},
	{"pin", FieldPIN, []string{KeyPINRequired, KeyPINFormat}},
	{"firstName", FieldFirstName, []string{KeyFirstNameRequired, KeyFirstNameFormat, KeyFirstNameLength}},
	{"lastName", FieldLastName, []string{KeyLastNameRequired, KeyLastNameFormat, KeyLastNameLength}},
	{"dateOfBirth", FieldBirthDate, []string{KeyDateOfBirthRequired, KeyDateOfBirthFormat, KeyDateOfBirthAge}},
	{"driverLicence", FieldDriverLicense, []string{KeyDriverLicenseRequired, KeyDriverLicenseFormat}},
}

// Keys returns every message key of KeyTable once, sorted.
func Keys() []string {
	var keys []string
	for _, r := range KeyTable {
		keys = append(keys, r.Keys...)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
