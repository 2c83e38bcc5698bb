package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/serve/live"
)

// hookServer is a webhook receiver that keeps every event posted to it.
type hookServer struct {
	*httptest.Server
	mu     sync.Mutex
	posted []live.Event
}

func newHookServer(t *testing.T) *hookServer {
	h := &hookServer{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var e live.Event
		if err := json.NewDecoder(r.Body).Decode(&e); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.posted = append(h.posted, e)
		h.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookServer) events() []live.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]live.Event(nil), h.posted...)
}

// flushAlerts waits until the replica's monitor has claimed and
// delivered every event it computed.
func flushAlerts(t *testing.T, r *replica) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	require.NoError(t, r.Live().Flush(ctx))
}

// storedEvents are the alert events in the replica's store.
func storedEvents(t *testing.T, r *replica) []live.Event {
	t.Helper()
	events, err := r.store.alertEvents(t.Context(), maxAlertEvents)
	require.NoError(t, err)
	return events
}

// manyKeys is a sample's metadata with more keys than an event keeps
// (live.MaxMetaKeys), many of them before result_seq in name order.
func manyKeys(int) map[string]any {
	md := map[string]any{"tenant": "acme"}
	for i := range 2 * live.MaxMetaKeys {
		md[fmt.Sprintf("k%02d", i)] = "v"
	}
	return md
}

// TestAlertsOnceAcrossReplicas: two replicas share a queue, with one
// webhook. The samples' metadata has more keys than an event keeps: the
// result's sequence, which names the event's claim, is kept. Ten traces judged well make the baseline, then ten judged
// worse open a warning. Both replicas compute the same open event from
// the same ordered results, and it is delivered once: one post to the
// webhook, one row in one replica's store, one claim won and one seen
// elsewhere. A replica restarted on the same data folder replays every
// result, computes the event again (its alert is open), and posts and
// stores nothing new.
func TestAlertsOnceAcrossReplicas(t *testing.T) {
	t.Parallel()
	model, degraded := degradingModel(t)
	env := withModel(Config{}, model.URL()).Env
	hook := newHookServer(t)
	url := natsFor(t)
	cfg := Config{Queue: url, Env: env, TraceMetrics: []string{"faithfulness"}, Webhook: hook.URL}
	bDir := t.TempDir()
	a := newReplicaOf(t, cfg)
	bCfg := cfg
	bCfg.DataDir = bDir
	b := newReplicaOf(t, bCfg)
	startWorkers(t, url, env, 2)

	post := func(to *replica, ids []string) {
		t.Helper()
		code, body := call(t, http.MethodPost, to.ts.URL+"/v1/traces", traceBody(t, ids, manyKeys))
		require.Equal(t, http.StatusAccepted, code, body)
	}
	good, worse := traceIDs("good", 10), traceIDs("worse", 10)
	post(a, good[:5])
	post(b, good[5:])
	for _, r := range []*replica{a, b} {
		eventually(t, "the good traces applied", func() bool { return applied(r) == 10 })
	}
	degraded.Store(true)
	post(b, worse[:5])
	post(a, worse[5:])
	for _, r := range []*replica{a, b} {
		eventually(t, "every trace applied", func() bool { return applied(r) == 20 })
		flushAlerts(t, r)
	}

	posted := hook.events()
	require.Len(t, posted, 1, "one post across the replicas: %+v", posted)
	assert.Equal(t, live.EventOpen, posted[0].Kind)
	assert.Equal(t, "faithfulness", posted[0].Metric)
	assert.Equal(t, run.SeverityWarning, posted[0].Severity)
	assert.InDelta(t, 0.8, float64(posted[0].Mean), 1e-9, "opened by the fourth worse score")
	assert.NotEmpty(t, posted[0].Meta[MetaResultSeq], "the result that caused it")

	stored := append(storedEvents(t, a), storedEvents(t, b)...)
	require.Len(t, stored, 1, "one row across the replicas' stores")
	assert.Equal(t, posted[0].Meta, stored[0].Meta)
	for _, r := range []*replica{a, b} {
		snap := r.Live().Snapshot()
		require.Len(t, snap.Open, 1, "each replica sees the warning open")
		assert.Equal(t, run.SeverityWarning, snap.Open[0].Severity)
	}
	ca, cb := a.Live().Snapshot().Claims, b.Live().Snapshot().Claims
	assert.Equal(t, int64(1), ca.Delivered+cb.Delivered, "claims won: %+v %+v", ca, cb)
	assert.Equal(t, int64(1), ca.Elsewhere+cb.Elsewhere, "claims lost: %+v %+v", ca, cb)
	assert.Zero(t, ca.Failed+cb.Failed)
	bStored := len(storedEvents(t, b))

	// b restarts on its data folder and replays the results.
	b.kill()
	b2 := newReplicaOf(t, bCfg)
	eventually(t, "the restarted replica replayed every result", func() bool { return applied(b2) == 20 })
	flushAlerts(t, b2)
	snap := b2.Live().Snapshot()
	require.Len(t, snap.Open, 1, "the replayed results open the warning again")
	assert.Equal(t, live.Delivery{Enabled: true, Elsewhere: 1}, snap.Claims, "the replayed event was claimed already")
	assert.Len(t, hook.events(), 1, "nothing posted again")
	assert.Len(t, storedEvents(t, b2), bStored, "nothing stored again")

	// /v1/alerts and /metrics say so.
	code, body := call(t, http.MethodGet, b2.ts.URL+"/v1/alerts", "")
	require.Equal(t, http.StatusOK, code, body)
	var alerts AlertsResponse
	require.NoError(t, json.Unmarshal([]byte(body), &alerts))
	assert.Equal(t, int64(1), alerts.Claims.Elsewhere)
	assert.Zero(t, alerts.Webhook.Delivered)
	fams := scrape(t, b2.ts.URL)
	n, ok := sample(fams, "assay_alert_deliveries_total", "target", "claim", "outcome", "elsewhere")
	assert.True(t, ok)
	assert.InDelta(t, 1, n, 1e-9)
}
