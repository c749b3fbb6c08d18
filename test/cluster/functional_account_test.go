package cluster

import (
	"context"
	"fmt"
	"testing"
)

// TestPasswordChangeAcrossInstances: a customer signed in on two browsers
// changes their password through one instance (issue 31); the other
// browser's session ends on every instance, this browser's stays on every
// one, and the new password signs in through the load balancer.
func TestPasswordChangeAcrossInstances(t *testing.T) {
	ctx := context.Background()
	loadAPIKey(t, "scotia.localhost")
	const email, newPassword = "francais@scotia.example", "Harbour-Lights-2027!"
	here := newClient("127.0.0.4", "scotia.localhost")
	there := newClient("127.0.0.5", "scotia.localhost")
	for _, c := range []*client{here, there} {
		c.mustSignIn(ctx, t, "sign-in", setup.lb, email, demoPassword)
	}
	a, err := here.json(ctx, cl.instances[0].addr, "POST", "/api/v1/me/password",
		fmt.Sprintf(`{"currentPassword":%q,"newPassword":%q}`, demoPassword, newPassword))
	if err != nil || a.status != 204 {
		t.Fatalf("change on %s: %d %v %v", cl.instances[0].name, a.status, a.body, err)
	}
	for _, in := range cl.instances {
		if a, err := there.json(ctx, in.addr, "GET", "/api/v1/me", ""); err != nil || a.status != 401 {
			t.Fatalf("the other browser on %s: %d %v, want 401", in.name, a.status, err)
		}
		if a, err := here.json(ctx, in.addr, "GET", "/api/v1/me", ""); err != nil || a.status != 200 {
			t.Fatalf("this browser on %s: %d %v, want 200", in.name, a.status, err)
		}
	}
	there.mustSignIn(ctx, t, "the new password", setup.lb, email, newPassword)
}
