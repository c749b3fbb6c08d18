package registration

import (
	"errors"
	"net/http"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/brand"
	"guichet/internal/identity"
	"guichet/internal/policy"
	"guichet/internal/rules"
)

// Handler serves the legacy registration calls (routes in
// internal/httpapi/routes.go; Find through account.Handler.Find, which
// dispatches on the payload):
//
//	POST /api/v1/accounts/find                                        Find (registration variant)
//	POST /api/v1/registrations/{id}/validations/{validationId}/{$}    Validate
//	POST /api/v1/registrations/{id}/authentication                    Authentication
//	POST /api/v1/accounts/{id}/create                                 Create
type Handler struct {
	Service *Service
}

type findForm struct {
	PolicyNumber    string `json:"policyNumber"`
	FirstName       string `json:"firstName"`
	LastName        string `json:"lastName"`
	DateOfBirth     string `json:"dateOfBirth"`
	PostalCode      string `json:"postalCode"`
	DriverLicence   string `json:"driverLicence"`
	LicenceProvince string `json:"licenceProvince"`
}

type foundAnswer struct {
	ID                   string   `json:"id"`
	Status               string   `json:"status"`
	TwoFactorValidations []Option `json:"twoFactorValidations"`
	UBIMatchPH           bool     `json:"ubiMatchPH"`
	Email                string   `json:"email"`
}

// statusContinue is the spec's 240 "continue".
const statusContinue = 240

// Find is the registration variant of POST api/v1/accounts/find (spec
// §4.2): 240 {id, status: REGISTRATION, twoFactorValidations, ubiMatchPH,
// email}; 200 {status: REGISTERED}; 404 POLICY_NUMBER_NOT_FOUND; 400
// VALIDATION with the field; 429 RATE_LIMITED.
func (h *Handler) Find(w http.ResponseWriter, r *http.Request) error {
	var f findForm
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	site := api.SiteOf(r)
	m, err := identification(f, site.Brand, site.Province, h.Service.Now())
	if err != nil {
		return validation(err)
	}
	found, err := h.Service.Find(r.Context(), Identification{Match: m, Language: site.Language,
		Province: site.Province, IP: api.ClientIP(r)})
	if err != nil {
		return apiError(err)
	}
	if found.Registered {
		api.JSON(w, http.StatusOK, map[string]string{"status": "REGISTERED"})
		return nil
	}
	api.JSON(w, statusContinue, foundAnswer{ID: found.ID, Status: "REGISTRATION",
		TwoFactorValidations: found.TwoFactorValidations, UBIMatchPH: found.UBIMatchPH, Email: found.Email})
	return nil
}

// identification checks the fields with spec §5's rules: the policy number
// with the brand's format in the site's province, the driver licence only
// where the province has UBI.
func identification(f findForm, b *brand.Brand, province string, today time.Time) (policy.Match, error) {
	format := b.PolicyNumberFormat(province)
	number, err := rules.PolicyNumber(f.PolicyNumber, rules.PolicyFormat{Length: format.Length, Mask: format.Mask})
	if err != nil {
		return policy.Match{}, err
	}
	m := policy.Match{Brand: b.ID, Number: number}
	if m.FirstName, err = rules.FirstName(f.FirstName); err != nil {
		return m, err
	}
	if m.LastName, err = rules.LastName(f.LastName); err != nil {
		return m, err
	}
	if m.DateOfBirth, err = rules.DateOfBirth(f.DateOfBirth, today); err != nil {
		return m, err
	}
	if m.PostalCode, err = rules.PostalCode(f.PostalCode); err != nil {
		return m, err
	}
	if p, ok := b.Province(province); ok && p.UBI && f.DriverLicence != "" {
		if m.DriverLicence, err = rules.DriverLicence(f.DriverLicence, f.LicenceProvince, true); err != nil {
			return m, err
		}
	}
	return m, nil
}

type validationForm struct {
	ValidationValue *string `json:"validationValue"`
}

