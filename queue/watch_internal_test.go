package queue

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// watches is a bucket whose watchers are given in turn: each a list of
// updates, and whether its channel then closes.
type watches struct {
	jetstream.KeyValue
	mu   sync.Mutex
	next []watcher
}

type watcher struct {
	updates chan jetstream.KeyValueEntry
}

func (w watcher) Updates() <-chan jetstream.KeyValueEntry { return w.updates }
func (w watcher) Stop() error                             { return nil }

func (b *watches) Watch(context.Context, string, ...jetstream.WatchOpt) (jetstream.KeyWatcher, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.next[0]
	if len(b.next) > 1 {
		b.next = b.next[1:]
	}
	return w, nil
}

type entry struct {
	jetstream.KeyValueEntry
	key string
	rev uint64
}

func (e entry) Key() string                     { return e.key }
func (e entry) Value() []byte                   { return []byte(`{}`) }
func (e entry) Created() time.Time              { return time.Unix(0, 0) }
func (e entry) Revision() uint64                { return e.rev }
func (e entry) Operation() jetstream.KeyValueOp { return jetstream.KeyValuePut }

func watcherOf(closed bool, es ...jetstream.KeyValueEntry) watcher {
	w := watcher{updates: make(chan jetstream.KeyValueEntry, len(es)+1)}
	for _, e := range es {
		w.updates <- e
	}
	if closed {
		close(w.updates)
	}
	return w
}

// WatchKeys goes on yielding replies when a watcher's channel closes
// under it while its context lasts: it watches again.
func TestWatchKeysWatchesAgainWhenItsWatcherCloses(t *testing.T) {
	tests := map[string]struct {
		watchers []watcher
		want     []string
	}{
		"one watcher": {watchers: []watcher{watcherOf(false, entry{key: "r.a.1", rev: 1})}, want: []string{"r.a.1"}},
		"the first closes": {watchers: []watcher{watcherOf(true, entry{key: "r.a.1", rev: 1}), watcherOf(false, entry{key: "r.a.1", rev: 1}, entry{key: "r.a.2", rev: 2})},
			want: []string{"r.a.1", "r.a.1", "r.a.2"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := &Conn{kv: &watches{next: tc.watchers}, reconnected: make(chan struct{})}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			out, err := c.WatchKeys(ctx, "r.a.*")
			require.NoError(t, err)
			var got []string
			for range tc.want {
				select {
				case e, ok := <-out:
					require.True(t, ok, "the watch ended while its context lasts, after %v", got)
					got = append(got, e.Key)
				case <-time.After(30 * time.Second):
					t.Fatalf("no entry after %v", got)
				}
			}
			require.Equal(t, tc.want, got)
		})
	}
}
