package live_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/serve/live"
)

// noWait retries at once, at most n times: the tests count retries, they
// do not wait for them.
func noWait(n uint64) func() backoff.BackOff {
	return func() backoff.BackOff { return backoff.WithMaxRetries(&backoff.ZeroBackOff{}, n) }
}

// alerting is a config whose every observation changes the alert state:
// the window is the last score, against a baseline of 0.9.
func alerting(clk *clock, hook live.Webhook) live.Config {
	return live.Config{Window: 1, MinScores: 1, Baseline: map[string]float64{metricF: 0.9}, Webhook: hook, Now: clk.Now}
}

func TestWebhookRetries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		statuses []int // answered in turn; the last one from then on
		requests int64
		want     live.Delivery
	}{
		{"fails twice, then succeeds", []int{503, 500, 204}, 3, live.Delivery{Enabled: true, Delivered: 1, Retries: 2}},
		{"a 429 is retried too", []int{429, 200}, 2, live.Delivery{Enabled: true, Delivered: 1, Retries: 1}},
		{"a 400 is not retried", []int{400}, 1, live.Delivery{Enabled: true, Failed: 1, LastError: "answered 400 Bad Request"}},
		{"retries run out", []int{502}, 4, live.Delivery{Enabled: true, Failed: 1, Retries: 3, LastError: "answered 502 Bad Gateway"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var requests atomic.Int64
			var mu sync.Mutex
			var bodies []live.Event
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := requests.Add(1)
				var e live.Event
				assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
				assert.Equal(t, "Bearer k", r.Header.Get("Authorization"))
				assert.NoError(t, json.NewDecoder(r.Body).Decode(&e))
				mu.Lock()
				bodies = append(bodies, e)
				mu.Unlock()
				w.WriteHeader(tc.statuses[min(int(n), len(tc.statuses))-1])
			}))
			t.Cleanup(srv.Close)
			clk := newClock()
			m, err := live.New(alerting(clk, live.Webhook{
				URL: srv.URL, Header: http.Header{"Authorization": {"Bearer k"}}, BackOff: noWait(3),
			}))
			require.NoError(t, err)
			m.Observe(metricF, 0.3, false, map[string]string{"trace_id": "abc"}, clk.Now())
			require.NoError(t, m.Flush(context.Background()))
			require.NoError(t, m.Close())

			assert.Equal(t, tc.requests, requests.Load())
			got := m.Snapshot().Webhook
			assert.Contains(t, got.LastError, tc.want.LastError, "why the last event failed")
			got.LastError, tc.want.LastError = "", ""
			assert.Equal(t, tc.want, got)
			mu.Lock()
			defer mu.Unlock()
			for _, e := range bodies {
				assert.Equal(t, live.EventOpen, e.Kind)
				assert.Equal(t, "critical", e.Severity)
				assert.Equal(t, metricF, e.Metric)
				assert.InDelta(t, 0.3, float64(e.Mean), 1e-12)
				assert.Equal(t, map[string]string{"trace_id": "abc"}, e.Meta)
				assert.Len(t, e.Alerts, 2, "degradation and threshold")
			}
		})
	}
}

// TestSlowWebhookNeverBlocksObserve holds the webhook's first answer
// while events keep coming: Observe returns every time (were it to wait,
// the test would never reach its assertions), the queue keeps the newest
// events and counts the ones it dropped.
func TestSlowWebhookNeverBlocksObserve(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 16)
	release := make(chan struct{})
	var got []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var e live.Event
		assert.NoError(t, json.NewDecoder(r.Body).Decode(&e))
		mu.Lock()
		got = append(got, e.Kind+" "+e.Meta["n"])
		mu.Unlock()
		arrived <- struct{}{}
		<-release
	}))
	t.Cleanup(srv.Close)
	clk := newClock()
	cfg := alerting(clk, live.Webhook{URL: srv.URL, Queue: 2, BackOff: noWait(0)})
	var sunk []string
	cfg.Sink = live.SinkFunc(func(_ context.Context, e live.Event) error {
		sunk = append(sunk, e.Kind+" "+e.Meta["n"]) // one goroutine calls the sink
		return nil
	})
	m, err := live.New(cfg)
	require.NoError(t, err)

	observe := func(i int) {
		v := 0.9 // resolves
		if i%2 == 0 {
			v = 0.3 // opens
		}
		m.Observe(metricF, v, false, map[string]string{"n": string(rune('a' + i))}, clk.Now())
	}
	observe(0)
	<-arrived // the first post is in flight, and held
	for i := 1; i <= 10; i++ {
		observe(i)
	}
	s := m.Snapshot()
	assert.Equal(t, int64(8), s.Webhook.Dropped)
	assert.Equal(t, int64(2), s.Webhook.Queued)
	close(release)
	require.NoError(t, m.Flush(context.Background()))
	require.NoError(t, m.Close())
	assert.Equal(t, live.Delivery{Enabled: true, Delivered: 3, Dropped: 8}, m.Snapshot().Webhook)
	mu.Lock()
	assert.Equal(t, []string{"open a", "resolve j", "open k"}, got, "the oldest are dropped")
	mu.Unlock()
	assert.Len(t, sunk, 11, "the sink's own queue kept every event")
	assert.Equal(t, live.Delivery{Enabled: true, Delivered: 11}, m.Snapshot().Sink)
}

