package staff

import (
	"testing"
	"time"
)

func TestRoleAtLeast(t *testing.T) {
	cases := []struct {
		r, min Role
		want   bool
	}{
		{RoleAgent, RoleAgent, true}, {RoleAgent, RoleSupervisor, false}, {RoleAgent, RoleAdmin, false},
		{RoleSupervisor, RoleAgent, true}, {RoleSupervisor, RoleSupervisor, true}, {RoleSupervisor, RoleAdmin, false},
		{RoleAdmin, RoleAgent, true}, {RoleAdmin, RoleSupervisor, true}, {RoleAdmin, RoleAdmin, true},
		{Role("boss"), RoleAgent, false}, {Role(""), RoleAgent, false},
	}
	for _, c := range cases {
		if got := c.r.AtLeast(c.min); got != c.want {
			t.Errorf("%q.AtLeast(%q) = %v, want %v", c.r, c.min, got, c.want)
		}
	}
}

func TestPrincipal(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	p := Principal{ID: "s1", Role: RoleAgent, Brands: []string{"belair", "intact"}, FactorAt: now.Add(-10 * time.Minute)}
	if !p.Serves("belair") || p.Serves("scotia") {
		t.Errorf("Serves: belair %v scotia %v", p.Serves("belair"), p.Serves("scotia"))
	}
	if all := (Principal{}); !all.Serves("scotia") {
		t.Error("no brands listed must serve every brand")
	}
	if !p.FactorFresh(now) || p.FactorFresh(now.Add(6*time.Minute)) || (Principal{}).FactorFresh(now) {
		t.Error("FactorFresh: want fresh within 15 minutes only")
	}
	if p.Actor() != "staff:s1" {
		t.Errorf("Actor = %q", p.Actor())
	}
	ctx := WithPrincipal(t.Context(), p)
	if got, ok := PrincipalFrom(ctx); !ok || got.ID != "s1" {
		t.Errorf("PrincipalFrom = %+v %v", got, ok)
	}
	if _, ok := PrincipalFrom(t.Context()); ok {
		t.Error("PrincipalFrom of a bare context must be false")
	}
}
