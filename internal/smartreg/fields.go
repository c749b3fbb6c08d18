package smartreg

import (
	"context"
	"errors"
	"strings"
	"time"

	"guichet/internal/account"
	"guichet/internal/brand"
	"guichet/internal/policy"
	"guichet/internal/rules"
)

// Field is one identification field the SPA builds its form from.
type Field struct {
	Name     string        `json:"name"`
	Type     string        `json:"type"`
	Required bool          `json:"required"`
	LabelKey string        `json:"labelKey"`
	Mask     string        `json:"mask"`
	Rules    FieldRules    `json:"rules"`
	Options  []FieldOption `json:"options,omitempty"`
}

// FieldRules are the length and pattern the browser checks (the server
// checks spec §5's rules again).
type FieldRules struct {
	MinLength int    `json:"minLength"`
	MaxLength int    `json:"maxLength"`
	Pattern   string `json:"pattern,omitempty"`
}

// FieldOption is one choice of a select field.
type FieldOption struct {
	Value    string `json:"value"`
	LabelKey string `json:"labelKey"`
}

// defaultFields are the legacy identification's fields (spec §2.4), the
// driver licence where the province has UBI (optional, as legacy).
func defaultFields(b *brand.Brand, province string) []string {
	names := []string{"policyNumber", "firstName", "lastName", "dateOfBirth", "postalCode"}
	if p, ok := b.Province(province); ok && p.UBI {
		names = append(names, "driverLicence")
	}
	return names
}

// fieldNames is the session's list: the brand file's, else the default;
// configured is false for the default.
func fieldNames(b *brand.Brand, accountType, province string) (names []string, configured bool) {
	if f, ok := b.SmartIdentification(accountType, province); ok {
		return f, true
	}
	return defaultFields(b, province), false
}

// fields describes the named fields for the brand in the province.
func fields(b *brand.Brand, accountType, province string) []Field {
	names, configured := fieldNames(b, accountType, province)
	out := make([]Field, 0, len(names))
	for _, name := range names {
		f := Field{Name: name, Type: "text", Required: true, LabelKey: "smartRegistration.field." + name}
		switch name {
		case "policyNumber":
			format := b.PolicyNumberFormat(province)
			f.Mask = format.Mask
			f.Rules = FieldRules{MinLength: format.Length, MaxLength: max(len(format.Mask), format.Length)}
		case "firstName", "lastName":
			f.Rules = FieldRules{MinLength: rules.NameMinLength, MaxLength: rules.NameMaxLength}
		case "dateOfBirth":
			f.Type, f.Mask = "date", "9999-99-99"
			f.Rules = FieldRules{MinLength: 10, MaxLength: 10, Pattern: `^\d{4}-\d{2}-\d{2}$`}
		case "postalCode":
			f.Mask = "A9A 9A9"
			f.Rules = FieldRules{MinLength: 6, MaxLength: 7, Pattern: `^[A-Za-z]\d[A-Za-z] ?\d[A-Za-z]\d$`}
		case "driverLicence":
			f.Required = configured
			f.Mask, _ = b.DriverLicenceMask(province)
			f.Rules = FieldRules{MinLength: 1, MaxLength: rules.DriverLicenceMaxLength + 10}
		case "email":
			f.Type = "email"
			f.Rules = FieldRules{MinLength: 3, MaxLength: rules.EmailMaxLength}
		case "phone":
			f.Type, f.Mask = "tel", "999-999-9999"
			f.Rules = FieldRules{MinLength: rules.PhoneDigits, MaxLength: 14}
		}
		out = append(out, f)
	}
	return out
}

// given is an identification once every field passed its rule.
type given struct {
	number string
	values map[string]string // normalised, by field name; "" when not typed (optional)
}

// identification checks the typed values against the session's list with
// spec §5's rules: a value for a field the list does not hold is refused
// like a broken rule.
func identification(b *brand.Brand, accountType, province string, typed map[string]string, today time.Time) (given, error) {
	names, configured := fieldNames(b, accountType, province)
	listed := map[string]bool{}
	for _, n := range names {
		listed[n] = true
	}
	for name := range typed {
		if !listed[name] {
			if len(name) > 40 {
				name = "unknown" // not echoed back at any length
			}
			return given{}, rules.Error{Field: name, Key: keyUnknownField}
		}
	}
	g := given{values: map[string]string{}}
	for _, name := range names {
		v := typed[name]
		var err error
		switch name {
		case "policyNumber":
			format := b.PolicyNumberFormat(province)
			g.number, err = rules.PolicyNumber(v, rules.PolicyFormat{Length: format.Length, Mask: format.Mask})
			v = g.number
		case "firstName":
			v, err = rules.FirstName(v)
		case "lastName":
			v, err = rules.LastName(v)
		case "dateOfBirth":
			v, err = rules.DateOfBirth(v, today)
		case "postalCode":
			v, err = rules.PostalCode(v)
		case "driverLicence":
			if v != "" || configured {
				v, err = rules.DriverLicence(v, province, true)
			}
		case "email":
			v, err = rules.Email(v)
		case "phone":
			v, err = rules.Phone(v, true)
		}
		var re rules.Error
		if errors.As(err, &re) {
			// The field as the form names it (the rule's may differ).
			return given{}, rules.Error{Field: name, Key: re.Key}
		}
		if err != nil {
			return given{}, err
		}
		g.values[name] = v
	}
	return g, nil
}

// keyUnknownField is the rule key of a value for a field not asked.
const keyUnknownField = "errorUnknownField"

// matches reports whether the person's record agrees with every value
// given: names as policy.Find compares them (policy.NameKey), a licence
// only when one is on file (as policy.Find), an email or phone given must
// be the one on file.
func (g given) matches(p policy.Person) bool {
	for name, v := range g.values {
		switch name {
		case "firstName":
			if policy.NameKey(v) != policy.NameKey(p.FirstName) {
				return false
			}
		case "lastName":
			if policy.NameKey(v) != policy.NameKey(p.LastName) {
				return false
			}
		case "dateOfBirth":
			if v != p.DateOfBirth {
				return false
			}
		case "postalCode":
			if v != p.PostalCode {
				return false
			}
		case "driverLicence":
			if v != "" && p.DriverLicence != "" && !strings.EqualFold(v, p.DriverLicence) {
				return false
			}
		case "email":
			if p.Email == "" || account.NormalizeEmail(v) != account.NormalizeEmail(p.Email) {
				return false
			}
		case "phone":
			if p.CellPhone == "" || v != p.CellPhone {
				return false
			}
		}
	}
	return true
}

// find returns the person of the brand's active policy numbered g.number
// whom every value matches, in role when one is wanted, else anyone (a
// holder first); policyFound tells whether the number names an active
// policy at all (audited only: the answer is the same).
func (g given) find(ctx context.Context, q policy.Reader, brandID string) (p policy.Person, ok, policyFound bool, err error) {
	people, err := policy.People(ctx, q, brandID, g.number)
	if err != nil {
		return policy.Person{}, false, false, err
	}
	for _, p := range people {
		if g.matches(p) {
			return p, true, true, nil
		}
	}
	return policy.Person{}, false, len(people) > 0, nil
}
