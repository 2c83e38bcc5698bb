package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/browsertest"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/serve/live"
)

// testClock is a clock the test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock { return &testClock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// degradingModel is a fake model server whose faithfulness verdicts
// support both claims of an answer, or only the first once degraded.
func degradingModel(t *testing.T) (*llmtest.Server, *atomic.Bool) {
	var degraded atomic.Bool
	srv := llmtest.New(t, llmtest.Quiet(), llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil && rf.JSONSchema.Name == "verdicts" {
			second := `{"statement":2,"verdict":"supported","context":"","reason":"the context gives the height"}`
			if degraded.Load() {
				second = `{"statement":2,"verdict":"unsupported","context":"","reason":"no context gives that height"}`
			}
			return llmtest.Reply{Content: `{"verdicts":[{"statement":1,"verdict":"supported","context":"","reason":"the context gives the year"},` + second + `]}`}
		}
		return llmtest.JudgeReplies(req)
	}))
	return srv, &degraded
}

// served is a Server answering on a loopback port through Serve, as
// assay serve runs it; stop shuts it down as SIGTERM does.
type served struct {
	*Server
	URL  string
	stop func() error
}

func serveOn(t *testing.T, cfg Config) *served {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	if cfg.Store == "" {
		cfg.Store = filepath.Join(cfg.DataDir, "runs.db")
	}
	s, err := New(cfg)
	require.NoError(t, err)
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	var once sync.Once
	var serveErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			serveErr = <-done
		})
		return serveErr
	}
	t.Cleanup(func() { _ = stop() })
	return &served{Server: s, URL: "http://" + ln.Addr().String(), stop: stop}
}

// scrape reads /metrics as Prometheus parses it.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	code, body := call(t, http.MethodGet, url+"/metrics", "")
	require.Equal(t, http.StatusOK, code, body)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	require.NoError(t, err)
	return fams
}

// sample is the value of family's series with labels, and whether it is
// there.
func sample(fams map[string]*dto.MetricFamily, family string, labels ...string) (float64, bool) {
	f := fams[family]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		}
	}
	return 0, false
}

// eventually polls cond until it holds; the bound only stops a test
// that would hang.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "still not so after a minute: %s", what)
		time.Sleep(5 * time.Millisecond)
	}
}

func traceIDs(prefix string, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-%02d", prefix, i)
	}
	return ids
}

