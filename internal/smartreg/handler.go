package smartreg

import (
	"errors"
	"net/http"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/rules"
	"guichet/internal/throttle"
)

// Handler serves the smart registration calls (routes in
// internal/httpapi/routes.go, contract in api/openapi.yaml):
//
//	GET  /api/v2/registration             Start
//	GET  /api/v2/registration/fields      Fields (the step endpoint)
//	POST /api/v2/registration/identify    Identify
//	GET  /api/v2/verify/options           Options
//	POST /api/v2/verify/send              Send
//	GET  /api/v2/verify/resend            Resend
//	POST /api/v2/registration/verify      Verify
//	POST /api/v2/verify/email             ConfirmEmail
//	POST /api/v2/choose-username          ChooseUsername
//	POST /api/v2/create                   Create
//	GET  /api/v2/account-info             AccountInfo
//	GET  /api/v2/back                     Back
type Handler struct {
	Service *Service
}

type stepAnswer struct {
	Step    string   `json:"step"`
	Page    string   `json:"page"`
	Data    *Data    `json:"data,omitempty"`
	Fields  []Field  `json:"fields,omitempty"`
	Options []Option `json:"options,omitempty"`
}

// answer writes a result: the token header whenever the session lives
// (refusals of its own step included), then the body or the refusal.
func answer(w http.ResponseWriter, status int, res Result, err error) error {
	if res.Token != "" {
		w.Header().Set(HeaderSession, res.Token)
	}
	if err != nil {
		return apiError(err)
	}
	body := stepAnswer{Step: res.Step, Page: res.Page, Data: res.Data, Fields: res.Fields, Options: res.Options}
	if res.Fields != nil && body.Fields == nil {
		body.Fields = []Field{}
	}
	api.JSON(w, status, body)
	return nil
}

func call(r *http.Request) Call {
	return Call{Brand: api.SiteOf(r).Brand, Token: r.Header.Get(HeaderSession), IP: api.ClientIP(r)}
}

// Start is GET registration?accountType=policyHolder|insuredDriver.
func (h *Handler) Start(w http.ResponseWriter, r *http.Request) error {
	site := api.SiteOf(r)
	res, err := h.Service.Start(r.Context(), Start{Brand: site.Brand, AccountType: r.URL.Query().Get("accountType"),
		Province: site.Province, Language: site.Language, IP: api.ClientIP(r)})
	return answer(w, http.StatusOK, res, err)
}

// Fields is GET registration/fields.
func (h *Handler) Fields(w http.ResponseWriter, r *http.Request) error {
	res, err := h.Service.Fields(r.Context(), call(r))
	if err == nil && res.Fields == nil {
		res.Fields = []Field{}
	}
	return answer(w, http.StatusOK, res, err)
}

// Identify is POST registration/identify with the fields' values.
func (h *Handler) Identify(w http.ResponseWriter, r *http.Request) error {
	var typed map[string]string
	if err := api.Decode(w, r, &typed); err != nil {
		return err
	}
	res, err := h.Service.Identify(r.Context(), call(r), typed)
	return answer(w, http.StatusOK, res, err)
}

// Options is GET verify/options.
func (h *Handler) Options(w http.ResponseWriter, r *http.Request) error {
	res, err := h.Service.Options(r.Context(), call(r))
	if err == nil {
		if res.Options == nil {
			res.Options = []Option{}
		}
		if res.Token != "" {
			w.Header().Set(HeaderSession, res.Token)
		}
		api.JSON(w, http.StatusOK, struct {
			Step    string   `json:"step"`
			Page    string   `json:"page"`
			Options []Option `json:"options"`
		}{res.Step, res.Page, res.Options})
		return nil
	}
	return answer(w, http.StatusOK, res, err)
}

// Send is POST verify/send {optionId}.
func (h *Handler) Send(w http.ResponseWriter, r *http.Request) error {
	var f struct {
		OptionID string `json:"optionId"`
	}
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	res, err := h.Service.Send(r.Context(), call(r), f.OptionID)
	return answer(w, http.StatusOK, res, err)
}

// Resend is GET verify/resend.
func (h *Handler) Resend(w http.ResponseWriter, r *http.Request) error {
	res, err := h.Service.Resend(r.Context(), call(r))
	return answer(w, http.StatusOK, res, err)
}

// Verify is POST registration/verify {code}.
func (h *Handler) Verify(w http.ResponseWriter, r *http.Request) error {
	var f struct {
		Code string `json:"code"`
	}
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	res, err := h.Service.Verify(r.Context(), call(r), f.Code)
	return answer(w, http.StatusOK, res, err)
}

// ConfirmEmail is POST verify/email {}.
func (h *Handler) ConfirmEmail(w http.ResponseWriter, r *http.Request) error {
	var f struct{}
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	res, err := h.Service.ConfirmEmail(r.Context(), call(r))
	return answer(w, http.StatusOK, res, err)
}

// ChooseUsername is POST choose-username {email}.
func (h *Handler) ChooseUsername(w http.ResponseWriter, r *http.Request) error {
	var f struct {
		Email string `json:"email"`
	}
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	res, err := h.Service.ChooseUsername(r.Context(), call(r), f.Email)
	return answer(w, http.StatusOK, res, err)
}

