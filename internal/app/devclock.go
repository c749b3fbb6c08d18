package app

import (
	"net/http"
	"sync/atomic"
	"time"

	"guichet/internal/api"
)

// movableClock is the one clock of a --dev server: the real time (or
// GUICHET_DEV_NOW's instant running on), plus whatever POST /_dev/clock
// added. A browser test of an expiry (a registration session, a code's
// lifetime) moves it instead of waiting; it never goes back.
type movableClock struct {
	base   func() time.Time
	offset atomic.Int64 // nanoseconds added by Advance
}

// Now is the clock's time; it is what every service of the server reads.
func (c *movableClock) Now() time.Time { return c.base().Add(time.Duration(c.offset.Load())) }

// Advance moves the clock forward by d.
func (c *movableClock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// maxDevAdvance bounds one move of the dev clock: a year is past every
// lifetime the portal has (codes, sessions, locks, audit retention is
// months and is tried with its own flag).
const maxDevAdvance = 366 * 24 * time.Hour

var errBadAdvance = api.NewError(http.StatusBadRequest, "BAD_ADVANCE", "error.badRequest")

// ServeHTTP answers GET /_dev/clock with the clock's time and POST
// /_dev/clock {"advance":"6s"} by moving it forward (a Go duration, more
// than 0 and at most a year), answering the new time.
func (c *movableClock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	api.Handler(func(w http.ResponseWriter, r *http.Request) error {
		if r.Method == http.MethodPost {
			var body struct {
				Advance string `json:"advance"`
			}
			if err := api.Decode(w, r, &body); err != nil {
				return err
			}
			d, err := time.ParseDuration(body.Advance)
			if err != nil || d <= 0 || d > maxDevAdvance {
				return errBadAdvance
			}
			c.Advance(d)
		}
		api.JSON(w, http.StatusOK, map[string]string{"now": c.Now().UTC().Format(time.RFC3339Nano)})
		return nil
	}).ServeHTTP(w, r)
}