// TestLiveAlertsEndToEnd serves assay serve on a loopback port with a
// model whose verdicts degrade: ten traces judged well make the baseline
// (the first full window of ten), then ten judged worse bring the recent
// mean from 1 to 0.5, under 0.85 x 1. The warning is then in /v1/alerts,
// in /metrics, in the store (read again after the shutdown) and posted to
// the webhook; and the dashboard, opened in headless Chromium, shows the
// mean, the alert and the lowest sample of that traffic with its evidence.
func TestLiveAlertsEndToEnd(t *testing.T) {
	t.Parallel()
	model, degraded := degradingModel(t)
	var hookMu sync.Mutex
	var posted []live.Event
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var e live.Event
		if err := json.NewDecoder(r.Body).Decode(&e); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		hookMu.Lock()
		posted = append(posted, e)
		hookMu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(hook.Close)
	clk := newTestClock()
	dir := t.TempDir()
	s := serveOn(t, withModel(Config{DataDir: dir, TraceMetrics: []string{"faithfulness"}, AlertWindow: 10, Workers: 2,
		Webhook: hook.URL, Now: clk.Now}, model.URL()))
	post := func(ids []string) {
		t.Helper()
		code, body := call(t, http.MethodPost, s.URL+"/v1/traces", traceBody(t, ids, func(i int) map[string]any { return map[string]any{"tenant": "acme"} }))
		require.Equal(t, http.StatusAccepted, code, body)
	}
	judged := func(n int) func() bool {
		return func() bool {
			sum, err := s.TraceSummary(t.Context(), SummaryQuery{})
			require.NoError(t, err)
			got := 0
			for _, g := range sum.Groups {
				got += g.N
			}
			return got == n
		}
	}
	// The store records a trace before the monitor observes its scores:
	// each step waits for both.
	observed := func(what string, mean float64, baseline bool) {
		t.Helper()
		eventually(t, what, func() bool {
			fams := scrape(t, s.URL)
			m, ok := sample(fams, "assay_live_mean", "metric", "faithfulness")
			_, hasBase := sample(fams, "assay_live_baseline", "metric", "faithfulness")
			return ok && math.Abs(m-mean) < 1e-9 && hasBase == baseline
		})
	}
	post(traceIDs("good", 10))
	eventually(t, "ten traces judged", judged(10))
	observed("the monitor observed the ten", 1, true)
	fams := scrape(t, s.URL)
	mean, ok := sample(fams, "assay_live_mean", "metric", "faithfulness")
	assert.True(t, ok)
	assert.InDelta(t, 1.0, mean, 1e-9, "both claims of every answer supported")
	base, ok := sample(fams, "assay_live_baseline", "metric", "faithfulness")
	assert.True(t, ok, "the first full window is the baseline")
	assert.InDelta(t, 1.0, base, 1e-9)
	sev, _ := sample(fams, "assay_alert_severity", "metric", "faithfulness")
	assert.Zero(t, sev)

	degraded.Store(true)
	post(traceIDs("worse", 10))
	eventually(t, "twenty traces judged", judged(20))
	observed("the monitor observed the twenty", 0.5, true)

	// /v1/alerts: the open warning, and its event once the sink stored it.
	var alerts AlertsResponse
	eventually(t, "the open event stored", func() bool {
		code, body := call(t, http.MethodGet, s.URL+"/v1/alerts", "")
		require.Equal(t, http.StatusOK, code, body)
		require.NoError(t, json.Unmarshal([]byte(body), &alerts))
		return len(alerts.Events) > 0
	})
	require.Len(t, alerts.Open, 1, "%+v", alerts)
	a := alerts.Open[0]
	assert.Equal(t, "faithfulness", a.Metric)
	assert.Equal(t, run.SeverityWarning, a.Severity)
	assert.InDelta(t, 0.5, float64(a.Mean), 1e-9)
	assert.InDelta(t, 1.0, float64(a.Baseline), 1e-9)
	require.Len(t, a.Alerts, 1)
	assert.Equal(t, run.AlertDegradation, a.Alerts[0].Type)
	assert.InDelta(t, 0.85, a.Alerts[0].Threshold, 1e-9)
	require.Len(t, alerts.Events, 1)
	assert.Equal(t, live.EventOpen, alerts.Events[0].Kind)
	assert.Equal(t, run.SeverityWarning, alerts.Events[0].Severity)
	assert.Less(t, float64(alerts.Events[0].Mean), 0.85, "opened when the mean crossed 0.85 x 1")
	assert.True(t, strings.HasPrefix(alerts.Events[0].Meta["trace_id"], "worse-"), "the trace that crossed it: %v", alerts.Events[0].Meta)
	assert.Empty(t, alerts.Stalled)

	// /metrics, as Prometheus reads it.
	fams = scrape(t, s.URL)
	for _, tc := range []struct {
		family string
		labels []string
		want   float64
	}{
		{"assay_alert_severity", []string{"metric", "faithfulness"}, 1},
		{"assay_live_mean", []string{"metric", "faithfulness"}, 0.5},
		{"assay_live_baseline", []string{"metric", "faithfulness"}, 1},
		{"assay_live_default_rate", []string{"metric", "faithfulness"}, 0},
		{"assay_judge_stalled", []string{"metric", "faithfulness"}, 0},
		{"assay_alert_deliveries_total", []string{"target", "store", "outcome", "delivered"}, 1},
		{"assay_alert_deliveries_total", []string{"target", "store", "outcome", "failed"}, 0},
	} {
		got, ok := sample(fams, tc.family, tc.labels...)
		assert.True(t, ok, "%s%v missing", tc.family, tc.labels)
		assert.InDelta(t, tc.want, got, 1e-9, "%s%v", tc.family, tc.labels)
	}

	// The webhook.
	eventually(t, "the event posted to the webhook", func() bool {
		hookMu.Lock()
		defer hookMu.Unlock()
		return len(posted) > 0
	})
	hookMu.Lock()
	require.Len(t, posted, 1)
	assert.Equal(t, live.EventOpen, posted[0].Kind)
	assert.Equal(t, "faithfulness", posted[0].Metric)
	assert.Equal(t, run.SeverityWarning, posted[0].Severity)
	hookMu.Unlock()

	// The dashboard's data: the lowest samples are the degraded ones,
	// with the claim the verdict did not support.
	code, body := call(t, http.MethodGet, s.URL+"/v1/dashboard", "")
	require.Equal(t, http.StatusOK, code, body)
	var dash struct {
		Metrics []struct {
			Name     string  `json:"name"`
			Mean     run.Num `json:"mean"`
			Severity string  `json:"severity"`
		} `json:"metrics"`
		Alerts []struct{ Metric, Severity string } `json:"alerts"`
		Lowest []struct {
			ID       string   `json:"id"`
			Value    float64  `json:"value"`
			Evidence []string `json:"evidence"`
			Question string   `json:"question"`
		} `json:"lowest"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &dash))
	require.Len(t, dash.Metrics, 1)
	assert.Equal(t, "warning", dash.Metrics[0].Severity)
	require.NotEmpty(t, dash.Lowest)
	low := dash.Lowest[0]
	assert.True(t, strings.HasPrefix(low.ID, "worse-"), low.ID)
	assert.InDelta(t, 0.5, low.Value, 1e-9)
	assert.Equal(t, "When was the Eiffel Tower completed?", low.Question)
	assert.Contains(t, low.Evidence, "unsupported: The second statement of the answer.")

	// A run judged meanwhile is among the dashboard's runs.
	folder := finishedRun(t, s.URL, []string{"faithfulness"})
	require.InDelta(t, 0.5, float64(folder.Summary.Metrics[0].Mean), 1e-9)

	t.Run("the dashboard in Chromium", func(t *testing.T) {
		checkDashboardInBrowser(t, s.URL, low.ID)
	})

	// SIGTERM: the server stops, the monitor is flushed and closed; the
	// event stays in the store.
	require.NoError(t, s.stop())
	st, err := openStore(filepath.Join(dir, "serve.db"))
	require.NoError(t, err)
	defer func() { _ = st.Close() }()
	stored, err := st.alertEvents(t.Context(), 10)
	require.NoError(t, err)
	require.Len(t, stored, 1)
	assert.Equal(t, live.EventOpen, stored[0].Kind)
	assert.Equal(t, "faithfulness", stored[0].Metric)
	assert.Equal(t, run.SeverityWarning, stored[0].Severity)
}

// checkDashboardInBrowser opens the served dashboard in headless
// Chromium, every address but the server's unreachable, and reads what a
// person sees: the metric's mean, the open alert and a sample of the
// traffic. It writes a screenshot to $ASSAY_DASHBOARD_PNG when set.
func checkDashboardInBrowser(t *testing.T, url, lowID string) {
	br := browsertest.Open(t, "the served dashboard", 1280, 1400)
	require.NoError(t, br.Do(
		browsertest.Navigate(url+"/"),
		browsertest.WaitVisible(`#metrics .card`),
	))
	text := func(sel string) string { t.Helper(); return br.Text(t, sel) }
	card := `#metrics .card[data-metric="faithfulness"]`
	for _, tc := range []struct{ sel, want string }{
		{card + ` .mean`, "0.500"},
		{card + ` .badge`, "WARNING"},
		{`#alerts li.warning`, "faithfulness degraded from baseline: 0.500 < 0.850"},
		{`#lowest tr[data-id="` + lowID + `"]`, "When was the Eiffel Tower completed?"},
		{`#runs tr.run`, "faithfulness 0.500"},
		{`#lowest tr[data-id="` + lowID + `"]`, "faithfulness\t0.50"},
	} {
		assert.Contains(t, text(tc.sel), tc.want, tc.sel)
	}
	require.NoError(t, br.Do(browsertest.Click(`#lowest tr[data-id="`+lowID+`"] details summary`)))
	assert.Contains(t, text(`#lowest tr[data-id="`+lowID+`"] details ul`), "unsupported: The second statement of the answer.")
	if p := os.Getenv("ASSAY_DASHBOARD_PNG"); p != "" {
		shot, err := br.Screenshot("")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, shot, 0o644))
	}
}

