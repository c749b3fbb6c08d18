package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"guichet/internal/app"
	"guichet/internal/emailtoken"
	"guichet/internal/store"
)

const tokensUsage = `usage: guichet tokens issue --brand B --policy NUMBER --email EMAIL --source edoc|BA|mrkt [--send] [--language en|fr] [--start RFC3339] [--days N]
       guichet tokens issue --csv FILE [--send]   (columns brand,policy_number,email,source; header row required)`

// stderr takes the commands' one-line summaries (tests replace it).
var stderr io.Writer = os.Stderr

// csvColumns are the campaign file's columns.
var csvColumns = []string{"brand", "policy_number", "email", "source"}

// tokensCmd is `guichet tokens issue …`: emailed magic-link invitations
// (internal/emailtoken). One token prints its link on stdout; a campaign
// file (--csv) issues every row in one transaction, or nothing when any row
// is bad (every problem printed as `line N: column: problem`).
func tokensCmd(ctx context.Context, cfg app.Config, args []string, stdout io.Writer) error {
	fs := newFlagSet("tokens", &cfg)
	var req emailtoken.Request
	var file, start string
	var days int
	fs.StringVar(&req.Brand, "brand", "", "brand id")
	fs.StringVar(&req.PolicyNumber, "policy", "", "policy number")
	fs.StringVar(&req.Email, "email", "", "email on file of the insured person invited")
	fs.StringVar(&req.Source, "source", "", "edoc, BA or mrkt")
	fs.StringVar(&req.Language, "language", "", "en or fr (default: the person's account language, else the brand's)")
	fs.BoolVar(&req.Send, "send", false, "also queue the invitation email")
	fs.StringVar(&start, "start", "", "when the link starts to work, RFC 3339 (default now)")
	fs.IntVar(&days, "days", 0, "days the link works from --start (default the brand file's tokens.expiryDays, 14)")
	fs.StringVar(&file, "csv", "", "campaign file: brand,policy_number,email,source")
	args, err := parseCommand(fs, args, tokensUsage, func(args []string) bool { return len(args) > 0 && args[0] == "issue" })
	if err != nil {
		return err
	}
	if len(args) > 1 {
		return fmt.Errorf("unexpected argument %q\n%s", args[1], tokensUsage)
	}
	if file != "" {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		for _, single := range []string{"brand", "policy", "email", "source", "language", "start", "days"} {
			if set[single] {
				return fmt.Errorf("--csv takes the rows from the file: --%s is not allowed with it", single)
			}
		}
	} else {
		var missing []string
		for _, f := range []struct{ name, value string }{{"brand", req.Brand}, {"policy", req.PolicyNumber},
			{"email", req.Email}, {"source", req.Source}} {
			if strings.TrimSpace(f.value) == "" {
				missing = append(missing, "--"+f.name)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("missing %s\n%s", strings.Join(missing, ", "), tokensUsage)
		}
		if start != "" {
			t, err := time.Parse(time.RFC3339, start)
			if err != nil {
				return fmt.Errorf("--start %q: want RFC 3339, e.g. 2026-12-01T09:00:00-05:00", start)
			}
			req.Start = t
		}
		if days != 0 {
			if days < 1 || days > 365 {
				return fmt.Errorf("--days %d: want 1 to 365", days)
			}
			req.Expiry = time.Duration(days) * 24 * time.Hour
		}
	}
	brands, db, err := openWithBrands(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	svc := app.TokenService(cfg, db, brands, nil)
	if file != "" {
		return issueCSV(ctx, svc, file, req.Send, stdout)
	}
	req.IssuedBy = emailtoken.IssuedByCLI
	out, err := svc.Issue(ctx, req)
	if err != nil {
		return fmt.Errorf("tokens issue: %w", err)
	}
	fmt.Fprintln(stdout, out.Link)
	sent := ""
	if req.Send {
		sent = ", invitation queued"
	}
	fmt.Fprintf(stderr, "token %s issued for %s (%s), works %s to %s%s\n", out.ID, out.Email, req.Source,
		out.StartAt.Format(time.RFC3339), out.ExpiresAt.Format(time.RFC3339), sent)
	return nil
}

// rowProblem is one problem of a campaign file.
type rowProblem struct {
	line            int
	column, problem string
}

// errCampaign rolls the campaign's transaction back.
var errCampaign = errors.New("campaign refused")

// issueCSV issues a campaign file's tokens in one transaction.
func issueCSV(ctx context.Context, svc *emailtoken.Service, file string, send bool, stdout io.Writer) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: empty file; want the header row %s", file, strings.Join(csvColumns, ","))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	at := map[string]int{}
	var problems []rowProblem
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		switch {
		case !slices.Contains(csvColumns, h):
			problems = append(problems, rowProblem{1, h, "unknown column"})
		case at[h] != 0:
			problems = append(problems, rowProblem{1, h, "column twice"})
		default:
			at[h] = i + 1
		}
	}
	for _, c := range csvColumns {
		if at[c] == 0 {
			problems = append(problems, rowProblem{1, c, "missing column"})
		}
	}
	if len(problems) > 0 {
		return refuse(file, problems, stdout)
	}
	type row struct {
		line int
		req  emailtoken.Request
	}
	var rows []row
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			problems = append(problems, rowProblem{line, "row", err.Error()})
			if len(problems) > 1000 {
				break
			}
			continue
		}
		get := func(c string) string {
			if i := at[c] - 1; i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		req := emailtoken.Request{Brand: get("brand"), PolicyNumber: get("policy_number"), Email: get("email"),
			Source: get("source"), Send: send, IssuedBy: emailtoken.IssuedByCLI}
		if _, _, err := svc.Check(req); err != nil {
			problems = append(problems, rowProblem{line, column(err), problem(err)})
			continue
		}
		rows = append(rows, row{line, req})
	}
	if len(rows) == 0 && len(problems) == 0 {
		return fmt.Errorf("%s: no rows", file)
	}
	if len(problems) > 0 {
		return refuse(file, problems, stdout)
	}
	var issued []emailtoken.Issued
	err = svc.DB.InTx(ctx, func(tx *store.Tx) error {
		issued, problems = nil, nil
		for _, rw := range rows {
			out, err := svc.IssueTx(ctx, tx, rw.req)
			if err != nil {
				if column(err) == "" {
					return err
				}
				problems = append(problems, rowProblem{rw.line, column(err), problem(err)})
				continue
			}
			issued = append(issued, out)
		}
		if len(problems) > 0 {
			return errCampaign
		}
		return nil
	})
	if errors.Is(err, errCampaign) {
		return refuse(file, problems, stdout)
	}
	if err != nil {
		return err
	}
	w := csv.NewWriter(stdout)
	_ = w.Write([]string{"line", "brand", "policy_number", "email", "source", "link"})
	for i, rw := range rows {
		_ = w.Write([]string{fmt.Sprint(rw.line), rw.req.Brand, rw.req.PolicyNumber, issued[i].Email, rw.req.Source,
			issued[i].Link})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	sent := ""
	if send {
		sent = ", invitations queued"
	}
	fmt.Fprintf(stderr, "%d tokens issued%s\n", len(issued), sent)
	return nil
}

// refuse prints every problem and fails: nothing was issued.
func refuse(file string, problems []rowProblem, stdout io.Writer) error {
	for _, p := range problems {
		fmt.Fprintf(stdout, "line %d: %s: %s\n", p.line, p.column, p.problem)
	}
	return fmt.Errorf("%s: %d problems, nothing issued", file, len(problems))
}

// column is the campaign column a domain error is about ("" for a failure
// that is no row's fault).
func column(err error) string {
	var inv *emailtoken.InvalidError
	switch {
	case errors.As(err, &inv):
		return inv.Field
	case errors.Is(err, emailtoken.ErrBrand):
		return "brand"
	case errors.Is(err, emailtoken.ErrSource):
		return "source"
	case errors.Is(err, emailtoken.ErrNoPerson):
		return "email"
	case errors.Is(err, emailtoken.ErrInactive):
		return "policy_number"
	}
	return ""
}

func problem(err error) string {
	var inv *emailtoken.InvalidError
	if errors.As(err, &inv) {
		return inv.Problem
	}
	return err.Error()
}