// Create is POST create {password, passwordConfirmation, termsAccepted}: 201.
func (h *Handler) Create(w http.ResponseWriter, r *http.Request) error {
	var f struct {
		Password             string `json:"password"`
		PasswordConfirmation string `json:"passwordConfirmation"`
		TermsAccepted        bool   `json:"termsAccepted"`
	}
	if err := api.Decode(w, r, &f); err != nil {
		return err
	}
	res, err := h.Service.Create(r.Context(), call(r), Creation{Password: f.Password,
		Confirmation: f.PasswordConfirmation, TermsAccepted: f.TermsAccepted})
	return answer(w, http.StatusCreated, res, err)
}

// AccountInfo is GET account-info.
func (h *Handler) AccountInfo(w http.ResponseWriter, r *http.Request) error {
	res, err := h.Service.AccountInfo(r.Context(), call(r))
	return answer(w, http.StatusOK, res, err)
}

// Back is GET back.
func (h *Handler) Back(w http.ResponseWriter, r *http.Request) error {
	res, err := h.Service.Back(r.Context(), call(r))
	return answer(w, http.StatusOK, res, err)
}

// Refusal is the body of every 400 of api/v2 (spec §8.1 smart client,
// §8.2): error is what the smart client reads; errorCode repeats it and
// messageKey names the message, as the v1 shape does.
type Refusal struct {
	Status     int               `json:"-"`
	Code       string            `json:"error"`
	Message    string            `json:"message"`
	ErrorCode  string            `json:"errorCode"`
	MessageKey string            `json:"messageKey,omitempty"`
	Fields     map[string]string `json:"fields,omitempty"`
	TriesLeft  *int              `json:"triesLeft,omitempty"`
}

func (e *Refusal) Error() string { return e.Code + ": " + e.Message }

func refusal(code, message, key string) *Refusal {
	return &Refusal{Status: http.StatusBadRequest, Code: code, Message: message, ErrorCode: code, MessageKey: key}
}

// Wrap writes a Refusal, else defers to api.WriteError; the routes
// of this package are api.Handlers wrapped by Wrap.
func Wrap(h api.Handler) api.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		err := h(w, r)
		var ref *Refusal
		if errors.As(err, &ref) {
			api.JSON(w, ref.Status, ref)
			return nil
		}
		return err
	}
}

// apiError maps the package's domain errors to the API's answers, once.
func apiError(err error) error {
	var wrong *WrongCode
	var re rules.Error
	switch {
	case errors.Is(err, ErrInvalidToken), errors.Is(err, ErrExpired), errors.Is(err, ErrNoSession):
		return refusal("invalid-token", err.Error(), "error.sessionExpired")
	case errors.Is(err, ErrStepNotAllowed):
		return refusal("STEP_NOT_ALLOWED", "call not allowed in this step", "error.technical")
	case errors.As(err, &wrong):
		ref := refusal("INVALID_ACTIVATION_CODE", "wrong code", "securityCode.wrong")
		left := wrong.TriesLeft
		ref.TriesLeft = &left
		return ref
	case errors.Is(err, ErrPasswordPolicy):
		ref := refusal("PASSWORD_POLICY_VIOLATION", "the password contains the email", rules.KeyPasswordContainsEmail)
		ref.Fields = map[string]string{rules.FieldPassword: rules.KeyPasswordContainsEmail}
		return ref
	case errors.As(err, &re):
		ref := refusal("VALIDATION", "a field breaks its rule", re.Key)
		ref.Fields = map[string]string{re.Field: re.Key}
		return ref
	case errors.Is(err, ErrNotFound):
		return refusal("POLICY_NUMBER_NOT_FOUND", "no policy matches", "moreInfo.error.8")
	case errors.Is(err, ErrUnableToIdentify):
		return refusal("UNABLE_TO_IDENTIFY", "unable to identify", "roadblock.unableToIdentify")
	case errors.Is(err, ErrAccountExists):
		return refusal("ACCOUNT_ALREADY_EXISTS", "an account exists", "smartRegistration.accountExists")
	case errors.Is(err, ErrCodeExceeded):
		return refusal("EXCEEDED_RETRIES_CODE_ACTIVATION", "too many wrong codes", "roadblock.identityVerification")
	case errors.Is(err, ErrResends):
		return refusal("EXCEEDED_RESENDS", "resend limit reached", "roadblock.resendCode")
	case errors.Is(err, ErrEmailTaken):
		return refusal("EMAIL_ALREADY_EXISTS", "email already used", "chooseUsername.error")
	case errors.Is(err, ErrEmailUpdate):
		return refusal("EMAIL_UPDATE_FAILED", "the policy record could not be updated", "lnr500160")
	case errors.Is(err, ErrRateLimited):
		return api.TooManyRequests(throttle.RetryAfter(err))
	case errors.Is(err, account.ErrBusy):
		return account.BusyAnswer(err)
	}
	return err
}
