package progress

import (
	"bytes"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clock is a clock a test moves by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// step is what a test does before one tick: records and defaults added,
// and the time that passes.
type step struct {
	records, defaulted int
	after              time.Duration
}

func TestPlainLines(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		total int
		cost  func() (float64, bool)
		steps []step   // a tick after each
		notes []string // Config.Note's answer at each tick
		want  []string
	}{
		"done of total, rate, time left, defaults and cost": {
			total: 100, cost: func() (float64, bool) { return 0.05, true },
			steps: []step{{20, 1, 10 * time.Second}, {30, 0, 15 * time.Second}},
			want: []string{
				"judge: 20/100 records, 2.0/s, ETA 40s, 1 defaulted, $0.0500",
				"judge: 50/100 records, 2.0/s, ETA 25s, 1 defaulted, $0.0500",
			},
		},
		"a model with no price shows its cost unknown, not $0": {
			total: 10, cost: func() (float64, bool) { return 0, false },
			steps: []step{{5, 0, 5 * time.Second}},
			want:  []string{"judge: 5/10 records, 1.0/s, ETA 5s, 0 defaulted, cost unknown"},
		},
		"nothing done yet has no time left to show": {
			total: 10, steps: []step{{0, 0, 5 * time.Second}},
			want: []string{"judge: 0/10 records, 0.0/s, ETA -, 0 defaulted"},
		},
		"an unknown total shows the count alone": {
			steps: []step{{7, 2, 2 * time.Second}},
			want:  []string{"judge: 7 records, 3.5/s, 2 defaulted"},
		},
		"a finished run has no time left": {
			total: 4, steps: []step{{4, 0, 3 * time.Minute}},
			want: []string{"judge: 4/4 records, 0.0/s, 0 defaulted"},
		},
		"the time left rounds up to a second": {
			total: 3, steps: []step{{1, 0, 1500 * time.Millisecond}},
			want: []string{"judge: 1/3 records, 0.7/s, ETA 3s, 0 defaulted"},
		},
		"one record of one": {
			total: 1, steps: []step{{1, 0, 2 * time.Second}},
			want: []string{"judge: 1/1 record, 0.5/s, 0 defaulted"},
		},
		"one record of an unknown total": {
			steps: []step{{1, 0, 2 * time.Second}},
			want:  []string{"judge: 1 record, 0.5/s, 0 defaulted"},
		},
		"no tick, no line: a short run prints nothing": {total: 5},
		"a note takes the place of the time left while it lasts": {
			total: 10, notes: []string{"model server not answering for 12s, 8 calls waiting for it", ""},
			steps: []step{{2, 0, 2 * time.Second}, {2, 0, 2 * time.Second}},
			want: []string{
				"judge: 2/10 records, 1.0/s, model server not answering for 12s, 8 calls waiting for it, 0 defaulted",
				"judge: 4/10 records, 1.0/s, ETA 6s, 0 defaulted",
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			clk := &clock{now: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)}
			tick := make(chan time.Time) // unbuffered: a send returns once the Meter has it
			var note atomic.Value
			note.Store("")
			cfg := Config{Label: "judge", Total: tc.total, Tick: tick, Now: clk.Now, Cost: tc.cost}
			if tc.notes != nil {
				cfg.Note = func() string { return note.Load().(string) }
			}
			m := New(&out, cfg)
			for i, s := range tc.steps {
				if tc.notes != nil {
					note.Store(tc.notes[i])
				}
				m.Add(s.records, s.defaulted)
				clk.advance(s.after)
				tick <- clk.Now()
			}
			m.Close() // waits for the last line to be written
			var got []string
			for line := range strings.Lines(out.String()) {
				got = append(got, strings.TrimSuffix(line, "\n"))
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestQuietShowsNothing(t *testing.T) {
	t.Parallel()
	for name, live := range map[string]bool{"plain": false, "live": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			m := New(&out, Config{Label: "judge", Total: 2, Quiet: true, Live: live, Tick: make(chan time.Time)})
			m.Add(2, 1)
			m.Close()
			assert.Empty(t, out.String())
		})
	}
}

// TestLiveBar draws the bar into a buffer: it ends showing the records
// done, the figures and, for an interrupted run, where it stopped.
func TestLiveBar(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		total, done int
		want        string
	}{
		"a finished run":     {total: 3, done: 3, want: "judge 3/3"},
		"an interrupted one": {total: 5, done: 2, want: "judge 2/5"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			m := New(&out, Config{Label: "judge", Total: tc.total, Live: true, Cost: func() (float64, bool) { return 0.25, true }})
			m.Add(tc.done, 1)
			m.Close()
			require.NotEmpty(t, out.String())
			assert.Contains(t, out.String(), tc.want)
			assert.Contains(t, out.String(), "1 defaulted, $0.2500")
			assert.Same(t, &out, m.Writer(&out), "results go straight to stdout that is not a terminal")
		})
	}
}

func TestIsTerminal(t *testing.T) {
	t.Parallel()
	assert.False(t, IsTerminal(&bytes.Buffer{}))
}
