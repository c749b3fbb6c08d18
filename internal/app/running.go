package app

import (
	"context"
	"net/http"
	"sync"
)

// running counts the public listener's handlers under way, the hijacked
// ones included: http.Server.Shutdown does not wait for a handler whose
// connection it handed over (a WebSocket upgrade), and Serve waits for
// them before the database closes and the last spans are exported.
type running struct{ wg sync.WaitGroup }

func (r *running) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.wg.Add(1)
		defer r.wg.Done()
		next.ServeHTTP(w, req)
	})
}

// wait returns once every handler has returned, or when ctx ends; call it
// after the server's Shutdown, when no handler starts any more.
func (r *running) wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
