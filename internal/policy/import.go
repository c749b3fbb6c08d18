package policy

import (
	"context"
	"crypto/rand"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"guichet/internal/brand"
	"guichet/internal/codes"
	"guichet/internal/rules"
	"guichet/internal/store"
)

// Columns is the fixed column set of the policy file (issue 13), in any
// order in the file's header row.
var Columns = []string{"brand", "policy_number", "kind", "province", "role", "first_name", "last_name",
	"date_of_birth", "postal_code", "driver_licence", "licence_province", "email", "cell_phone", "pin", "ubi", "status"}

// RowError is one problem of the file: `line N: column: problem`.
type RowError struct {
	Line    int
	Column  string
	Problem string
}

func (e RowError) String() string { return fmt.Sprintf("line %d: %s: %s", e.Line, e.Column, e.Problem) }

// ImportErrors is every problem of a refused file; nothing was written.
type ImportErrors []RowError

func (e ImportErrors) Error() string {
	lines := make([]string, len(e))
	for i, r := range e {
		lines[i] = r.String()
	}
	return strings.Join(lines, "\n")
}

// ImportResult counts the rows of an accepted file.
type ImportResult struct {
	Rows, Added, Updated, Unchanged int
}

func (r ImportResult) String() string {
	return fmt.Sprintf("%d rows: %d added, %d updated, %d unchanged", r.Rows, r.Added, r.Updated, r.Unchanged)
}

// Importer loads a policy file (`guichet import-policies`).
type Importer struct {
	DB     *store.DB
	Brands func(id string) (*brand.Brand, bool)
	Now    time.Time
	// DryRun checks and counts, then rolls everything back.
	DryRun bool
	// Lock, when set, is taken first in the transaction (tx.Lock): the
	// --dev demo people of instances starting together.
	Lock string
}

// maxErrors bounds the problems reported for one file.
const maxErrors = 1000

// row is one valid line, normalised.
type row struct {
	line            int
	brand           string
	number          string
	kind            Kind
	province        string
	status          Status
	role            Role
	first, last     string
	dob             string
	postal          string
	licence         string
	licenceProvince string
	email           string
	phone           string
	pin             string
	ubi             bool
}

func (r *row) policyKey() string { return r.brand + "\x00" + r.number }

func (r *row) personKey(policyID string) string {
	return policyID + "\x00" + string(r.role) + "\x00" + NameKey(r.first) + "\x00" + NameKey(r.last) + "\x00" + r.dob
}

// Import reads the whole file, checks every row and, when all are valid,
// applies them in one transaction: policies and people added or updated,
// unchanged ones left alone. A file with any bad row returns ImportErrors
// and writes nothing.
func (im *Importer) Import(ctx context.Context, in io.Reader) (ImportResult, error) {
	rows, err := im.parse(in)
	if err != nil {
		return ImportResult{}, err
	}
	res := ImportResult{Rows: len(rows)}
	if im.Lock != "" {
		// Instances starting together: the plan is made under the lock.
		err := im.DB.InTx(ctx, func(tx *store.Tx) error {
			res = ImportResult{Rows: len(rows)}
			if err := tx.Lock(ctx, im.Lock); err != nil {
				return err
			}
			key, err := pinKeyOf(ctx, tx, im.Now, true)
			if err != nil {
				return err
			}
			changes, err := im.plan(ctx, tx, key, rows, &res)
			if err != nil {
				return err
			}
			return changes.write(ctx, tx)
		})
		return res, err
	}
	// The plan reads outside the write transaction, so that on SQLite the
	// server's writes wait only while the changes are written (nothing
	// when the file changes nothing).
	key, err := pinKeyOf(ctx, im.DB, im.Now, !im.DryRun)
	if err != nil {
		return ImportResult{}, err
	}
	changes, err := im.plan(ctx, im.DB, key, rows, &res)
	if err != nil || im.DryRun || changes.empty() {
		return res, err
	}
	return res, im.DB.InTx(ctx, func(tx *store.Tx) error { return changes.write(ctx, tx) })
}

