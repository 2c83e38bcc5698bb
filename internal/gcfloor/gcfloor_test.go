package gcfloor

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPercent(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		live, floor uint64
		want        int
	}{
		"before any collection: the floor over the runtime's least heap": {live: 0, floor: 64 << 20, want: 1500},
		"a live heap under the least counts as the least":                {live: 1 << 20, floor: 64 << 20, want: 1500},
		"16 MB live: the next collection at 64":                          {live: 16 << 20, floor: 64 << 20, want: 300},
		"a remainder is rounded down":                                    {live: 24 << 20, floor: 64 << 20, want: 166},
		"half the floor live: the default":                               {live: 32 << 20, floor: 64 << 20, want: 100},
		"over the floor: the default, never less":                        {live: 1 << 30, floor: 64 << 20, want: 100},
		"a floor under the least: the default":                           {live: 0, floor: 1 << 20, want: 100},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, Percent(tc.live, tc.floor))
		})
	}
}

// TestSet: the target follows the floor unless GOGC is set, and is set
// again from the live heap after a collection. Not parallel: it sets the
// process's collector.
func TestSet(t *testing.T) {
	old := debug.SetGCPercent(77) // as if the runtime had read 77
	t.Cleanup(func() { floor.Store(0); debug.SetGCPercent(old) })

	for name, gogc := range map[string]string{"GOGC set": "150", "GOGC=off": "off"} {
		t.Run(name, func(t *testing.T) {
			Set(func(string) string { return gogc }, Floor)
			assert.Equal(t, 77, debug.SetGCPercent(77), "the user's GOGC is kept")
		})
	}
	Set(func(string) string { return "" }, 0)
	assert.Equal(t, 77, debug.SetGCPercent(77), "a floor of 0 sets nothing")

	got := make(chan int, 16)
	tuned = func(p int) { got <- p }
	t.Cleanup(func() { tuned = nil })
	Set(func(string) string { return "" }, 256<<20)
	assert.Equal(t, Percent(0, 256<<20), debug.SetGCPercent(Percent(0, 256<<20)))

	live := make([]byte, 64<<20) // kept live across the collection
	runtime.GC()
	var p int
	select {
	case p = <-got:
	case <-time.After(time.Minute): // only a failing run waits
		require.FailNow(t, "no target set after a collection")
	}
	runtime.KeepAlive(live)
	// 64 MB and the test binary's own heap live: at most (256-64)/64.
	assert.LessOrEqual(t, p, 300)
	assert.GreaterOrEqual(t, p, 100)
	assert.Equal(t, p, debug.SetGCPercent(p), "the target is the one reported")
}
