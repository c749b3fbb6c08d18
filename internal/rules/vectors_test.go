package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite generated files (blocklist.txt, testdata/rules/keys.json)")

const vectorsDir = "../../testdata/rules"

// vectorFile is one testdata/rules/<rule>.json; testdata/rules/README.md
// describes the format.
type vectorFile struct {
	Rule   string                     `json:"rule"`
	Params map[string]json.RawMessage `json:"params"`
	Pass   []vectorCase               `json:"pass"`
	Fail   []vectorCase               `json:"fail"`
}

type vectorCase struct {
	In         json.RawMessage            `json:"in"`
	Repeat     int                        `json:"repeat"`
	Out        json.RawMessage            `json:"out"`
	Key        string                     `json:"key"`
	Params     map[string]json.RawMessage `json:"params"`
	ServerOnly bool                       `json:"serverOnly"`
	Note       string                     `json:"note"`
}

// vectorParams are the parameters a rule takes besides its input.
type vectorParams struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	Required bool   `json:"required"`
	Format   *struct {
		Length int    `json:"length"`
		Mask   string `json:"mask"`
	} `json:"format"`
	Today    string `json:"today"`
	Province string `json:"province"`
	UBI      bool   `json:"ubi"`
}

// params merges the case's parameters over the file's.
func (c vectorCase) params(file map[string]json.RawMessage) (vectorParams, error) {
	merged := map[string]json.RawMessage{}
	for k, v := range file {
		merged[k] = v
	}
	for k, v := range c.Params {
		merged[k] = v
	}
	b, err := json.Marshal(merged)
	if err != nil {
		return vectorParams{}, err
	}
	var p vectorParams
	err = decodeStrict(b, &p)
	return p, err
}