// pinKeyOf is the PIN key (PINKey); without create, a missing secret
// gives a random key (no PIN is stored yet, so every PIN is new anyway).
func pinKeyOf(ctx context.Context, q codes.Store, now time.Time, create bool) ([]byte, error) {
	if !create {
		exists, err := codes.SecretExists(ctx, q, pinSecretName)
		if err != nil {
			return nil, fmt.Errorf("pin secret: %w", err)
		}
		if !exists {
			var random [32]byte
			_, err := rand.Read(random[:])
			return random[:], err
		}
	}
	secret, err := codes.LoadSecret(ctx, q, pinSecretName, now, rand.Reader)
	if err != nil {
		return nil, err
	}
	return codes.Derive(secret, pinPurpose), nil
}

const pinPurpose = "guichet policy pin v1"

// changes are the writes an import plans.
type changes struct {
	newPolicies, newPeople [][]any
	updates                []update
}

type update struct {
	q    string
	args []any
}

func (c *changes) empty() bool {
	return len(c.newPolicies) == 0 && len(c.newPeople) == 0 && len(c.updates) == 0
}

// write applies the changes in tx: policies first (people refer to them).
func (c *changes) write(ctx context.Context, tx *store.Tx) error {
	if err := insertBatches(ctx, tx, "INSERT INTO policies (id, brand, number, kind, province, status, created_at) VALUES ",
		7, c.newPolicies); err != nil {
		return fmt.Errorf("insert policies: %w", err)
	}
	for _, u := range c.updates {
		if _, err := tx.Exec(ctx, u.q, u.args...); err != nil {
			return fmt.Errorf("update: %w", err)
		}
	}
	if err := insertBatches(ctx, tx, `INSERT INTO insured_people (id, policy_id, brand, role, first_name, last_name,
		first_name_key, last_name_key, date_of_birth, postal_code, driver_licence, licence_province, email, cell_phone,
		ubi, pin_hash, pin_issued_at, created_at, updated_at) VALUES `, 19, c.newPeople); err != nil {
		return fmt.Errorf("insert people: %w", err)
	}
	return nil
}

func (im *Importer) parse(in io.Reader) ([]row, error) {
	r := csv.NewReader(in)
	r.ReuseRecord = true
	var problems ImportErrors
	add := func(line int, col, problem string) {
		if len(problems) < maxErrors {
			problems = append(problems, RowError{line, col, problem})
		}
	}
	header, err := r.Read()
	if err == io.EOF {
		return nil, ImportErrors{{1, "header", "the file is empty"}}
	}
	if err != nil {
		return nil, ImportErrors{{1, "header", csvProblem(err)}}
	}
	at := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		switch {
		case !slices.Contains(Columns, h):
			add(1, h, "unknown column")
		case at[h] != 0:
			add(1, h, "column twice")
		default:
			at[h] = i + 1
		}
	}
	for _, c := range Columns {
		if at[c] == 0 {
			add(1, c, "missing column")
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	var out []row
	policies := map[string]*row{}
	people := map[string]int{}
	today := im.Now
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.StartLine
			}
			add(line, "row", csvProblem(err))
			if errors.Is(err, csv.ErrFieldCount) {
				continue
			}
			break
		}
		get := func(c string) string { return strings.TrimSpace(rec[at[c]-1]) }
		v, ok := im.check(line, get, today, add)
		if !ok {
			continue
		}
		if first, seen := policies[v.policyKey()]; seen {
			switch {
			case first.kind != v.kind:
				add(line, "kind", fmt.Sprintf("differs from line %d for the same policy", first.line))
				continue
			case first.province != v.province:
				add(line, "province", fmt.Sprintf("differs from line %d for the same policy", first.line))
				continue
			case first.status != v.status:
				add(line, "status", fmt.Sprintf("differs from line %d for the same policy", first.line))
				continue
			}
		} else {
			policies[v.policyKey()] = &v
		}
		pk := v.personKey(v.policyKey())
		if l, dup := people[pk]; dup {
			add(line, "first_name", fmt.Sprintf("the same person as line %d", l))
			continue
		}
		people[pk] = line
		out = append(out, v)
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return out, nil
}

func csvProblem(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return "not RFC 4180: " + pe.Err.Error()
	}
	return "unreadable: " + err.Error()
}

