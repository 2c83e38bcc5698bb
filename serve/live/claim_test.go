package live_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/serve/live"
)

// claims is a claim store shared by monitors: the first claim of a key
// wins, as a create-if-absent in a shared bucket does.
type claims struct {
	mu    sync.Mutex
	taken map[string]bool
	err   error
}

func (c *claims) Claim(_ context.Context, e live.Event) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return false, c.err
	}
	key := e.Meta["seq"] + "." + e.Kind + "." + e.Metric
	if c.taken[key] {
		return false, nil
	}
	c.taken[key] = true
	return true, nil
}

// Monitors that see the same observations compute the same events, and
// with a shared Claimer their sinks get each event once between them: the
// claims won are delivered, the others counted elsewhere; a claim that
// fails is counted failed and delivers nothing.
func TestClaimDecidesDelivery(t *testing.T) {
	t.Parallel()
	values := []float64{0.5, 0.9, 0.5, 0.9} // open, resolve, open, resolve
	for _, tc := range []struct {
		name      string
		err       error
		delivered int64 // claims won, across the monitors
		elsewhere int64
		failed    int64
		sunk      int // events the sinks got, across the monitors
	}{
		{name: "first claim wins", delivered: 4, elsewhere: 4, sunk: 4},
		{name: "claims fail", err: errors.New("bucket away"), failed: 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			shared := &claims{taken: map[string]bool{}, err: tc.err}
			var mu sync.Mutex
			var sunk []live.Event
			sink := live.SinkFunc(func(_ context.Context, e live.Event) error {
				mu.Lock()
				defer mu.Unlock()
				sunk = append(sunk, e)
				return nil
			})
			var got live.Delivery
			for range 2 {
				clk := newClock()
				cfg := alerting(clk, live.Webhook{})
				cfg.Sink, cfg.Claim = sink, shared
				m, err := live.New(cfg)
				require.NoError(t, err)
				for i, v := range values {
					m.Observe(metricF, v, false, map[string]string{"seq": strconv.Itoa(i)}, clk.Now())
				}
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				require.NoError(t, m.Flush(ctx))
				cancel()
				snap := m.Snapshot()
				require.Len(t, snap.Events, len(values), "each monitor computes every event")
				got.Delivered += snap.Claims.Delivered
				got.Elsewhere += snap.Claims.Elsewhere
				got.Failed += snap.Claims.Failed
				assert.Equal(t, snap.Claims.Delivered, snap.Sink.Delivered, "the sink gets the claims won")
				require.NoError(t, m.Close())
			}
			assert.Equal(t, live.Delivery{Delivered: tc.delivered, Elsewhere: tc.elsewhere, Failed: tc.failed}, got)
			assert.Len(t, sunk, tc.sunk)
			kinds := map[string]int{}
			for _, e := range sunk {
				kinds[e.Meta["seq"]+e.Kind]++
			}
			for k, n := range kinds {
				assert.Equal(t, 1, n, "event %s delivered once", k)
			}
		})
	}
}
