package app

import "context"

// goServe runs a.Serve(ctx) in the background: addr gets the public address
// once it listens, served what Serve returns.
func goServe(ctx context.Context, a *App) (addr <-chan string, served <-chan error) {
	addrc, servedc := make(chan string, 1), make(chan error, 1)
	go func() { servedc <- a.Serve(ctx, func(s string) { addrc <- s }) }()
	return addrc, servedc
}