// TestCloseAbandonsQueued closes a monitor while its webhook holds a
// post: Close cancels it, and what was queued is counted, not lost in
// silence.
func TestCloseAbandonsQueued(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read the body, so that the server sees the client hang up.
		_, _ = io.Copy(io.Discard, r.Body)
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	clk := newClock()
	m, err := live.New(alerting(clk, live.Webhook{URL: srv.URL, BackOff: noWait(5)}))
	require.NoError(t, err)
	m.Observe(metricF, 0.3, false, nil, clk.Now())
	<-arrived
	m.Observe(metricF, 0.9, false, nil, clk.Now())
	require.NoError(t, m.Close())
	m.Observe(metricF, 0.3, false, nil, clk.Now())
	assert.Equal(t, live.Delivery{Enabled: true, Abandoned: 3}, m.Snapshot().Webhook)
}

func TestFlushHonoursItsContext(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	clk := newClock()
	m, err := live.New(alerting(clk, live.Webhook{URL: srv.URL, BackOff: noWait(0)}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	m.Observe(metricF, 0.3, false, nil, clk.Now())
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0)) // already over
	defer cancel()
	assert.ErrorIs(t, m.Flush(ctx), context.DeadlineExceeded)
}

// TestWebhookRedirectIsNotFollowed: a webhook that redirects is a
// failure, never a delivery. Go's client would follow a 301, 302 or 303
// with a GET and no body, and count the GET's 200 as the event posted.
func TestWebhookRedirectIsNotFollowed(t *testing.T) {
	t.Parallel()
	for name, status := range map[string]int{
		"301": http.StatusMovedPermanently, "302": http.StatusFound, "303": http.StatusSeeOther,
		"307": http.StatusTemporaryRedirect, "308": http.StatusPermanentRedirect,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var posts, elsewhere atomic.Int64
			mux := http.NewServeMux()
			mux.HandleFunc("/hook", func(w http.ResponseWriter, r *http.Request) {
				posts.Add(1)
				http.Redirect(w, r, "/moved", status)
			})
			mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
				elsewhere.Add(1)
				w.WriteHeader(http.StatusOK)
			})
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			clk := newClock()
			m, err := live.New(alerting(clk, live.Webhook{URL: srv.URL + "/hook", BackOff: noWait(3)}))
			require.NoError(t, err)
			m.Observe(metricF, 0.3, false, nil, clk.Now())
			require.NoError(t, m.Flush(context.Background()))
			require.NoError(t, m.Close())

			assert.Equal(t, int64(1), posts.Load(), "a redirect is not retried")
			assert.Equal(t, int64(0), elsewhere.Load(), "the redirect is not followed")
			got := m.Snapshot().Webhook
			assert.Equal(t, "webhook "+srv.URL+"/... answered "+name+" "+http.StatusText(status)+
				" to /moved: redirects are not followed, post to the URL it names instead", got.LastError)
			got.LastError = ""
			assert.Equal(t, live.Delivery{Enabled: true, Failed: 1}, got)
		})
	}
}

// TestWebhookErrorsKeepItsSecrets: the URL of a chat service's incoming
// webhook carries its token in the path or the query, or a password; the
// error kept in the snapshot (GET /v1/alerts) names the webhook by its
// host, never with them, whether it answered or not.
func TestWebhookErrorsKeepItsSecrets(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such hook", http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close() // nothing listens there now
	host := strings.TrimPrefix(srv.URL, "http://")
	goneHost := strings.TrimPrefix(gone.URL, "http://")
	for name, tc := range map[string]struct {
		url  string
		want string
	}{
		"a token in the path, answered 404": {url: srv.URL + "/services/T0/B0/s3cret",
			want: "webhook http://" + host + "/... answered 404 Not Found: no such hook"},
		"a password, answered 404": {url: "http://hook:s3cret@" + host + "/",
			want: "webhook http://" + host + " answered 404 Not Found"},
		"a token in the query, no answer": {url: gone.URL + "/hook?token=s3cret",
			want: "webhook http://" + goneHost + "/...: dial tcp " + goneHost},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			m, err := live.New(alerting(clk, live.Webhook{URL: tc.url, BackOff: noWait(0)}))
			require.NoError(t, err)
			m.Observe(metricF, 0.3, false, nil, clk.Now())
			require.NoError(t, m.Flush(context.Background()))
			require.NoError(t, m.Close())
			got := m.Snapshot().Webhook
			assert.Equal(t, int64(1), got.Failed)
			assert.Contains(t, got.LastError, tc.want)
			assert.NotContains(t, got.LastError, "s3cret")
		})
	}
}
