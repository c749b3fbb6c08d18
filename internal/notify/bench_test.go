package notify

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"guichet/internal/store"
	"guichet/internal/store/storetest"
	"guichet/internal/testenv"
)

// BenchmarkDelivery measures delivery throughput from the outbox to a local
// SMTP server (go-smtp, in the process) with one and two workers, on SQLite
// and, when GUICHET_TEST_DATABASE_URL is set, PostgreSQL. Each operation is
// one message; msgs/s is reported. Queueing is not timed.
//
//	go test -run '^$' -bench BenchmarkDelivery ./internal/notify/
func BenchmarkDelivery(b *testing.B) {
	databases := []struct {
		name string
		open func(testing.TB) *store.DB
	}{{"sqlite", storetest.Open}}
	if os.Getenv(storetest.EnvURL) != "" {
		databases = append(databases, struct {
			name string
			open func(testing.TB) *store.DB
		}{"postgres", storetest.OpenPostgres})
	}
	reg := testenv.Brands(b)
	for _, d := range databases {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", d.name, workers), func(b *testing.B) {
				db := d.open(b)
				srv := startSMTP(b, smtpServerOptions{})
				queueForBench(b, db, b.N)
				ctx, cancel := context.WithCancel(context.Background())
				var wg sync.WaitGroup
				b.ResetTimer()
				start := time.Now()
				for i := 0; i < workers; i++ {
					w := NewWorker(db, reg, newSMTPSender(b, srv.url()), nil, WorkerOptions{
						Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
					})
					wg.Go(func() {
						_ = w.Run(ctx)
					})
				}
				for {
					if len(srv.messages()) >= b.N {
						var sent int
						if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE state = 'sent'`).Scan(&sent); err != nil {
							b.Fatal(err)
						}
						if sent == b.N {
							break
						}
					}
					time.Sleep(2 * time.Millisecond)
				}
				elapsed := time.Since(start)
				b.StopTimer()
				cancel()
				wg.Wait()
				if got := len(srv.messages()); got != b.N {
					b.Fatalf("server received %d messages, want %d", got, b.N)
				}
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
			})
		}
	}
}

func queueForBench(b *testing.B, db *store.DB, n int) {
	b.Helper()
	const batch = 500
	for done := 0; done < n; done += batch {
		err := db.InTx(context.Background(), func(tx *store.Tx) error {
			for i := done; i < min(n, done+batch); i++ {
				if _, err := Enqueue(context.Background(), tx, resetCodeEmail(fmt.Sprintf("user%d@example.com", i), testCode)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