// check validates one line with spec §5's rules and the brand's provinces
// and policy format.
func (im *Importer) check(line int, get func(string) string, today time.Time,
	add func(int, string, string)) (row, bool) {
	ok := true
	bad := func(col, problem string) { add(line, col, problem); ok = false }
	rule := func(col string, err error) {
		var re rules.Error
		if errors.As(err, &re) {
			bad(col, re.Key)
		} else if err != nil {
			bad(col, err.Error())
		}
	}
	for _, c := range Columns {
		if !utf8.ValidString(get(c)) {
			bad(c, "not UTF-8")
		}
	}
	if !ok {
		return row{}, false
	}
	v := row{line: line, brand: get("brand")}
	b, found := im.Brands(v.brand)
	if !found {
		bad("brand", "unknown brand")
	}
	v.kind = Kind(get("kind"))
	if v.kind != Home && v.kind != Auto {
		bad("kind", "want home or auto")
	}
	v.province = strings.ToLower(get("province"))
	if b != nil {
		if _, served := b.Province(v.province); !served {
			bad("province", "not a province of brand "+b.ID)
		} else {
			f := b.PolicyNumberFormat(v.province)
			n, err := rules.PolicyNumber(get("policy_number"), rules.PolicyFormat{Length: f.Length, Mask: f.Mask})
			rule("policy_number", err)
			v.number = n
		}
	}
	switch s := get("status"); s {
	case "", "active":
		v.status = Active
	case "cancelled":
		v.status = Cancelled
	default:
		bad("status", "want active or cancelled")
	}
	v.role = Role(get("role"))
	if v.role != Holder && v.role != Driver {
		bad("role", "want holder or driver")
	}
	var err error
	v.first, err = rules.FirstName(get("first_name"))
	rule("first_name", err)
	v.last, err = rules.LastName(get("last_name"))
	rule("last_name", err)
	v.dob, err = rules.DateOfBirth(get("date_of_birth"), today)
	rule("date_of_birth", err)
	if s := get("postal_code"); s != "" {
		v.postal, err = rules.PostalCode(s)
		rule("postal_code", err)
	}
	v.licenceProvince = strings.ToLower(get("licence_province"))
	if s := get("driver_licence"); s != "" {
		if v.licenceProvince == "" {
			bad("licence_province", "required with a driver licence")
		}
		v.licence, err = rules.DriverLicence(s, v.licenceProvince, true)
		rule("driver_licence", err)
	}
	if s := get("email"); s != "" {
		v.email, err = rules.Email(s)
		rule("email", err)
	}
	v.phone, err = rules.Phone(get("cell_phone"), false)
	rule("cell_phone", err)
	if s := get("pin"); s != "" {
		v.pin, err = rules.PIN(s)
		rule("pin", err)
	}
	switch s := get("ubi"); s {
	case "", "false":
	case "true":
		v.ubi = true
	default:
		bad("ubi", "want true or false")
	}
	return v, ok
}

// batch is how many rows one multi-row INSERT carries.
const batch = 200

