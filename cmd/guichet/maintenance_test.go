package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"guichet/internal/app"
)

func TestMaintenanceCommand(t *testing.T) {
	cfg := app.Config{DataDir: t.TempDir(), BrandsDir: "../../config/brands"}
	now := time.Date(2029, 12, 31, 12, 0, 0, 0, time.UTC)
	steps := []struct {
		args    string
		out     string // the one-line summary
		wantErr string
	}{
		{"status", "maintenance off", ""},
		{"on --brand belair --until 2030-01-01T08:00:00-05:00", "maintenance on for belair until 2030-01-01T13:00:00Z", ""},
		{"on", "maintenance on for every brand", ""},
		{"status", "maintenance on for every brand; for belair until 2030-01-01T13:00:00Z", ""},
		{"off --brand belair", "", "on for every brand"},
		{"off", "maintenance off for every brand", ""},
		{"off --brand BELAIR", "maintenance was not on for belair", ""},
		{"on --brand nope", "", `--brand "nope": not a brand`},
		{"on --until 2029-12-31T11:00:00Z", "", "not in the future"},
		{"on --until tomorrow", "", "not an RFC 3339 time"},
		{"", "", "usage: guichet maintenance on"},
		{"off --until 2030-01-01T00:00:00Z", "", "usage:"},
		{"status --brand belair", "", "usage:"},
		{"on belair", "", "usage:"},
		{"restart", "", "usage:"},
		{"status", "maintenance off", ""},
	}
	for _, s := range steps {
		var out bytes.Buffer
		err := runMaintenance(t.Context(), cfg, strings.Fields(s.args), &out, now)
		if s.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), s.wantErr) {
				t.Fatalf("maintenance %s = %v, want an error with %q", s.args, err, s.wantErr)
			}
			continue
		}
		if err != nil || out.String() != s.out+"\n" {
			t.Fatalf("maintenance %s = %q, %v; want %q", s.args, out.String(), err, s.out)
		}
	}
}

// TestMaintenanceIsASubcommand runs it as `guichet maintenance ...` does.
func TestMaintenanceIsASubcommand(t *testing.T) {
	t.Setenv("GUICHET_DATA_DIR", t.TempDir())
	t.Setenv("GUICHET_BRANDS_DIR", "../../config/brands")
	t.Setenv("GUICHET_DATABASE_URL", "")
	var out bytes.Buffer
	if err := run([]string{"maintenance", "on", "--brand", "intact"}, &out); err != nil || out.String() != "maintenance on for intact\n" {
		t.Fatalf("guichet maintenance on --brand intact = %q, %v", out.String(), err)
	}
}
