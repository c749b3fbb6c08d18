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
	errForbiddenRole  = api.NewError(http.StatusForbidden, "FORBIDDEN_ROLE", "console.error.forbiddenRole")
	errForbiddenBrand = api.NewError(http.StatusForbidden, "FORBIDDEN_BRAND", "console.error.forbiddenBrand")
	errNotFound       = api.NewError(http.StatusNotFound, "NOT_FOUND", "console.error.notFound")
	errRateLimited    = api.NewError(http.StatusTooManyRequests, "RATE_LIMITED", "console.error.rateLimited")
	errNoPolicy       = api.NewError(http.StatusNotFound, "POLICY_NUMBER_NOT_FOUND", "console.invitation.noPerson")
	errInactive       = api.NewError(http.StatusConflict, "POLICY_INACTIVE", "console.invitation.inactive")
	errTooLarge       = api.NewError(http.StatusRequestEntityTooLarge, "TOO_LARGE", "console.import.tooLarge")
	errEveryBrandOn   = api.NewError(http.StatusConflict, "MAINTENANCE_EVERY_BRAND", "console.maintenance.everyBrand")
	errStaffExists    = api.NewError(http.StatusConflict, "STAFF_EXISTS", "console.staff.exists")
	errSelf           = api.NewError(http.StatusConflict, "STAFF_SELF", "console.staff.self")
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

// apiError maps the console's domain errors (the Service's and those of
// the owners it calls) to their answers, once; nil stays nil and any other
// error is left for api.Handler (500).
func apiError(err error) error {
	var invalid *ValidationError
	var tokenInvalid *emailtoken.InvalidError
	var clientInvalid *oidc.InvalidError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrSignInRequired):
		return staff.ErrSignInRequired
	case errors.Is(err, ErrReauthRequired):
		return staff.ErrReauthRequired
	case errors.Is(err, ErrForbiddenRole):
		return errForbiddenRole
	case errors.Is(err, ErrForbiddenBrand):
		return errForbiddenBrand
	case errors.Is(err, ErrNotFound), errors.Is(err, account.ErrNotFound):
		return errNotFound
	case errors.Is(err, ErrSelf):
		return errSelf
	case errors.As(err, &invalid):
		return validation(invalid.Field, invalid.Key)
	case errors.Is(err, account.ErrRateLimited):
		return errRateLimited
	case errors.Is(err, emailtoken.ErrNoPerson):
		return errNoPolicy
	case errors.Is(err, emailtoken.ErrInactive):
		return errInactive
	case errors.Is(err, emailtoken.ErrSource):
		return validation("source", "console.invitation.source")
	case errors.As(err, &tokenInvalid):
		field := tokenInvalid.Field
		if field == "policy_number" {
			field = "policyNumber"
		}
		return validation(field, "console.invitation."+field)
	case errors.Is(err, maintenance.ErrEveryBrandOn):
		return errEveryBrandOn
	case errors.Is(err, staff.ErrExists):
		return errStaffExists
	case errors.Is(err, staff.ErrInvalid):
		return validation("staff", "console.staff.invalid")
	case errors.Is(err, oidc.ErrUnknownClient):
		return errNotFound
	case errors.Is(err, oidc.ErrUnknownBrand):
		return validation("brand", "console.clients.invalid.brand")
	case errors.As(err, &clientInvalid):
		field := clientFields[clientInvalid.Field]
		if field == "" {
			field = "client"
		}
		return validation(field, "console.clients.invalid."+field)
	}
	return err
}
