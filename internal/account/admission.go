package account

import (
	"context"
	"sync"
	"time"
)

// Fair admission (issue 34): under a flood the hashers' queue stays at its
// bound, and whoever sends most takes most places in it. So one client
// address (the throttle's key: an IPv4 address, an IPv6 /64) may hold at
// most a share of the places the wait budget holds, and a visitor from
// elsewhere still finds one free while an address floods.

// DefaultClientShare is Hasher.ClientShare's default: one address may
// hold an eighth of the places, so a flood needs eight addresses to fill
// the queue. A household or an office behind one address that signs in
// together still fits: with 2 hashers, 20 ms hashes and the 2 s budget
// an address holds 25 places.
const DefaultClientShare = 8

// AdmitClient is Admit for a request from client (throttle.ClientKey of
// its address; "" counts no address): besides the wait budget, client is
// refused while it holds its share of the places, max(1, places ÷
// ClientShare) where places is how many hashes the budget holds (WaitBudget
// × HashSlots() ÷ the recent hash time). The place stays the client's until
// release, when the request is done. The HTTP layer calls it before
// anything else of a request that hashes (httpapi's shed.go); the service's
// own Admit then finds the reservation in ctx and admits as it is.
func (h *Hasher) AdmitClient(ctx context.Context, client string) (context.Context, func(), error) {
	if _, ok := ctx.Value(reservationKey{}).(*reservation); ok {
		return ctx, func() {}, nil
	}
	q := h.hashQueue()
	if w, ok := q.admit(h.now(), h.WaitBudget, client, h.ClientShare); !ok {
		return ctx, func() {}, &BusyError{Wait: w}
	}
	r := &reservation{}
	var once sync.Once
	release := func() {
		once.Do(func() {
			q.forget(client)
			if r.taken.CompareAndSwap(false, true) {
				q.leave()
			}
		})
	}
	return context.WithValue(ctx, reservationKey{}, r), release, nil
}

// admit counts a hash in for client, unless the expected wait at now
// passes budget (0: no bound) or, with share > 0, client's own places and
// this one would take more than budget ÷ share of the hashers' time; then
// it returns that wait and changes nothing. A client holding no place is
// never refused for its share.
func (q *hashQueue) admit(now time.Time, budget time.Duration, client string, share int) (time.Duration, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if w := q.wait(now); budget > 0 && w > budget {
		return w, false
	}
	held := q.clients[client]
	if own := time.Duration(held+1) * q.estimate(now) / time.Duration(hashSlots); budget > 0 && client != "" &&
		share > 0 && held > 0 && own > budget/time.Duration(share) {
		return own, false
	}
	q.pending++
	if client != "" {
		if q.clients == nil {
			q.clients = map[string]int{}
		}
		q.clients[client] = held + 1
	}
	return 0, true
}

// forget counts out a place client held ("" holds none).
func (q *hashQueue) forget(client string) {
	if client == "" {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.clients[client] <= 1 {
		delete(q.clients, client)
	} else {
		q.clients[client]--
	}
}
