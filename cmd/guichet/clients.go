package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	jose "github.com/go-jose/go-jose/v4"

	"guichet/internal/app"
	"guichet/internal/brand"
	"guichet/internal/oidc"
	"guichet/internal/store"
)

const clientsUsage = `usage: guichet clients add --brand B --name NAME --type public|confidential --redirect-uri URI [--redirect-uri URI]...
                           [--third-party] [--backchannel-logout-uri URI] [--signing-alg ES256|RS256]
                           [--auth client_secret_basic|private_key_jwt --jwks-file FILE]
       guichet clients list [--brand B]
       guichet clients disable CLIENT_ID`

const oidcUsage = `usage: guichet oidc rotate-keys [--brand B]`

// uris is a flag given once per value (--redirect-uri A --redirect-uri B).
type uris []string

func (u *uris) String() string     { return strings.Join(*u, " ") }
func (u *uris) Set(v string) error { *u = append(*u, v); return nil }

// withOIDC opens the database and the provider's service for a command.
func withOIDC(ctx context.Context, cfg app.Config, fn func(*oidc.Service, *brand.Registry) error) error {
	reg, db, err := openWithBrands(ctx, cfg)
	if err != nil {
		return err
	}
	defer func(db *store.DB) { _ = db.Close() }(db)
	svc, err := app.OIDCService(ctx, cfg, db, reg)
	if err != nil {
		return err
	}
	return fn(svc, reg)
}

// clientsCmd is `guichet clients add|list|disable`: the relying parties of
// each brand's OpenID provider (internal/oidc). add prints the client id and,
// for a confidential client with a secret, the secret: once, it is stored
// as a hash. A confidential client registered with --auth private_key_jwt
// has no secret: it signs its assertions with a key whose public half is in
// --jwks-file (a JSON Web Key Set).
func clientsCmd(ctx context.Context, cfg app.Config, args []string, stdout io.Writer) error {
	fs := newFlagSet("clients", &cfg)
	var in oidc.NewClient
	var kind string
	var redirects uris
	fs.StringVar(&in.Brand, "brand", "", "the client's brand (add; list: only that brand's)")
	fs.StringVar(&in.Name, "name", "", "the application's name, shown on the consent page (add)")
	fs.StringVar(&kind, "type", "", "public (no secret: mobile and browser apps, PKCE) or confidential (add)")
	fs.Var(&redirects, "redirect-uri", "a redirect URI, matched exactly; repeat for more (add)")
	fs.BoolVar(&in.ThirdParty, "third-party", false, "not the insurer's own application: the customer consents (add)")
	fs.StringVar(&in.BackchannelLogoutURI, "backchannel-logout-uri", "", "where sign-outs are posted (add)")
	var alg string
	fs.StringVar(&alg, "signing-alg", "ES256", "ES256, or RS256 for a client whose library knows no other (add)")
	var auth, jwksFile string
	fs.StringVar(&auth, "auth", "", "client_secret_basic (default for confidential) or private_key_jwt (add)")
	fs.StringVar(&jwksFile, "jwks-file", "", "the public keys of a private_key_jwt client, a JSON Web Key Set (add)")
	args, err := parseCommand(fs, args, clientsUsage, func(args []string) bool { return len(args) > 0 })
	if err != nil {
		return err
	}
	sub, rest := args[0], args[1:]
	want := map[string]int{"add": 0, "list": 0, "disable": 1}
	if n, ok := want[sub]; !ok || len(rest) != n {
		return errors.New(clientsUsage)
	}
	// The flags of add are refused elsewhere (list takes --brand only).
	var misplaced string
	fs.Visit(func(f *flag.Flag) {
		if sub != "add" && strings.HasSuffix(f.Usage, "(add)") || sub == "disable" && f.Name == "brand" {
			misplaced = f.Name
		}
	})
	if misplaced != "" {
		return fmt.Errorf("--%s is not for clients %s\n%s", misplaced, sub, clientsUsage)
	}
	in.Kind, in.RedirectURIs, in.SigningAlg, in.AuthMethod = oidc.Kind(kind), redirects, jose.SignatureAlgorithm(alg), oidc.AuthMethod(auth)
	if jwksFile != "" {
		if in.JWKS, err = os.ReadFile(jwksFile); err != nil {
			return fmt.Errorf("clients add: --jwks-file: %w\n%s", err, clientsUsage)
		}
	}
	return withOIDC(ctx, cfg, func(svc *oidc.Service, _ *brand.Registry) error {
		switch sub {
		case "add":
			c, secret, err := svc.AddClient(ctx, in, "cli")
			var inv *oidc.InvalidError
			switch {
			case errors.Is(err, oidc.ErrUnknownBrand):
				return fmt.Errorf("clients add: --brand %q is not a configured brand\n%s", in.Brand, clientsUsage)
			case errors.As(err, &inv):
				return fmt.Errorf("clients add: --%s: %s\n%s", inv.Field, inv.Reason, clientsUsage)
			case err != nil:
				return fmt.Errorf("clients add: %w", err)
			}
			fmt.Fprintln(stdout, "client_id:", c.ID)
			if secret != "" {
				fmt.Fprintln(stdout, "client_secret:", secret)
				fmt.Fprintln(stderr, "the client secret is shown this once; only its hash is kept")
			}
			return nil
		case "disable":
			if err := svc.DisableClient(ctx, rest[0], "cli"); errors.Is(err, oidc.ErrUnknownClient) {
				return fmt.Errorf("clients disable: no client %s", rest[0])
			} else if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "client %s disabled\n", rest[0])
			return nil
		}
		list, err := svc.Clients(ctx, in.Brand)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "CLIENT_ID\tBRAND\tNAME\tTYPE\tAUTH\tPARTY\tALG\tREDIRECT_URIS\tSTATUS")
		for _, c := range list {
			party, status := "first", "active"
			if c.ThirdParty {
				party = "third"
			}
			if c.Disabled() {
				status = "disabled"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.ID, c.Brand, c.Name, c.Kind, c.AuthMethod, party, c.SigningAlg,
				strings.Join(c.RedirectURIs, " "), status)
		}
		return tw.Flush()
	})
}

// oidcCmd is `guichet oidc rotate-keys`: new signing keys for one brand or
// every brand now; the old ones stay published while their tokens live.
func oidcCmd(ctx context.Context, cfg app.Config, args []string, stdout io.Writer) error {
	fs := newFlagSet("oidc", &cfg)
	var only string
	fs.StringVar(&only, "brand", "", "only this brand (default: every brand)")
	if _, err := parseCommand(fs, args, oidcUsage, func(args []string) bool {
		return len(args) == 1 && args[0] == "rotate-keys"
	}); err != nil {
		return err
	}
	return withOIDC(ctx, cfg, func(svc *oidc.Service, reg *brand.Registry) error {
		var ids []string
		for _, b := range reg.All() {
			if only == "" || b.ID == only {
				ids = append(ids, b.ID)
			}
		}
		if len(ids) == 0 {
			return fmt.Errorf("oidc rotate-keys: --brand %q is not a configured brand", only)
		}
		for _, id := range ids {
			if err := svc.RotateKeys(ctx, id, "cli"); err != nil {
				return fmt.Errorf("oidc rotate-keys %s: %w", id, err)
			}
			fmt.Fprintf(stdout, "%s: new signing keys (%s); the old ones stay published for %d days\n", id, algs(), int(oidc.PublishAfterRetire.Hours()/24))
		}
		return nil
	})
}

func algs() string {
	var out []string
	for _, a := range oidc.Algorithms {
		out = append(out, string(a))
	}
	return strings.Join(out, ", ")
}
