package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"

	"guichet/internal/app"
	"guichet/internal/testenv"
)

// TestClientsCommand runs `guichet clients add|list|disable` and `guichet
// oidc rotate-keys` on SQLite and PostgreSQL: the id and secret printed
// once, the refusals with the flag they name, the list, the rotation.
func TestClientsCommand(t *testing.T) {
	testenv.EachURL(t, false, func(t *testing.T, url string) {
		t.Setenv("GUICHET_DATABASE_URL", url)
		t.Setenv("GUICHET_DEV", "")
		dir := t.TempDir()
		errOut := captureStderr(t)
		cli := func(args ...string) (string, error) {
			var out bytes.Buffer
			err := run(append(args, "--data-dir", dir), &out)
			return out.String(), err
		}

		out, err := cli("clients", "add", "--brand", "belair", "--name", "Client centre", "--type", "confidential",
			"--redirect-uri", "https://clients.example/cb", "--redirect-uri", "http://localhost:4180/oauth2/callback")
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`^client_id: (\S+)\nclient_secret: (\S{43})\n$`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("add printed %q", out)
		}
		if !strings.Contains(errOut.String(), "shown this once") || strings.Contains(errOut.String(), m[2]) {
			t.Fatalf("stderr %q", errOut.String())
		}
		if out, err = cli("clients", "add", "--brand", "scotia", "--name", "App", "--type", "public", "--third-party", "--signing-alg", "RS256",
			"--redirect-uri", "ca.scotia.app:/cb"); err != nil || strings.Contains(out, "client_secret") {
			t.Fatalf("public client: %q %v", out, err)
		}

		// A client with keys instead of a secret: nothing secret printed.
		ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		keyFile := func(name string, keys ...jose.JSONWebKey) string {
			raw, err := json.Marshal(jose.JSONWebKeySet{Keys: keys})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, raw, 0o600); err != nil {
				t.Fatal(err)
			}
			return path
		}
		public := keyFile("public.json", jose.JSONWebKey{Key: ec.Public(), KeyID: "batch-1"})
		keyed := []string{"clients", "add", "--brand", "belair", "--name", "Batch", "--type", "confidential", "--redirect-uri", "https://batch.example/cb",
			"--auth", "private_key_jwt", "--jwks-file"}
		errOut.Reset()
		out, err = cli(append(keyed, public)...)
		k := regexp.MustCompile(`^client_id: (\S+)\n$`).FindStringSubmatch(out)
		if err != nil || k == nil || errOut.Len() != 0 {
			t.Fatalf("private_key_jwt client: %q %v (stderr %q)", out, err, errOut.String())
		}
		for name, content := range map[string]string{"empty.json": "", "pem.json": "-----BEGIN PUBLIC KEY-----\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}

		for _, c := range []struct {
			args []string
			want string
		}{
			{append(keyed, keyFile("private.json", jose.JSONWebKey{Key: ec, KeyID: "batch-1"})), `--jwks-file: key "batch-1" is a private key`},
			{append(keyed, keyFile("none.json")), "--jwks-file: the key set has no key"},
			{append(keyed, filepath.Join(dir, "empty.json")), "--jwks-file: private_key_jwt needs the client's public keys"},
			{append(keyed, filepath.Join(dir, "pem.json")), "--jwks-file: not a JSON Web Key Set"},
			{append(keyed, keyFile("ps256.json", jose.JSONWebKey{Key: ec.Public(), Algorithm: "ES384"})), `--jwks-file: key 1: alg "ES384" is not supported`},
			{append(keyed, filepath.Join(dir, "missing.json")), "--jwks-file: open"},
			{keyed[:len(keyed)-1], "--jwks-file: private_key_jwt needs the client's public keys"},
			{[]string{"clients", "add", "--brand", "belair", "--name", "X", "--type", "public", "--redirect-uri", "ca.belair.app:/cb", "--auth", "private_key_jwt",
				"--jwks-file", public}, "--auth: private_key_jwt is for a confidential client"},
			{[]string{"clients", "add", "--brand", "belair", "--name", "X", "--type", "confidential", "--redirect-uri", "https://x.example/cb", "--jwks-file", public},
				"--jwks-file: a key set is only for a private_key_jwt client"},
			{[]string{"clients", "list", "--auth", "private_key_jwt"}, "--auth is not for clients list"},
			{[]string{"clients", "add", "--brand", "acme", "--name", "X", "--type", "public", "--redirect-uri", "https://x.example/cb"}, `--brand "acme" is not a configured brand`},
			{[]string{"clients", "add", "--brand", "belair", "--name", "X", "--type", "public", "--redirect-uri", "http://x.example/cb"}, "--redirect-uri: http://x.example/cb: https is required"},
			{[]string{"clients", "add", "--brand", "belair", "--name", "X", "--type", "other", "--redirect-uri", "https://x.example/cb"}, "--type: public or confidential, not \"other\""},
			{[]string{"clients", "add", "--brand", "belair", "--type", "public", "--redirect-uri", "https://x.example/cb"}, "--name: a name is required"},
			{[]string{"clients", "add", "--brand", "belair", "--name", "X", "--type", "public", "--redirect-uri", "https://x.example/cb", "--signing-alg", "HS256"}, "--signing-alg: ES256 or RS256, not \"HS256\""},
			{[]string{"clients", "list", "--signing-alg", "RS256"}, "--signing-alg is not for clients list"},
			{[]string{"clients", "disable", "nope"}, "no client nope"},
			{[]string{"clients", "disable"}, "usage: guichet clients"},
			{[]string{"clients", "list", "extra"}, "usage: guichet clients"},
			{[]string{"clients"}, "usage: guichet clients"},
			{[]string{"oidc", "rotate-keys", "--brand", "acme"}, `--brand "acme" is not a configured brand`},
			{[]string{"oidc"}, "usage: guichet oidc"},
		} {
			if _, err := cli(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v: %v, want %q", c.args, err, c.want)
			}
		}

		if out, err = cli("clients", "disable", m[1]); err != nil || out != "client "+m[1]+" disabled\n" {
			t.Fatalf("disable: %q %v", out, err)
		}
		out, err = cli("clients", "list", "--brand", "belair")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		keyLine := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, k[1]) })
		if keyLine < 0 || !strings.Contains(lines[keyLine], "private_key_jwt") {
			t.Fatalf("list: the private_key_jwt client:\n%s", out)
		}
		lines = slices.Delete(lines, keyLine, keyLine+1)
		if len(lines) != 2 || !strings.HasPrefix(lines[1], m[1]) || !strings.Contains(lines[1], "https://clients.example/cb http://localhost:4180/oauth2/callback") ||
			!strings.HasSuffix(lines[1], "disabled") || strings.Contains(out, m[2]) {
			t.Fatalf("list:\n%s", out)
		}
		if !strings.Contains(lines[1], "ES256") || !strings.Contains(lines[1], "client_secret_basic") {
			t.Fatalf("list: the default algorithm is not shown:\n%s", out)
		}
		if out, err = cli("clients", "list"); err != nil || strings.Count(out, "\n") != 4 || !strings.Contains(out, "third") || !strings.Contains(out, "RS256") {
			t.Fatalf("list of every brand: %q %v", out, err)
		}

		out, err = cli("oidc", "rotate-keys")
		if err != nil || strings.Count(out, "new signing keys (ES256, RS256)") != len(testenv.Brands(t).All()) {
			t.Fatalf("rotate-keys: %q %v", out, err)
		}
		if out, err = cli("oidc", "rotate-keys", "--brand", "intact"); err != nil || !strings.HasPrefix(out, "intact: ") {
			t.Fatalf("rotate-keys --brand: %q %v", out, err)
		}
		cfg := app.Config{DataDir: dir, DatabaseURL: url}
		db, reg := openApp(t, cfg)
		svc, err := app.OIDCService(t.Context(), cfg, db, reg)
		if err != nil {
			t.Fatal(err)
		}
		for brand, want := range map[string]int{"intact": 4, "belair": 2} {
			if set, err := svc.KeySet(t.Context(), brand); err != nil || len(set) != want {
				t.Errorf("%s publishes %d keys (%v), want %d", brand, len(set), err, want)
			}
		}
		if _, err := svc.SigningKey(t.Context(), "belair", jose.ES256); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Client(t.Context(), m[1]); err != nil {
			t.Fatal(err)
		}
	})
}