// TestAJudgeThatStopsAnsweringShowsStalled: a model that holds every
// call keeps a trace's judgement waiting; /metrics shows the metric
// stalled once it has waited two call timeouts (the server's clock moved
// by the test), and not before.
func TestAJudgeThatStopsAnsweringShowsStalled(t *testing.T) {
	t.Parallel()
	model := newFakeModel(t)
	model.hold.Store(true)
	clk := newTestClock()
	cfg := withModel(Config{TraceMetrics: []string{"faithfulness"}, ShutdownTimeout: time.Millisecond, Now: clk.Now}, model.srv.URL())
	// Long enough in real time that the held call is still waiting when
	// the test reads the metrics; the server's clock is the test's.
	cfg.Judging.LLM.CallTimeout, cfg.Judging.LLM.MaxRetryTime = time.Minute, 2*time.Minute
	s := serveOn(t, cfg)
	assert.Equal(t, 2*time.Minute, s.Live().Snapshot().Rule.StallAfter, "two call timeouts")

	stalled := func() float64 {
		t.Helper()
		v, ok := sample(scrape(t, s.URL), "assay_judge_stalled", "metric", "faithfulness")
		require.True(t, ok)
		return v
	}
	assert.Zero(t, stalled(), "expected and idle: not stalled")
	clk.advance(time.Hour)
	assert.Zero(t, stalled(), "an hour idle is not a stall")

	code, body := call(t, http.MethodPost, s.URL+"/v1/traces", traceBody(t, []string{"held"}, func(int) map[string]any { return nil }))
	require.Equal(t, http.StatusAccepted, code, body)
	eventually(t, "the judgement under way", func() bool {
		v, _ := sample(scrape(t, s.URL), "assay_live_judging", "metric", "faithfulness")
		return v == 1
	})
	for _, tc := range []struct {
		advance time.Duration
		want    float64
	}{
		{0, 0},
		{2 * time.Minute, 0},
		{time.Second, 1},
	} {
		clk.advance(tc.advance)
		assert.Equal(t, tc.want, stalled(), "after %v more", tc.advance)
	}
	code, body = call(t, http.MethodGet, s.URL+"/v1/alerts", "")
	require.Equal(t, http.StatusOK, code, body)
	var alerts AlertsResponse
	require.NoError(t, json.Unmarshal([]byte(body), &alerts))
	assert.Equal(t, []string{"faithfulness"}, alerts.Stalled)
}

