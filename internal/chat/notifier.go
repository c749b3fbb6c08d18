package chat

import (
	"context"
	"sync"
)

// TopicQueue is the Notifier topic of every change the agents' queues and
// figures may show; any other topic is a conversation id.
const TopicQueue = "queue"

// Notifier wakes the sockets after a commit: Notify announces a topic to
// every listener of every instance; it carries no data (the rows do), so a
// lost notification only delays what the poll finds. LocalNotifier serves
// one instance (SQLite); fanout.Notifier, PostgreSQL's LISTEN/NOTIFY, every
// instance on one database, and sends fanout.TopicAll after its connection
// comes back (the listeners catch up).
type Notifier interface {
	Notify(ctx context.Context, topic string)
	Listen(fn func(topic string))
}

// LocalNotifier is the in-process Notifier: one instance's listeners.
type LocalNotifier struct {
	mu  sync.RWMutex
	fns []func(string)
}

// Notify calls every listener (listeners must not block).
func (n *LocalNotifier) Notify(_ context.Context, topic string) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	for _, fn := range n.fns {
		fn(topic)
	}
}

// Listen adds a listener.
func (n *LocalNotifier) Listen(fn func(string)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.fns = append(n.fns, fn)
}
