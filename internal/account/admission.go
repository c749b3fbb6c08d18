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
// together still fits: with 2 hashers, 20 ms hashes and the 1.5 s budget
// the queue holds 150 places, an address 18.
const DefaultClientShare = 8

// AdmitClient is Admit for a request from client (throttle.ClientKey of
// its address; "" counts no address): besides the wait budget, client is
// refused while it holds its share of the places, max(1, places ÷
// ClientShare) where places is how many hashes the budget holds (WaitBudget
// × HashSlots() ÷ the recent hash time). The place stays the client's until
// release, when the request is done.
//
// A ctx marked Returning (returning.go) with an account that holds no
// place in the returning browsers' lane yet is admitted there (a customer
// signs in once at a time; a second request of the account waits with
// the others), or with the others when the lane's wait would pass the
// budget (laneFor).
func (h *Hasher) AdmitClient(ctx context.Context, client string) (context.Context, func(), error) {
	if _, ok := ctx.Value(reservationKey{}).(*reservation); ok {
		return ctx, func() {}, nil
	}
	q := h.hashQueue()
	account := returningAccount(ctx)
	l, w, ok := q.admit(h.now(), h.WaitBudget, client, h.ClientShare, account)
	if !ok {
		h.Metrics.refused()
		return ctx, func() {}, &BusyError{Wait: w}
	}
	h.Metrics.admitted(l)
	r := &reservation{lane: l}
	var once sync.Once
	release := func() {
		once.Do(func() { q.release(client, r.taken.CompareAndSwap(false, true), l, account) })
	}
	return context.WithValue(ctx, reservationKey{}, r), release, nil
}

// Check answers as AdmitClient would for client now, reserving nothing:
// the HTTP layer asks it before it reads anything of a request that would
// hash (httpapi's shed.go), so the refusals under a flood cost no
// logging, decoding or database read; the request's service admits it
// afterwards (and may still refuse it, when the queue filled meanwhile).
// Nothing is held while the request's body arrives, however slowly.
// account is the account of a returning browser's sign-in (the caller
// checked the request's pass; "" for any other request).
func (h *Hasher) Check(client, account string) error {
	if w, ok := h.hashQueue().check(h.now(), h.WaitBudget, client, h.ClientShare, account); !ok {
		h.Metrics.refused()
		return &BusyError{Wait: w}
	}
	return nil
}

// check is admit without counting anything.
func (q *hashQueue) check(now time.Time, budget time.Duration, client string, share int, account string) (time.Duration, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	_, w, ok := q.laneFor(now, budget, client, share, account)
	return w, ok
}

// laneFor (q.mu held) is the lane a hash of client, from a returning
// browser of account ("": none), is admitted in, or its refusal's wait:
// the returning lane, unless the account holds a place there already or
// the lane's wait (counted at its most: returningShare hashes for each of
// its own) would pass the budget, and then the other lane, so a returning
// browser is never refused where a new one would be admitted (a busy
// machine's bench refused returning sign-ins, 8 at once with the other
// lane empty).
func (q *hashQueue) laneFor(now time.Time, budget time.Duration, client string, share int, account string) (lane, time.Duration, bool) {
	if account != "" && q.accounts[account] == 0 {
		if w, ok := q.refusal(now, budget, client, share, laneReturning); ok || q.wait(now, laneReturning) <= budget {
			return laneReturning, w, ok // admitted, or refused for the address's share
		}
	}
	w, ok := q.refusal(now, budget, client, share, laneOther)
	return laneOther, w, ok
}

// admit counts a hash in for client, in the lane laneFor gives, unless it
// refuses it.
func (q *hashQueue) admit(now time.Time, budget time.Duration, client string, share int, account string) (lane, time.Duration, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	l, w, ok := q.laneFor(now, budget, client, share, account)
	if !ok {
		return l, w, false
	}
	q.count(l, 1)
	if l == laneReturning {
		if q.accounts == nil {
			q.accounts = map[string]int{}
		}
		q.accounts[account]++
	}
	if client != "" {
		if q.clients == nil {
			q.clients = map[string]int{}
		}
		q.clients[client]++
	}
	return l, 0, true
}

// refusal (q.mu held) refuses a hash of lane l for client when the
// expected wait at now passes budget (0: no bound) or, with share > 0,
// when client's own places and this one would take more than budget ÷
// share of the hashers' time; it returns that wait. A client holding no
// place is never refused for its share.
func (q *hashQueue) refusal(now time.Time, budget time.Duration, client string, share int, l lane) (time.Duration, bool) {
	if w := q.wait(now, l); budget > 0 && w > budget {
		return w, false
	}
	held := q.clients[client]
	if own := time.Duration(held+1) * q.estimate(now) / time.Duration(hashSlots); budget > 0 && client != "" &&
		share > 0 && held > 0 && own > budget/time.Duration(share) {
		return own, false
	}
	return 0, true
}

// release counts out, in one locked step, the place client held ("" holds
// none), the returning lane's place of account when l is that lane, and,
// when unused (its request never reached its hash), the reservation in l.
func (q *hashQueue) release(client string, unused bool, l lane, account string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if unused {
		q.count(l, -1)
	}
	if l == laneReturning {
		forget(q.accounts, account)
	}
	if client != "" {
		forget(q.clients, client)
	}
}

// forget counts one place of key out of held.
func forget(held map[string]int, key string) {
	if held[key] <= 1 {
		delete(held, key)
	} else {
		held[key]--
	}
}