type sentAnswer struct {
	ID                   string   `json:"id"`
	TwoFactorValidations []Option `json:"twoFactorValidations"`
	ResendsLeft          int      `json:"resendsLeft"`
}

type verifiedAnswer struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

type nextAnswer struct {
	ID                   string   `json:"id"`
	TwoFactorValidations []Option `json:"twoFactorValidations"`
}

// Validate is POST api/v1/registrations/{id}/validations/{validationId}/:
// {} sends or resends the option's code (200 {id, twoFactorValidations,
// resendsLeft}); {validationValue} checks a code, PIN or emailed link's
// token (200 {id, email} or 240 {id, twoFactorValidations: [next]}) or
// submits an email (240 with ask-email-code or ask-password; 202 with
// ask-email-link when the brand proves an email by link: a link went to
// it; 404 EMAIL_ALREADY_EXISTS). Wrong: 400 INVALID_ACTIVATION_CODE with
// triesLeft; 403 EXCEEDED_RETRIES_CODE_ACTIVATION, EXCEEDED_RESENDS (SMS)
// or EXCEEDED_EMAIL_RESENDS (a code by email); 409 REGISTRATION_STATE out
// of order; 404 NOT_FOUND.
func (h *Handler) Validate(w http.ResponseWriter, r *http.Request) error {
	id, err := api.PathID(r, "id")
	if err != nil {
		return err
	}
	var f validationForm
	validationID, err := api.PathAndBody(w, r, "validationId", &f)
	if err != nil {
		return err
	}
	site := api.SiteOf(r)
	v := Validation{Brand: site.Brand.ID, ID: id, ValidationID: validationID, IP: api.ClientIP(r),
		EmailLink: site.Brand.EmailByLink(), BaseURL: account.Origin(r)}
	if f.ValidationValue != nil {
		reg, err := load(r.Context(), h.Service.DB, v.Brand, v.ID)
		if err != nil {
			return apiError(err)
		}
		value, err := normalize(reg, v.ValidationID, *f.ValidationValue)
		if err != nil {
			return validation(err)
		}
		v.Value, v.loaded = &value, &reg
	}
	step, err := h.Service.Validate(r.Context(), v)
	if err != nil {
		return apiError(err)
	}
	switch {
	case step.Sent:
		api.JSON(w, http.StatusOK, sentAnswer{ID: step.ID, TwoFactorValidations: step.Next, ResendsLeft: step.ResendsLeft})
	case step.LinkSent:
		api.JSON(w, http.StatusAccepted, nextAnswer{ID: step.ID, TwoFactorValidations: step.Next})
	case step.Verified:
		api.JSON(w, http.StatusOK, verifiedAnswer{ID: step.ID, Email: step.Email})
	default:
		api.JSON(w, statusContinue, nextAnswer{ID: step.ID, TwoFactorValidations: step.Next})
	}
	return nil
}

// normalize checks a validation value with the rule of its option's
// method: 6 digits for a code, 8 letters or digits for the PIN, an email
// for ask-email and ask-username. A link's token and an unknown option
// pass as given (the service answers them: a token of another shape is a
// wrong one).
func normalize(reg registration, validationID, value string) (string, error) {
	o, _ := reg.option(validationID)
	switch o.Method {
	case identity.MethodEmail, identity.MethodSMS, MethodAskEmailCode:
		return rules.SecurityCode(value)
	case identity.MethodPIN:
		return rules.PIN(value)
	case MethodAskEmail, MethodAskUsername:
		return rules.Email(value)
	}
	return value, nil
}

type passwordForm struct {
	Password string `json:"password"`
	// Asked with an email token (token registrations only).
	DateOfBirth string `json:"dateOfBirth"`
	PostalCode  string `json:"postalCode"`
}

type emailAnswer struct {
	Email string `json:"email"`
}

