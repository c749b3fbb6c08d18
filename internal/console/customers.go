package console

import (
	"context"
	"net/http"
	"strings"
	"time"

	"guichet/internal/account"
	"guichet/internal/api"
	"guichet/internal/audit"
	"guichet/internal/policy"
	"guichet/internal/staff"
	"guichet/internal/store"
)

// customerJSON is a customer in a list: who, and whether they can sign in.
type customerJSON struct {
	ID       string `json:"id"`
	Brand    string `json:"brand"`
	Email    string `json:"email"`
	Name     string `json:"name"`
	Status   string `json:"status"`
	Locked   bool   `json:"locked"`
	Disabled bool   `json:"disabled"`
}

func customerOf(a account.Account, now time.Time) customerJSON {
	return customerJSON{ID: a.ID, Brand: a.Brand, Email: a.Email,
		Name:   strings.TrimSpace(a.FirstName + " " + a.LastName),
		Status: string(a.Status), Locked: a.Status == account.Locked || now.Before(a.LockedUntil),
		Disabled: !a.DisabledAt.IsZero()}
}

// searchLimit bounds a search's answer.
const searchLimit = 50

// Search is GET /api/console/v1/customers?q=&brand=: the customers whose
// email starts with q, whose first, last or full name starts with q, who
// hold the policy numbered q or whose phone is q, within the brands the
// staff member serves (and brand, when given). 400 VALIDATION for a q
// shorter than 2 characters.
func (h *Handler) Search(w http.ResponseWriter, r *http.Request) error {
	p, err := h.call(r, staff.RoleAgent, false)
	if err != nil {
		return err
	}
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if len([]rune(q)) < 2 || len(q) > 254 {
		return validation("q", "console.search.tooShort")
	}
	brands := p.Brands
	if b := r.URL.Query().Get("brand"); b != "" {
		if !p.Serves(b) {
			api.JSON(w, http.StatusOK, map[string]any{"customers": []customerJSON{}})
			return nil
		}
		brands = []string{b}
	}
	found, err := search(r.Context(), h.DB, q, brands)
	if err != nil {
		return err
	}
	now := h.Now()
	out := make([]customerJSON, 0, len(found))
	for _, a := range found {
		out = append(out, customerOf(a, now))
	}
	api.JSON(w, http.StatusOK, map[string]any{"customers": out})
	return nil
}

// likePrefix is a LIKE pattern matching what starts with s.
func likePrefix(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(strings.ToLower(s)) + "%"
}

// phoneDigits is q as a 10-digit phone number, or "" when it is not one.
func phoneDigits(q string) string {
	var d []byte
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case c >= '0' && c <= '9':
			d = append(d, c)
		case c == ' ' || c == '-' || c == '(' || c == ')' || c == '.' || c == '+':
		default:
			return ""
		}
	}
	if len(d) == 11 && d[0] == '1' {
		d = d[1:]
	}
	if len(d) != 10 {
		return ""
	}
	return string(d)
}

func search(ctx context.Context, db *store.DB, q string, brands []string) ([]account.Account, error) {
	like := likePrefix(q)
	phone := phoneDigits(q)
	number := policy.NormalizeNumber(q)
	where := `(email_normalized LIKE ? ESCAPE '\' OR LOWER(first_name) LIKE ? ESCAPE '\'
		OR LOWER(last_name) LIKE ? ESCAPE '\' OR LOWER(first_name || ' ' || last_name) LIKE ? ESCAPE '\'
		OR id IN (SELECT ap.account_id FROM account_policies ap JOIN policies p ON p.id = ap.policy_id WHERE p.number = ?)`
	args := []any{like, like, like, like, number}
	if phone != "" {
		where += " OR phone = ?"
		args = append(args, phone)
	}
	where += ")"
	if len(brands) > 0 {
		where += " AND brand IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(brands)), ", ") + ")"
		for _, b := range brands {
			args = append(args, b)
		}
	}
	rows, err := db.Query(ctx, "SELECT id, brand FROM accounts WHERE "+where+
		" ORDER BY email_normalized, brand LIMIT ?", append(args, searchLimit)...)
	if err != nil {
		return nil, err
	}
	type key struct{ id, brand string }
	var keys []key
	for rows.Next() {
		var k key
		if err := rows.Scan(&k.id, &k.brand); err != nil {
			rows.Close()
			return nil, err
		}
		keys = append(keys, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]account.Account, 0, len(keys))
	for _, k := range keys {
		a, err := account.ByID(ctx, db, k.brand, k.id)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

type policyJSON struct {
	Number string `json:"number"`
	Kind   string `json:"kind"`
	Role   string `json:"role"`
}

type registrationJSON struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
}

type eventJSON struct {
	At      time.Time `json:"at"`
	Event   string    `json:"event"`
	Outcome string    `json:"outcome"`
	Detail  string    `json:"detail"`
	Actor   string    `json:"actor"`
	IP      string    `json:"ip"`
}

