package brand

import (
	"maps"
	"slices"
)

// SmartRegistration is the brand's smart registration configuration
// (issue 15): the identification questions per account type and province,
// so an insurer changes them without a front-end release.
type SmartRegistration struct {
	// Identification maps an account type (AccountTypes) to a province key
	// or "default" to the ordered field names (IdentificationFields).
	Identification map[string]map[string][]string `yaml:"identification"`
	// PinRoadblock is where a PIN used up (too many wrong tries, or
	// expired) leads (spec §4.1: pin-identification for one brand,
	// identity-verification, as a used-up code, for the others);
	// empty: RoadblockIdentityVerification.
	PinRoadblock string `yaml:"pinRoadblock"`
}

// The roadblocks a smart registration PIN used up may lead to (spec §4.1).
const (
	RoadblockIdentityVerification = "identity-verification"
	RoadblockPinIdentification    = "pin-identification"
)

// SmartPinRoadblock is the roadblock of a smart registration PIN used up:
// the brand file's smartRegistration.pinRoadblock, else the spec's default
// for all brands but one, identity-verification.
func (b *Brand) SmartPinRoadblock() string {
	if b.SmartRegistration == nil || b.SmartRegistration.PinRoadblock == "" {
		return RoadblockIdentityVerification
	}
	return b.SmartRegistration.PinRoadblock
}

// Account types of smart registration.
const (
	AccountPolicyHolder  = "policyHolder"
	AccountInsuredDriver = "insuredDriver"
)

// AccountTypes are the account types of the account-type page.
var AccountTypes = []string{AccountPolicyHolder, AccountInsuredDriver}

// IdentificationFields is the catalogue of identification fields the server
// can validate (spec §5 rules) and match against the policy records.
var IdentificationFields = []string{"policyNumber", "firstName", "lastName", "dateOfBirth", "postalCode",
	"driverLicence", "email", "phone"}

// requiredIdentification are the fields every list holds: the policy number
// and enough of the person to tell two insured people of a policy apart.
var requiredIdentification = []string{"policyNumber", "lastName", "dateOfBirth"}

// SmartIdentification returns the identification fields the brand file lists
// for the account type in the province (else under "default"); false when it
// lists none (the caller's default applies).
func (b *Brand) SmartIdentification(accountType, province string) ([]string, bool) {
	if b.SmartRegistration == nil {
		return nil, false
	}
	byProvince := b.SmartRegistration.Identification[accountType]
	if f, ok := byProvince[asciiLower(province)]; ok {
		return f, true
	}
	f, ok := byProvince["default"]
	return f, ok
}

func validateSmartRegistration(ps *problems, s *SmartRegistration, provinces map[string]*Province) {
	if s == nil {
		return
	}
	if r := s.PinRoadblock; r != "" && r != RoadblockIdentityVerification && r != RoadblockPinIdentification {
		ps.add("smartRegistration.pinRoadblock", "%q is neither %s nor %s", r, RoadblockIdentityVerification, RoadblockPinIdentification)
	}
	for _, accountType := range slices.Sorted(maps.Keys(s.Identification)) {
		field := "smartRegistration.identification." + accountType
		if !slices.Contains(AccountTypes, accountType) {
			ps.add(field, "%q is not an account type (%v)", accountType, AccountTypes)
		}
		byProvince := s.Identification[accountType]
		for _, key := range slices.Sorted(maps.Keys(byProvince)) {
			f := field + "." + key
			if key != "default" && provinces[key] == nil {
				ps.add(f, "%q is neither one of this brand's provinces nor default", key)
			}
			seen := map[string]bool{}
			for _, name := range byProvince[key] {
				switch {
				case !slices.Contains(IdentificationFields, name):
					ps.add(f, "%q is not a known field (%v)", name, IdentificationFields)
				case seen[name]:
					ps.add(f, "%q is listed twice", name)
				}
				seen[name] = true
			}
			for _, name := range requiredIdentification {
				if !seen[name] {
					ps.add(f, "must list %q (every list holds %v)", name, requiredIdentification)
				}
			}
		}
	}
}