// Authentication is POST api/v1/registrations/{id}/authentication
// (password-validation), also POST api/v1/accounts/{id}/authentication when
// {id} is a registration (account.Handler dispatches): 200 {email} when the
// password of the policyholder account is right (the driver's policy is
// linked to it); 400 3005 when wrong (a locked account answers the same);
// 403 3007 when it is the account's temporary password (a new one first);
// 409 REGISTRATION_STATE. A token registration also needs dateOfBirth and
// postalCode (400 VALIDATION without; 400 1002 when not the driver's).
func (h *Handler) Authentication(w http.ResponseWriter, r *http.Request) error {
	var f passwordForm
	id, err := api.PathAndBody(w, r, "id", &f)
	if err != nil {
		return err
	}
	password, err := rules.LoginPassword(f.Password)
	if err != nil {
		return validation(err)
	}
	brand := api.SiteOf(r).Brand.ID
	token, err := h.Service.tokenRegistration(r.Context(), brand, id)
	if err != nil {
		return err
	}
	var email string
	if token {
		var dob, postal string
		if dob, err = rules.DateOfBirth(f.DateOfBirth, h.Service.Now()); err != nil {
			return validation(err)
		}
		if postal, err = rules.PostalCode(f.PostalCode); err != nil {
			return validation(err)
		}
		email, err = h.Service.LinkWithToken(r.Context(), brand, id, password, dob, postal, api.ClientIP(r))
	} else {
		email, err = h.Service.Link(r.Context(), brand, id, password, api.ClientIP(r))
	}
	return api.Reply(w, http.StatusOK, emailAnswer{Email: email}, apiError(err))
}

type createForm struct {
	Password             string `json:"password"`
	PasswordConfirmation string `json:"passwordConfirmation"`
	TermsAccepted        bool   `json:"termsAccepted"`
	// The token variant's proof of identity (spec §3 Create-account
	// payload, token flow); ignored for other registrations.
	PostalCode  string `json:"postalCode"`
	DateOfBirth string `json:"dateOfBirth"`
	CellPhone   string `json:"cellPhone"`
}

// Create is POST api/v1/accounts/{id}/create ({id}: the registration id):
// 201 {email}; 400 2002 (password content), 2003 (invalid character), 1003
// (the fifth refusal: login-difficulties), 4001 (the policy record changed
// since verification: the registration closes) or VALIDATION (confirmation,
// terms); 409 REGISTRATION_STATE before a verified code or after another
// create; 429. A token registration (token.go) also takes the postal code
// and date of birth (400 1002 when wrong) or a UBI driver's cell phone (403
// WRONG_CELLPHONE when wrong: the person is locked 24 hours).
func (h *Handler) Create(w http.ResponseWriter, r *http.Request) error {
	var f createForm
	id, err := api.PathAndBody(w, r, "id", &f)
	if err != nil {
		return err
	}
	c := Creation{Brand: api.SiteOf(r).Brand.ID, ID: id, Password: f.Password,
		Confirmation: f.PasswordConfirmation, TermsAccepted: f.TermsAccepted, IP: api.ClientIP(r)}
	token, err := h.Service.tokenRegistration(r.Context(), c.Brand, id)
	if err != nil {
		return err
	}
	var email string
	if token {
		email, err = h.Service.CreateWithToken(r.Context(), TokenCreation{Creation: c, PostalCode: f.PostalCode,
			DateOfBirth: f.DateOfBirth, CellPhone: f.CellPhone})
	} else {
		email, err = h.Service.Create(r.Context(), c)
	}
	return api.Reply(w, http.StatusCreated, emailAnswer{Email: email}, apiError(err))
}

// Spec §8.3 Create codes.
const (
	codePasswordContent  = "2002"
	codeInvalidCharacter = "2003"
)

// validation answers a field that breaks its rule: 400 VALIDATION with
// the rule's key and the field.
func validation(err error) error {
	var re rules.Error
	if !errors.As(err, &re) {
		return err
	}
	return &api.Error{Status: http.StatusBadRequest, Code: "VALIDATION", MessageKey: re.Key, Field: re.Field,
		Fields: map[string]string{re.Field: re.Key}}
}