// finishedRun posts a run of samples with metrics and waits for its end.
func finishedRun(t *testing.T, url string, metrics []string) RunStatus {
	t.Helper()
	samples := []any{exampleSample, map[string]any{"id": "tall", "question": "How tall is the Eiffel Tower?",
		"answer": "It is 330 metres tall.", "contexts": []string{"The Eiffel Tower is 330 metres tall."}}}
	code, body := call(t, http.MethodPost, url+"/v1/runs", mustJSON(t, map[string]any{"metrics": metrics, "samples": samples}))
	require.Equal(t, http.StatusAccepted, code, body)
	var st RunStatus
	require.NoError(t, json.Unmarshal([]byte(body), &st))
	eventually(t, "the run done", func() bool {
		_, body := call(t, http.MethodGet, url+"/v1/runs/"+st.ID, "")
		require.NoError(t, json.Unmarshal([]byte(body), &st))
		return st.State == RunDone || st.State == RunFailed
	})
	require.Equal(t, RunDone, st.State, st.Error)
	require.NotNil(t, st.Summary)
	return st
}

func TestBaselineIsAStoredRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := filepath.Join(dir, "runs.db")
	first := start(t, Config{DataDir: filepath.Join(dir, "first"), Store: store})
	folder := finishedRun(t, first.URL, []string{"faithfulness"})
	require.Len(t, folder.Summary.Metrics, 1)
	want := float64(folder.Summary.Metrics[0].Mean)
	require.Positive(t, want)

	for name, tc := range map[string]struct {
		ref, err string
	}{
		"a run id":        {ref: folder.ID},
		"a run id prefix": {ref: folder.ID[:len(folder.ID)-1]},
		"a run folder":    {ref: folder.Dir},
		"no such run":     {ref: "20990101-nope", err: "--baseline 20990101-nope: not a run folder"},
		"latest":          {ref: "latest", err: "live traffic has none"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := New(Config{DataDir: t.TempDir(), Store: store, Baseline: tc.ref})
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })
			snap := s.Live().Snapshot()
			require.Len(t, snap.Metrics, 2, "the run's metric and the traces' other one")
			m := snap.Metrics[1]
			require.Equal(t, "faithfulness", m.Metric)
			assert.InDelta(t, want, float64(m.Baseline), 1e-9)
			assert.Equal(t, "run "+folder.ID, m.BaselineFrom)
		})
	}
}

