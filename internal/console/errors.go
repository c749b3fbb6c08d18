package console

import (
	"errors"
	"net/http"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/emailtoken"
	"guichet/internal/maintenance"
	"guichet/internal/oidc"
	"guichet/internal/staff"
)

// The console's error answers.
var (
	errNotFound = api.NewError(http.StatusNotFound, "NOT_FOUND", "console.error.notFound")
	errTooLarge = api.NewError(http.StatusRequestEntityTooLarge, "TOO_LARGE", "console.import.tooLarge")
)

// clientFields are the JSON names of oidc.InvalidError's fields (the
// CLI's flag names).
var clientFields = map[string]string{"name": "name", "type": "type", "redirect-uri": "redirectUris",
	"backchannel-logout-uri": "backchannelLogoutUri", "signing-alg": "signingAlg"}

// validation is a 400 VALIDATION naming the field.
func validation(field, key string) *api.Error {
	e := api.NewError(http.StatusBadRequest, "VALIDATION", key)
	e.Fields = map[string]string{field: key}
	return e
}

// answers are the console's domain errors (the Service's and those of the
// owners it calls) as the API answers them.
var answers = []api.Answer{
	{Err: ErrSignInRequired, Answer: staff.ErrSignInRequired},
	{Err: ErrReauthRequired, Answer: staff.ErrReauthRequired},
	{Err: ErrForbiddenRole, Answer: api.NewError(http.StatusForbidden, "FORBIDDEN_ROLE", "console.error.forbiddenRole")},
	{Err: ErrForbiddenBrand, Answer: api.NewError(http.StatusForbidden, "FORBIDDEN_BRAND", "console.error.forbiddenBrand")},
	{Err: ErrNotFound, Answer: errNotFound},
	{Err: account.ErrNotFound, Answer: errNotFound},
	{Err: ErrSelf, Answer: api.NewError(http.StatusConflict, "STAFF_SELF", "console.staff.self")},
	{Err: account.ErrRateLimited, Answer: api.NewError(http.StatusTooManyRequests, "RATE_LIMITED", "console.error.rateLimited")},
	{Err: emailtoken.ErrNoPerson, Answer: api.NewError(http.StatusNotFound, "POLICY_NUMBER_NOT_FOUND", "console.invitation.noPerson")},
	{Err: emailtoken.ErrInactive, Answer: api.NewError(http.StatusConflict, "POLICY_INACTIVE", "console.invitation.inactive")},
	{Err: emailtoken.ErrSource, Answer: validation("source", "console.invitation.source")},
	{Err: maintenance.ErrEveryBrandOn, Answer: api.NewError(http.StatusConflict, "MAINTENANCE_EVERY_BRAND", "console.maintenance.everyBrand")},
	{Err: staff.ErrExists, Answer: api.NewError(http.StatusConflict, "STAFF_EXISTS", "console.staff.exists")},
	{Err: staff.ErrInvalid, Answer: validation("staff", "console.staff.invalid")},
	{Err: oidc.ErrUnknownClient, Answer: errNotFound},
	{Err: oidc.ErrUnknownBrand, Answer: validation("brand", "console.clients.invalid.brand")},
}

// apiError maps the console's domain errors to their answers, once: the
// field errors (which wrap nothing) name their field, the rest is a
// lookup; nil stays nil and any other error is left for api.Handler (500).
func apiError(err error) error {
	var invalid *ValidationError
	var tokenInvalid *emailtoken.InvalidError
	var clientInvalid *oidc.InvalidError
	switch {
	case errors.As(err, &invalid):
		return validation(invalid.Field, invalid.Key)
	case errors.As(err, &tokenInvalid):
		field := tokenInvalid.Field
		if field == "policy_number" {
			field = "policyNumber"
		}
		return validation(field, "console.invitation."+field)
	case errors.As(err, &clientInvalid):
		field := clientFields[clientInvalid.Field]
		if field == "" {
			field = "client"
		}
		return validation(field, "console.clients.invalid."+field)
	}
	return api.Map(err, answers)
}