// plan reads the brands' existing records once and works out the writes
// of the file, counting its rows in res.
func (im *Importer) plan(ctx context.Context, q Reader, pinKey []byte, rows []row, res *ImportResult) (*changes, error) {
	c := &changes{}
	now := im.Now.UnixMilli()
	// Existing records of the brands named, read once.
	type existingPolicy struct {
		id, kind, province, status string
	}
	pols := map[string]existingPolicy{}
	type existingPerson struct {
		id, first, last, postal, licence, licenceProvince, email, phone, pinHash string
		ubi                                                                      bool
	}
	people := map[string]existingPerson{}
	brands := map[string]bool{}
	for i := range rows {
		brands[rows[i].brand] = true
	}
	for b := range brands {
		prow, err := q.Query(ctx, "SELECT id, number, kind, province, status FROM policies WHERE brand = ?", b)
		if err != nil {
			return nil, fmt.Errorf("read policies: %w", err)
		}
		for prow.Next() {
			var e existingPolicy
			var number string
			if err := prow.Scan(&e.id, &number, &e.kind, &e.province, &e.status); err != nil {
				prow.Close()
				return nil, err
			}
			pols[b+"\x00"+number] = e
		}
		prow.Close()
		if err := prow.Err(); err != nil {
			return nil, err
		}
		qrow, err := q.Query(ctx, `SELECT id, policy_id, role, first_name_key, last_name_key, date_of_birth, first_name,
			last_name, postal_code, driver_licence, licence_province, email, cell_phone, pin_hash, ubi
			FROM insured_people WHERE brand = ?`, b)
		if err != nil {
			return nil, fmt.Errorf("read people: %w", err)
		}
		for qrow.Next() {
			var e existingPerson
			var policyID, role, fk, lk, dob string
			var ubi int
			if err := qrow.Scan(&e.id, &policyID, &role, &fk, &lk, &dob, &e.first, &e.last, &e.postal, &e.licence,
				&e.licenceProvince, &e.email, &e.phone, &e.pinHash, &ubi); err != nil {
				qrow.Close()
				return nil, err
			}
			e.ubi = ubi != 0
			people[policyID+"\x00"+role+"\x00"+fk+"\x00"+lk+"\x00"+dob] = e
		}
		qrow.Close()
		if err := qrow.Err(); err != nil {
			return nil, err
		}
	}
	// Policies first: new ones inserted in batches, changed ones updated.
	var newPolicies [][]any
	changedPolicy := map[string]bool{}
	policyID := map[string]string{}
	for i := range rows {
		r := &rows[i]
		k := r.policyKey()
		if _, done := policyID[k]; done {
			continue
		}
		e, found := pols[k]
		if !found {
			id, err := codes.RandomID(rand.Reader)
			if err != nil {
				return nil, err
			}
			policyID[k] = id
			newPolicies = append(newPolicies, []any{id, r.brand, r.number, string(r.kind), r.province, string(r.status), now})
			continue
		}
		policyID[k] = e.id
		if e.kind != string(r.kind) || e.province != r.province || e.status != string(r.status) {
			changedPolicy[k] = true
			c.updates = append(c.updates, update{"UPDATE policies SET kind = ?, province = ?, status = ? WHERE id = ?",
				[]any{string(r.kind), r.province, string(r.status), e.id}})
		}
	}
	c.newPolicies = newPolicies
	var newPeople [][]any
	for i := range rows {
		r := &rows[i]
		pid := policyID[r.policyKey()]
		pinHash := ""
		if r.pin != "" {
			pinHash = PINHash(pinKey, r.pin)
		}
		e, found := people[r.personKey(pid)]
		if !found {
			id, err := codes.RandomID(rand.Reader)
			if err != nil {
				return nil, err
			}
			pinAt := int64(0)
			if pinHash != "" {
				pinAt = now
			}
			newPeople = append(newPeople, []any{id, pid, r.brand, string(r.role), r.first, r.last, NameKey(r.first),
				NameKey(r.last), r.dob, r.postal, r.licence, r.licenceProvince, r.email, r.phone, boolInt(r.ubi),
				pinHash, pinAt, now, now})
			res.Added++
			continue
		}
		same := e.first == r.first && e.last == r.last && e.postal == r.postal && e.licence == r.licence &&
			e.licenceProvince == r.licenceProvince && e.email == r.email && e.phone == r.phone && e.ubi == r.ubi &&
			e.pinHash == pinHash
		switch {
		case same && !changedPolicy[r.policyKey()]:
			res.Unchanged++
			continue
		case same:
			res.Updated++
			continue
		}
		pinAt := "pin_issued_at"
		if e.pinHash != pinHash {
			pinAt = "?"
		}
		uq := `UPDATE insured_people SET first_name = ?, last_name = ?, postal_code = ?, driver_licence = ?,
			licence_province = ?, email = ?, cell_phone = ?, ubi = ?, pin_hash = ?, pin_issued_at = ` + pinAt + `,
			updated_at = ? WHERE id = ?`
		args := []any{r.first, r.last, r.postal, r.licence, r.licenceProvince, r.email, r.phone, boolInt(r.ubi), pinHash}
		if pinAt == "?" {
			issued := int64(0)
			if pinHash != "" {
				issued = now
			}
			args = append(args, issued)
		}
		args = append(args, now, e.id)
		c.updates = append(c.updates, update{uq, args})
		res.Updated++
	}
	c.newPeople = newPeople
	return c, nil
}

// insertBatches runs head with up to batch rows of n values each per
// statement: a full batch's text is always the same, so the statement is
// parsed once.
func insertBatches(ctx context.Context, tx *store.Tx, head string, n int, values [][]any) error {
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
	for len(values) > 0 {
		k := min(batch, len(values))
		q := head + strings.TrimSuffix(strings.Repeat(one+", ", k), ", ")
		args := make([]any, 0, k*n)
		for _, v := range values[:k] {
			args = append(args, v...)
		}
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			return err
		}
		values = values[k:]
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
