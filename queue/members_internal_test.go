package queue

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A worker started with peers (bench --workers N) owns no partition
// until it sees them all, or a lease has passed since it started; then
// it owns its share as any worker does.
func TestPeersAreAwaitedBeforeOwning(t *testing.T) {
	t.Parallel()
	const lease = 10 * time.Second
	tests := map[string]struct {
		peers  int
		others int
		age    time.Duration
		owns   bool
	}{
		"no peers expected: owns at once":            {peers: 0, others: 0, owns: true},
		"one, itself: owns at once":                  {peers: 1, others: 0, owns: true},
		"alone of three: waits":                      {peers: 3, others: 0, owns: false},
		"two of three: waits":                        {peers: 3, others: 1, owns: false},
		"all three there: owns its share":            {peers: 3, others: 2, owns: true},
		"more than expected: owns its share":         {peers: 2, others: 3, owns: true},
		"alone of three, a lease later: owns them":   {peers: 3, others: 0, age: lease, owns: true},
		"alone of three, just before a lease: waits": {peers: 3, others: 0, age: lease - time.Second, owns: false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := &members{id: "me", lease: lease, log: io.Discard, name: "w", others: map[string]time.Time{},
				changed: make(chan struct{}), ready: true, joined: true, peers: tc.peers, start: time.Now().Add(-tc.age)}
			for i := range tc.others {
				m.others[string(rune('a'+i))] = time.Now()
			}
			m.update()
			owned, _ := m.Owned()
			assert.Equal(t, tc.owns, len(owned) > 0, "owned %v", owned)
			if tc.owns && tc.others == 0 {
				assert.Len(t, owned, Partitions, "alone, it owns every partition")
			}
		})
	}
}
