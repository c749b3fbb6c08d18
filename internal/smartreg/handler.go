package smartreg

import (
	"context"
	"errors"
	"net/http"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/identity"
	"guichet/internal/rules"
	"guichet/internal/throttle"
)

// Handler serves the smart registration calls; routes.go (internal/httpapi)
// maps each path of api/openapi.yaml's /api/v2 to one method, named after
// the Service call it answers.
type Handler struct {
	Service *Service
}

type stepAnswer struct {
	Step    string    `json:"step"`
	Page    string    `json:"page"`
	Data    *Data     `json:"data,omitempty"`
	Fields  *[]Field  `json:"fields,omitempty"`
	Options *[]Option `json:"options,omitempty"`
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
	body := stepAnswer{Step: res.Step, Page: res.Page, Data: res.Data}
	if res.Fields != nil {
		body.Fields = &res.Fields
	}
	if res.Options != nil {
		body.Options = &res.Options
	}
	api.JSON(w, status, body)
	return nil
}

func call(r *http.Request) Call {
	return Call{Brand: api.SiteOf(r).Brand, Token: r.Header.Get(HeaderSession), IP: api.ClientIP(r)}
}

// get answers a call without a body.
func get(w http.ResponseWriter, r *http.Request, fn func(context.Context, Call) (Result, error)) error {
	res, err := fn(r.Context(), call(r))
	return answer(w, http.StatusOK, res, err)
}

// post decodes the body into a T, then answers fn's result with status.
func post[T any](w http.ResponseWriter, r *http.Request, status int, fn func(context.Context, Call, T) (Result, error)) error {
	var body T
	if err := api.Decode(w, r, &body); err != nil {
		return err
	}
	res, err := fn(r.Context(), call(r), body)
	return answer(w, status, res, err)
}

// Start is GET registration?accountType=policyHolder|insuredDriver.
func (h *Handler) Start(w http.ResponseWriter, r *http.Request) error {
	site := api.SiteOf(r)
	res, err := h.Service.Start(r.Context(), Start{Brand: site.Brand, AccountType: r.URL.Query().Get("accountType"),
		Province: site.Province, Language: site.Language, IP: api.ClientIP(r)})
	return answer(w, http.StatusOK, res, err)
}

// Fields is GET registration/fields (the step endpoint).
func (h *Handler) Fields(w http.ResponseWriter, r *http.Request) error {
	return get(w, r, h.Service.Fields)
}

// Identify is POST registration/identify with the fields' values.
func (h *Handler) Identify(w http.ResponseWriter, r *http.Request) error {
	return post(w, r, http.StatusOK, h.Service.Identify)
}

// Options is GET verify/options.
func (h *Handler) Options(w http.ResponseWriter, r *http.Request) error {
	return get(w, r, h.Service.Options)
}

type sendForm struct {
	OptionID string `json:"optionId"`
}

// Send is POST verify/send {optionId}.
func (h *Handler) Send(w http.ResponseWriter, r *http.Request) error {
	return post(w, r, http.StatusOK, func(ctx context.Context, c Call, f sendForm) (Result, error) {
		return h.Service.Send(ctx, c, f.OptionID)
	})
}

// Resend is GET verify/resend.
func (h *Handler) Resend(w http.ResponseWriter, r *http.Request) error {
	return get(w, r, h.Service.Resend)
}

type verifyForm struct {
	Code string `json:"code"`
}

// Verify is POST registration/verify {code}.
func (h *Handler) Verify(w http.ResponseWriter, r *http.Request) error {
	return post(w, r, http.StatusOK, func(ctx context.Context, c Call, f verifyForm) (Result, error) {
		return h.Service.Verify(ctx, c, f.Code)
	})
}

// ConfirmEmail is POST verify/email {}.
func (h *Handler) ConfirmEmail(w http.ResponseWriter, r *http.Request) error {
	return post(w, r, http.StatusOK, func(ctx context.Context, c Call, _ struct{}) (Result, error) {
		return h.Service.ConfirmEmail(ctx, c)
	})
}

type emailForm struct {
	Email string `json:"email"`
}

// ChooseUsername is POST choose-username {email}.
func (h *Handler) ChooseUsername(w http.ResponseWriter, r *http.Request) error {
	return post(w, r, http.StatusOK, func(ctx context.Context, c Call, f emailForm) (Result, error) {
		return h.Service.ChooseUsername(ctx, c, f.Email)
	})
}

type createForm struct {
	Password             string `json:"password"`
	PasswordConfirmation string `json:"passwordConfirmation"`
	TermsAccepted        bool   `json:"termsAccepted"`
}

// Create is POST create {password, passwordConfirmation, termsAccepted}: 201.
func (h *Handler) Create(w http.ResponseWriter, r *http.Request) error {
	return post(w, r, http.StatusCreated, func(ctx context.Context, c Call, f createForm) (Result, error) {
		return h.Service.Create(ctx, c, Creation{Password: f.Password, Confirmation: f.PasswordConfirmation,
			TermsAccepted: f.TermsAccepted})
	})
}

// AccountInfo is GET account-info.
func (h *Handler) AccountInfo(w http.ResponseWriter, r *http.Request) error {
	return get(w, r, h.Service.AccountInfo)
}

// Back is GET back.
func (h *Handler) Back(w http.ResponseWriter, r *http.Request) error {
	return get(w, r, h.Service.Back)
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
	var wrong *identity.WrongCode
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
		return refusal("POLICY_NUMBER_NOT_FOUND", "no policy matches", "moreInfo.error")
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