// answers are the package's domain errors (and account's) with spec §8's
// statuses and codes.
var answers = []api.Answer{
	{Err: ErrNoMatch, Answer: api.NewError(http.StatusNotFound, "POLICY_NUMBER_NOT_FOUND", "identification.notFound")},
	{Err: ErrNotFound, Answer: api.ErrNotFound},
	{Err: ErrState, Answer: api.NewError(http.StatusConflict, "REGISTRATION_STATE", "roadblock.technical")},
	{Err: ErrCodeExceeded, Answer: api.NewError(http.StatusForbidden, "EXCEEDED_RETRIES_CODE_ACTIVATION", "code.validation.exceeded")},
	{Err: ErrResends, Answer: api.NewError(http.StatusForbidden, "EXCEEDED_RESENDS", "roadblock.resendCode")},
	// The resends of a code sent by email are used up (spec §2.6
	// resend-email: too many emails).
	{Err: ErrEmailResends, Answer: api.NewError(http.StatusForbidden, "EXCEEDED_EMAIL_RESENDS", "roadblock.resendEmail")},
	{Err: ErrEmailTaken, Answer: api.NewError(http.StatusNotFound, "EMAIL_ALREADY_EXISTS", "chooseUsername.error")},
	{Err: ErrCreateTries, Answer: api.NewError(http.StatusBadRequest, "1003", "roadblock.loginDifficulties")},
	// Spec §8.3 Create 4001 (client update error): the soft roadblock
	// with lnr500160.
	{Err: ErrRecordChanged, Answer: api.NewError(http.StatusBadRequest, "4001", "softRoadblock.text")},
	{Err: account.ErrWrongPassword, Answer: api.NewError(http.StatusBadRequest, "3005", "login.error")},
	// Spec §8.1's 403 3007 (the forgot-password roadblock): the password
	// given is the policyholder account's valid temporary password, so the
	// account needs a new password before it signs in or takes a linked
	// policy.
	{Err: account.ErrMustReset, Answer: api.NewError(http.StatusForbidden, "3007", "roadblock.forgotPassword")},
	// Email-token registrations (token.go).
	{Err: ErrIdentity, Answer: errSecurityAnswers},
	{Err: account.ErrSecurityAnswers, Answer: errSecurityAnswers},
	{Err: ErrWrongCellphone, Answer: api.NewError(http.StatusForbidden, "WRONG_CELLPHONE", "roadblock.wrongCellphone")},
	account.AnswerDisabled,
	{Err: ErrRateLimited, With: api.Throttled},
	account.AnswerRateLimited,
	account.AnswerBusy,
}

// errSecurityAnswers: a wrong postal code or date of birth of an
// email-token registration, or of the account a policy joins.
var errSecurityAnswers = &api.Error{Status: http.StatusBadRequest, Code: "1002", MessageKey: "login.securityQuestions",
	Fields: map[string]string{rules.FieldPostalCode: "login.securityQuestions"}}

// apiError maps the package's domain errors to the API's, once: a rule's
// error, a wrong code and a password's name what they answer, the rest is
// a lookup.
func apiError(err error) error {
	var wrong *identity.WrongCode
	var pe *PasswordError
	var re rules.Error
	switch {
	case errors.As(err, &re):
		return validation(err)
	case errors.As(err, &wrong):
		left := wrong.TriesLeft
		return &api.Error{Status: http.StatusBadRequest, Code: "INVALID_ACTIVATION_CODE",
			MessageKey: "code.validation.wrong", TriesLeft: &left}
	case errors.As(err, &pe):
		code := codePasswordContent
		if pe.Key == rules.KeyPasswordInvalidCharacter {
			code = codeInvalidCharacter
		}
		return &api.Error{Status: http.StatusBadRequest, Code: code, MessageKey: pe.Key,
			Fields: map[string]string{rules.FieldPassword: pe.Key}}
	}
	return api.Map(err, answers)
}