// decodeStrict decodes JSON into v, refusing the fields v does not have: a
// misspelt key of a vector file fails rather than being ignored.
func decodeStrict(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// readStrict reads the JSON file at path into v (decodeStrict).
func readStrict(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := decodeStrict(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// input decodes the case's input: a string (repeated Repeat times) or, for
// the terms rule, a boolean.
func (c vectorCase) input() (any, error) {
	var b bool
	if err := json.Unmarshal(c.In, &b); err == nil {
		return b, nil
	}
	var s string
	if err := json.Unmarshal(c.In, &s); err != nil {
		return nil, fmt.Errorf("in: %w", err)
	}
	if c.Repeat > 0 {
		s = strings.Repeat(s, c.Repeat)
	}
	return s, nil
}

// apply runs rule on in with p and returns the normalized value (a string,
// or true for terms).
func apply(rule string, in any, p vectorParams) (any, error) {
	if rule == "terms" {
		accepted, ok := in.(bool)
		if !ok {
			return nil, fmt.Errorf("terms takes a boolean, got %T", in)
		}
		if err := Terms(accepted); err != nil {
			return nil, err
		}
		return true, nil
	}
	s, ok := in.(string)
	if !ok {
		return nil, fmt.Errorf("%s takes a string, got %T", rule, in)
	}
	var out string
	var err error
	switch rule {
	case "email":
		out, err = Email(s)
	case "emailConfirmation":
		out, err = EmailConfirmation(s, p.Email)
	case "phone":
		out, err = Phone(s, p.Required)
	case "policyNumber":
		if p.Format == nil {
			return nil, errors.New("policyNumber needs params.format")
		}
		out, err = PolicyNumber(s, PolicyFormat{Length: p.Format.Length, Mask: p.Format.Mask})
	case "postalCode":
		out, err = PostalCode(s)
	case "password":
		out, err = Password(s, p.Email)
	case "passwordConfirmation":
		out, err = PasswordConfirmation(s, p.Password)
	case "loginPassword":
		out, err = LoginPassword(s)
	case "securityCode":
		out, err = SecurityCode(s)
	case "pin":
		out, err = PIN(s)
	case "firstName":
		out, err = FirstName(s)
	case "lastName":
		out, err = LastName(s)
	case "dateOfBirth":
		today, perr := time.Parse(time.DateOnly, p.Today)
		if perr != nil {
			return nil, fmt.Errorf("dateOfBirth needs params.today: %w", perr)
		}
		out, err = DateOfBirth(s, today)
	case "driverLicence":
		out, err = DriverLicence(s, p.Province, p.UBI)
	default:
		return nil, fmt.Errorf("unknown rule %q", rule)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func loadVectors(t testing.TB) []vectorFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(vectorsDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var files []vectorFile
	for _, path := range paths {
		if filepath.Base(path) == "keys.json" {
			continue
		}
		var f vectorFile
		readStrict(t, path, &f)
		if want := f.Rule + ".json"; filepath.Base(path) != want {
			t.Fatalf("%s: rule %q belongs in %s", path, f.Rule, want)
		}
		files = append(files, f)
	}
	return files
}

func ruleInfo(rule string) (RuleInfo, bool) {
	i := slices.IndexFunc(KeyTable, func(r RuleInfo) bool { return r.Rule == rule })
	if i < 0 {
		return RuleInfo{}, false
	}
	return KeyTable[i], true
}

func TestVectors(t *testing.T) {
	files := loadVectors(t)
	total := 0
	seen := map[string]bool{}
	for _, f := range files {
		info, ok := ruleInfo(f.Rule)
		if !ok {
			t.Errorf("%s.json: rule not in KeyTable", f.Rule)
			continue
		}
		seen[f.Rule] = true
		keysUsed := map[string]bool{}
		t.Run(f.Rule, func(t *testing.T) {
			for i, c := range f.Pass {
				total++
				name := fmt.Sprintf("pass/%d", i)
				in, p := mustCase(t, name, f, c)
				if c.Key != "" || c.Repeat != 0 {
					t.Errorf("%s: a passing case has no key and no repeat", name)
				}
				var want any
				if err := json.Unmarshal(c.Out, &want); err != nil || want == nil {
					t.Errorf("%s %q: out missing or invalid", name, c.In)
					continue
				}
				got, err := apply(f.Rule, in, p)
				if err != nil {
					t.Errorf("%s %s %s: error %v, want %q", name, c.In, c.Note, err, want)
					continue
				}
				if got != want {
					t.Errorf("%s %s %s: got %q, want %q", name, c.In, c.Note, got, want)
					continue
				}
				if again, err := apply(f.Rule, got, p); err != nil || again != got {
					t.Errorf("%s %s: normalized %q gives %q, %v", name, c.In, got, again, err)
				}
			}
			for i, c := range f.Fail {
				total++
				name := fmt.Sprintf("fail/%d", i)
				in, p := mustCase(t, name, f, c)
				if c.Out != nil {
					t.Errorf("%s: a failing case has no out", name)
				}
				if !slices.Contains(info.Keys, c.Key) {
					t.Errorf("%s %s: key %q is not one of %s's keys %v", name, c.In, c.Key, f.Rule, info.Keys)
				}
				keysUsed[c.Key] = true
				got, err := apply(f.Rule, in, p)
				var re Error
				if !errors.As(err, &re) {
					t.Errorf("%s %s %s: got %q, %v; want key %q", name, c.In, c.Note, got, err, c.Key)
					continue
				}
				if re.Key != c.Key || re.Field != info.Field {
					t.Errorf("%s %s %s: got %s/%s, want %s/%s", name, c.In, c.Note, re.Field, re.Key, info.Field, c.Key)
				}
			}
			for _, k := range info.Keys {
				if !keysUsed[k] {
					t.Errorf("no failing vector returns key %q", k)
				}
			}
		})
	}
	for _, r := range KeyTable {
		if !seen[r.Rule] {
			t.Errorf("testdata/rules/%s.json is missing", r.Rule)
		}
	}
	if total < 300 {
		t.Errorf("%d vectors, want at least 300", total)
	}
	t.Logf("%d rules, %d vectors", len(files), total)
}

func mustCase(t *testing.T, name string, f vectorFile, c vectorCase) (any, vectorParams) {
	t.Helper()
	in, err := c.input()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	p, err := c.params(f.Params)
	if err != nil {
		t.Fatalf("%s: params: %v", name, err)
	}
	return in, p
}

// keysFile is the shape of testdata/rules/keys.json.
type keysFile struct {
	Keys  []string      `json:"keys"`
	Rules []keysFileRow `json:"rules"`
}

type keysFileRow struct {
	Rule  string   `json:"rule"`
	Field string   `json:"field"`
	Keys  []string `json:"keys"`
}

func TestKeysFile(t *testing.T) {
	kf := keysFile{Keys: Keys()}
	for _, r := range KeyTable {
		kf.Rules = append(kf.Rules, keysFileRow(r))
	}
	want, err := json.MarshalIndent(kf, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	path := filepath.Join(vectorsDir, "keys.json")
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from KeyTable; run go test ./internal/rules -run TestKeysFile -update", path)
	}
}