type detailJSON struct {
	customerJSON
	Language           string             `json:"language"`
	Phone              string             `json:"phone"`
	CreatedAt          time.Time          `json:"createdAt"`
	LockedUntil        *time.Time         `json:"lockedUntil"`
	DisabledAt         *time.Time         `json:"disabledAt"`
	TemporaryExpiresAt *time.Time         `json:"temporaryExpiresAt"`
	FailedAttempts     int                `json:"failedAttempts"`
	Policies           []policyJSON       `json:"policies"`
	LastSignIns        []time.Time        `json:"lastSignIns"`
	OpenRegistrations  []registrationJSON `json:"openRegistrations"`
	Events             []eventJSON        `json:"events"`
}

// Events of a successful sign-in.
var signInEvents = []string{account.EventAuthentication, account.EventSSO}

// Customer is GET /api/console/v1/customers/{id}: the account, its
// policies, last sign-ins, failed attempts, lock, open registrations and
// its 50 most recent audit events. The view is audited.
func (h *Handler) Customer(w http.ResponseWriter, r *http.Request) error {
	p, err := h.call(r, staff.RoleAgent, false)
	if err != nil {
		return err
	}
	a, err := h.customer(r, p)
	if err != nil {
		return err
	}
	d, err := h.detail(r.Context(), a)
	if err != nil {
		return err
	}
	if err := h.record(r.Context(), h.DB, r, p, audit.Event{Brand: a.Brand, AccountID: a.ID,
		Event: EventView, Outcome: "ok"}); err != nil {
		return err
	}
	api.JSON(w, http.StatusOK, d)
	return nil
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func (h *Handler) detail(ctx context.Context, a account.Account) (detailJSON, error) {
	now := h.Now()
	d := detailJSON{customerJSON: customerOf(a, now), Language: a.Language, Phone: a.Phone, CreatedAt: a.CreatedAt,
		DisabledAt: timeOrNil(a.DisabledAt), Policies: []policyJSON{}, LastSignIns: []time.Time{},
		OpenRegistrations: []registrationJSON{}, Events: []eventJSON{}}
	if now.Before(a.LockedUntil) {
		d.LockedUntil = timeOrNil(a.LockedUntil)
	}
	var tempExpires int64
	if err := h.DB.QueryRow(ctx, "SELECT temp_expires_at FROM accounts WHERE id = ?", a.ID).Scan(&tempExpires); err != nil {
		return d, err
	}
	if a.Status == account.Temporary && tempExpires > now.UnixMilli() {
		t := time.UnixMilli(tempExpires).UTC()
		d.TemporaryExpiresAt = &t
	}
	if err := h.DB.QueryRow(ctx, "SELECT COUNT(*) FROM login_failures WHERE account_id = ?", a.ID).Scan(&d.FailedAttempts); err != nil {
		return d, err
	}
	rows, err := h.DB.Query(ctx, `SELECT p.number, p.kind, ap.role FROM account_policies ap
		JOIN policies p ON p.id = ap.policy_id WHERE ap.account_id = ? ORDER BY p.number`, a.ID)
	if err != nil {
		return d, err
	}
	for rows.Next() {
		var pj policyJSON
		if err := rows.Scan(&pj.Number, &pj.Kind, &pj.Role); err != nil {
			rows.Close()
			return d, err
		}
		d.Policies = append(d.Policies, pj)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return d, err
	}
	rows, err = h.DB.Query(ctx, `SELECT at FROM audit_events WHERE brand = ? AND account_id = ? AND event IN (?, ?)
		AND outcome = 'ok' ORDER BY at DESC, id DESC LIMIT 10`, a.Brand, a.ID, signInEvents[0], signInEvents[1])
	if err != nil {
		return d, err
	}
	for rows.Next() {
		var at int64
		if err := rows.Scan(&at); err != nil {
			rows.Close()
			return d, err
		}
		d.LastSignIns = append(d.LastSignIns, time.UnixMilli(at).UTC())
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return d, err
	}
	rows, err = h.DB.Query(ctx, `SELECT id, created_at, expires_at FROM registrations WHERE brand = ? AND closed_at = 0
		AND expires_at > ? AND (LOWER(email) = ? OR person_id IN (SELECT id FROM insured_people WHERE account_id = ?))
		ORDER BY created_at DESC`, a.Brand, now.UnixMilli(), account.NormalizeEmail(a.Email), a.ID)
	if err != nil {
		return d, err
	}
	for rows.Next() {
		var rj registrationJSON
		var created, expires int64
		if err := rows.Scan(&rj.ID, &created, &expires); err != nil {
			rows.Close()
			return d, err
		}
		rj.CreatedAt, rj.ExpiresAt = time.UnixMilli(created).UTC(), time.UnixMilli(expires).UTC()
		d.OpenRegistrations = append(d.OpenRegistrations, rj)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return d, err
	}
	events, err := audit.ForAccount(ctx, h.DB, a.Brand, a.ID, 50)
	if err != nil {
		return d, err
	}
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		d.Events = append(d.Events, eventJSON{At: e.At, Event: e.Event, Outcome: e.Outcome, Detail: e.Detail, Actor: e.Actor, IP: e.IP})
	}
	return d, nil
}