func TestLiveSettingsAreChecked(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		cfg  Config
		flag string
	}{
		"window below 0":           {cfg: Config{AlertWindow: -1}, flag: "--alert-window"},
		"window too large":         {cfg: Config{AlertWindow: 100_000_000_000}, flag: "--alert-window"},
		"webhook not http":         {cfg: Config{Webhook: "ftp://hooks.example.com/x"}, flag: "--webhook"},
		"webhook no host":          {cfg: Config{Webhook: "https:///x"}, flag: "--webhook"},
		"stall below 0":            {cfg: Config{StallAfter: -time.Second}, flag: "--stall-after"},
		"request timeout below 0":  {cfg: Config{RequestTimeout: -time.Second}, flag: "--timeout"},
		"shutdown timeout below 0": {cfg: Config{ShutdownTimeout: -time.Second}, flag: "--shutdown-timeout"},
		"body limit below 0":       {cfg: Config{MaxBody: -1}, flag: "--max-body"},
		"a port past 65535":        {cfg: Config{Addr: "127.0.0.1:65536"}, flag: "--addr"},
		"a port below 0":           {cfg: Config{Addr: "127.0.0.1:-1"}, flag: "--addr"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tc.cfg.DataDir, tc.cfg.Store = t.TempDir(), filepath.Join(t.TempDir(), "runs.db")
			_, err := New(tc.cfg)
			ie, ok := errors.AsType[*eval.InputError](err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, tc.flag, ie.Field)
		})
	}
}

// TestARunDoesNotFeedTheLiveAlerts: the live alerts watch production
// traffic, against a stored run as their baseline; a run started through
// POST /v1/runs is a benchmark of a dataset, whose scores (hundreds at
// once, of samples chosen for a test) would push the traffic's out of the
// window. Its scores go to its run folder and the run store, not to the
// monitor nor the observers; a judgement of /v1/judge does.
func TestARunDoesNotFeedTheLiveAlerts(t *testing.T) {
	t.Parallel()
	var seen recorder
	s := start(t, Config{Observers: []Observer{&seen}})
	st := finishedRun(t, s.URL, []string{"faithfulness"})
	require.Equal(t, 2, st.Summary.Metrics[0].N)
	observed := func() int {
		for _, m := range s.Live().Snapshot().Metrics {
			if m.Metric == "faithfulness" {
				return m.Observed
			}
		}
		return 0
	}
	code, body := call(t, http.MethodPost, s.URL+"/v1/judge", mustJSON(t, exampleJudge))
	require.Equal(t, http.StatusOK, code, body)
	eventually(t, "the judgement in the monitor", func() bool { return observed() > 0 })
	assert.Equal(t, 1, observed(), "the judgement alone, not the run's two scores")
	assert.Equal(t, 1, seen.count("faithfulness"))
}
