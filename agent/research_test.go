package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/fixtures"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/llm"
	llmopenai "github.com/assaylabs/assay/llm/openai"
	"github.com/assaylabs/assay/web"
)

// researchReplies answers the judges' prompts and the research workflow's
// own (its stand-in, agent.StandIn) as a model would.
var researchReplies = llmtest.ResearchReplies(agent.StandIn)

var day = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// fixedClock advances one millisecond a reading, so stage durations are
// positive and runs are reproducible.
func fixedClock() func() time.Time {
	var n atomic.Int64
	return func() time.Time { return day.Add(time.Duration(n.Add(1)) * time.Millisecond) }
}

func corpus(t testing.TB) *web.Local {
	t.Helper()
	sub, err := fs.Sub(fixtures.Corpus, "corpus")
	require.NoError(t, err)
	l, err := web.OpenLocal(context.Background(), "embedded:test", sub, filepath.Join(t.TempDir(), "idx.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

func offlineResearch(t testing.TB, s agent.Searcher) agent.Research {
	return agent.Research{Searcher: s, Mode: agent.Modes()["standard"], Options: agent.Options{Now: fixedClock()}}
}

// TestResearchPaths runs the documented query of each path offline on the
// embedded corpus.
func TestResearchPaths(t *testing.T) {
	l := corpus(t)
	tests := map[string]struct {
		query      string
		decision   agent.Decision
		status     agent.Status
		iterations int
		fixes      []string
		contains   string
	}{
		"passes first time": {
			query: "How do heat pumps perform in cold climates?", decision: agent.DecisionFull, status: agent.StatusPass, iterations: 1,
		},
		"repaired by the source-quality fix": {
			query: "What are the health effects of microplastics in drinking water?", decision: agent.DecisionFull, status: agent.StatusPass,
			fixes: []string{"source_quality"}, contains: "## Executive Summary",
		},
		"short report with its disclaimer": {
			query: "What share of lithium-ion batteries is recycled today?", decision: agent.DecisionShort,
			contains: "**Limited information.** Only 3 source(s) passed the relevance gate",
		},
		"insufficient data explains itself": {
			query: "How much does a wedding guitarist charge per hour?", decision: agent.DecisionInsufficient, status: agent.StatusInsufficient,
			contains: "## What was dropped and why",
		},
		"rejected after two iterations": {
			query: "Does vitamin C cure the common cold?", decision: agent.DecisionFull, status: agent.StatusRejected, iterations: 3,
			fixes: []string{"source_quality", "source_diversity"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			res, err := offlineResearch(t, l).Run(context.Background(), tc.query)
			require.NoError(t, err)
			assert.Equal(t, tc.decision, res.Decision)
			if tc.status != "" {
				assert.Equal(t, tc.status, res.Status, res.Reason)
			}
			if tc.iterations > 0 {
				assert.Len(t, res.Iterations, tc.iterations)
			}
			for i, f := range tc.fixes {
				require.Greater(t, len(res.Iterations), i+1, "iteration %d", i+1)
				it := res.Iterations[i+1]
				assert.Equal(t, f, it.Fix.Dimension)
				assert.NotEmpty(t, it.Applied)
				var stages []string
				for _, e := range res.Trace {
					if e.Iteration == i+1 {
						stages = append(stages, e.Stage)
					}
				}
				assert.Contains(t, stages, agent.StageFix)
				assert.Contains(t, stages, agent.StageScore)
			}
			if tc.contains != "" {
				assert.Contains(t, res.Report, tc.contains)
			}
			assert.Equal(t, "offline (approximate)", res.Judge)
			// The workflow routes with the one CRAG classifier, on the
			// overall it assessed once per step.
			require.NotEmpty(t, res.CRAG)
			for _, step := range res.CRAG {
				c := agent.ClassifyCRAG(tc.query, step.Overall)
				assert.Equal(t, c.Classification, step.Classification)
				assert.Equal(t, c.Action.Type, step.Action)
			}
		})
	}
}

func TestResearchIsDeterministic(t *testing.T) {
	l := corpus(t)
	render := func() (string, string) {
		res, err := offlineResearch(t, l).Run(context.Background(), "What are the health effects of microplastics in drinking water?")
		require.NoError(t, err)
		card, err := json.Marshal(res.Iterations)
		require.NoError(t, err)
		srcs, err := json.Marshal(res.Sources)
		require.NoError(t, err)
		return res.Report, string(card) + string(srcs)
	}
	r1, c1 := render()
	r2, c2 := render()
	assert.Equal(t, r1, r2)
	assert.Equal(t, c1, c2)
}

// memSearch is an in-memory Searcher over fixed results.
type memSearch struct{ results []web.Result }

func (m memSearch) Name() string { return "memory" }

func (m memSearch) Search(_ context.Context, q web.Query) ([]web.Result, error) {
	if q.Limit > 0 && len(m.results) > q.Limit {
		return m.results[:q.Limit], nil
	}
	return m.results, nil
}

func sevenSources() []web.Result {
	var rs []web.Result
	for i := range 7 {
		rs = append(rs, web.Result{
			URL: fmt.Sprintf("https://site%d.gov/page", i), Title: fmt.Sprintf("Source %d", i),
			Text:       fmt.Sprintf("Source %d says heat pumps keep a COP of 2 at minus 15 degrees in cold climates. It also reports field data from %d homes in cold regions.", i, 10+i),
			References: 3, Author: "A. Writer", AuthorKnown: true,
		})
	}
	return rs
}

func modelClient(t *testing.T, srv *llmtest.Server) *llm.Client {
	t.Helper()
	b, err := llmopenai.New(llmopenai.Config{BaseURL: srv.URL(), Model: "judge"})
	require.NoError(t, err)
	return llm.New(llm.Config{Backend: b, Concurrency: 16, Retry: llm.RetryPolicy{MaxRetries: -1}})
}

func schemaName(req openai.ChatCompletionRequest) string {
	if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		return rf.JSONSchema.Name
	}
	return ""
}

// TestGateWithModel scripts the gate's grades: errors default to 3, are
// kept ("when in doubt, keep it") and counted; grades below 3 drop.
func TestGateWithModel(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) }) // after the server closes
	grades := map[string]llmtest.Reply{
		"Source 0": {Content: `{"grade":5,"reason":"direct"}`},
		"Source 1": {Content: `{"grade":4,"reason":"useful"}`},
		"Source 2": {Status: 500, Body: `{"error":{"message":"boom","type":"server_error"}}`},
		"Source 3": {Content: `{"grade":2,"reason":"tangential"}`},
		"Source 4": {Content: `not json at all`},
		"Source 5": {Content: `{"grade":1,"reason":"off topic"}`},
		"Source 6": {Content: `{"grade":3,"reason":"partial"}`},
	}
	srv := llmtest.New(t, llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		user := req.Messages[1].Content
		all := ""
		for _, m := range req.Messages {
			all += m.Content
		}
		switch schemaName(req) {
		case "summary":
			return llmtest.Reply{Content: `{"summary":"` + strings.Split(strings.SplitAfter(user, "<title-")[1], "\n")[1] + ` summary."}`}
		case "grade":
			for title, r := range grades {
				if strings.Contains(all, title+" summary") {
					return r
				}
			}
		case "report":
			return llmtest.Reply{Content: `{"report":"# Report\n\n## Executive Summary\n\nHeat pumps work in the cold ([site0.gov](https://site0.gov/page \"keep a COP of 2 at minus 15 degrees\")). They never fail ([site1.gov](https://site1.gov/page \"heat pumps never fail in any weather\")).\n\n## Conclusion\n\nField data exists ([site1.gov](https://site1.gov/page \"field data from 11 homes\")).\n"}`}
		}
		return researchReplies(req)
	}))
	c := modelClient(t, srv)
	cfg := agent.Research{Searcher: memSearch{sevenSources()}, Options: agent.Options{Model: c, Now: fixedClock()}, MaxIterations: -1}
	res, err := cfg.Run(context.Background(), "How do heat pumps perform in cold climates?")
	require.NoError(t, err)

	byTitle := map[string]agent.SourceRecord{}
	for _, s := range res.Sources {
		byTitle[s.Title] = s
	}
	assert.Equal(t, 3, byTitle["Source 2"].Grade)
	assert.True(t, byTitle["Source 2"].Defaulted)
	assert.True(t, byTitle["Source 2"].Kept, "a judge error keeps the source")
	assert.True(t, byTitle["Source 4"].Defaulted, "invalid output after a repair defaults too")
	assert.False(t, byTitle["Source 3"].Kept)
	assert.Contains(t, byTitle["Source 3"].Dropped, "relevance 2 below 3")
	assert.False(t, byTitle["Source 5"].Kept)
	assert.Equal(t, 2, res.QoS.GateDefaults)
	assert.Equal(t, agent.DecisionFull, res.Decision) // 0, 1, 2, 4, 6 kept

	// Synthesis: the invented quote is caught and its sentence removed;
	// the quote found in the source stays.
	assert.NotContains(t, res.Report, "never fail")
	assert.Contains(t, res.Report, "keep a COP of 2")
	assert.Contains(t, res.Report, "field data from 11 homes")
	var removed any
	for _, e := range res.Trace {
		if e.Stage == agent.StageSynthesize {
			removed = e.Outputs["quotes_removed"]
		}
	}
	assert.Equal(t, 1, removed)
}

// TestGateRunsInParallel grades 7 sources against a server that takes
// 100 ms a call: the gate must take well under twice one call.
func TestGateRunsInParallel(t *testing.T) {
	srv := llmtest.New(t, llmtest.Func(researchReplies), llmtest.Latency(100*time.Millisecond))
	c := modelClient(t, srv)
	cfg := agent.Research{Searcher: memSearch{sevenSources()}, Options: agent.Options{Model: c, NoRecency: true}, MaxIterations: -1}
	res, err := cfg.Run(context.Background(), "How do heat pumps perform in cold climates?")
	require.NoError(t, err)
	var gate time.Duration
	for _, e := range res.Trace {
		if e.Stage == agent.StageGate && e.Iteration == 0 {
			gate += e.Duration
		}
	}
	// Summaries (7 calls) then grades (7 calls), each wave in parallel:
	// about 200 ms for 14 calls of 100 ms.
	assert.Less(t, gate, 700*time.Millisecond, "gate took %v (one after another: 1.4 s)", gate)
	assert.Greater(t, gate, 190*time.Millisecond)
}

// TestFetchFaults drops each failing source with its reason and completes
// the run.
func TestFetchFaults(t *testing.T) {
	mux := http.NewServeMux()
	page := "<html><head><title>Heat pumps</title></head><body><article><p>Heat pumps keep a COP of 2 at minus 15 degrees in cold climates, field tests show.</p><p>Cold climate models perform well in most homes.</p></article></body></html>"
	mux.HandleFunc("/ok", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(page))
	})
	mux.HandleFunc("/404", func(w http.ResponseWriter, _ *http.Request) { http.NotFound(w, nil) })
	mux.HandleFunc("/500", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		chunk := []byte(strings.Repeat("<p>heat pumps</p>", 1000))
		for i := 0; i < 50<<20/len(chunk); i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/binary", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"))
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:1/admin", http.StatusFound)
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body><article><p>Heat pumps in cold climates caf\xe9 keep working at minus 15 degrees, tests in cold homes show.</p></article></body></html>"))
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	public := netip.MustParseAddr("203.0.113.7")
	f := &web.Fetcher{
		// Long enough to read past the size cap on a loaded machine under
		// the race detector (at 1 s "huge" once timed out first), short
		// enough for "slow" to time out.
		Timeout: 3 * time.Second,
		Resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
			if host == "metadata.example.com" {
				return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
			}
			return []netip.Addr{public}, nil
		},
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, ts.Listener.Addr().String())
		},
	}
	var results []web.Result
	for _, p := range []string{"ok", "404", "500", "slow", "huge", "binary", "redirect", "latin1"} {
		results = append(results, web.Result{URL: "http://news.example.com/" + p, Title: p})
	}
	results = append(results, web.Result{URL: "http://metadata.example.com/latest/meta-data", Title: "metadata"})
	cfg := agent.Research{Searcher: memSearch{results}, Fetcher: f, Mode: agent.Modes()["deep"], Options: agent.Options{Now: fixedClock(), NoRecency: true}}
	res, err := cfg.Run(context.Background(), "How do heat pumps perform in cold climates?")
	require.NoError(t, err)
	reasons := map[string]string{}
	for _, s := range res.Sources {
		reasons[s.Title] = s.Dropped
	}
	want := map[string]string{
		"404": "status 404", "500": "status 500", "slow": "timed out", "huge": "larger than",
		"binary": "binary", "redirect": "127.0.0.1", "metadata": "169.254.169.254",
	}
	for title, reason := range want {
		assert.Contains(t, reasons[title], reason, title)
		assert.True(t, strings.HasPrefix(reasons[title], "fetch: "), title)
	}
	assert.Empty(t, reasons["ok"], "the good page is kept")
	assert.NotContains(t, reasons["latin1"], "fetch:", "invalid UTF-8 is repaired, not fatal")
	assert.Equal(t, 7, res.QoS.FetchErrors)
	assert.NotEmpty(t, res.Status)
}

func TestResearchStopsOnCancel(t *testing.T) {
	srv := llmtest.New(t, llmtest.Func(researchReplies), llmtest.Latency(time.Hour))
	c := modelClient(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	res, err := agent.Research{Searcher: memSearch{sevenSources()}, Options: agent.Options{Model: c, NoRecency: true}}.Run(ctx, "heat pumps in cold climates")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NotNil(t, res, "what was done is returned")
	assert.NotEmpty(t, res.Trace)
}

// TestInsufficientDataWithModel: every source graded off-topic, so the
// model writes the insufficient-data note; a failing model falls back to
// the note written from the run's record.
func TestInsufficientDataWithModel(t *testing.T) {
	tests := map[string]struct {
		explain llmtest.Reply
		want    string
	}{
		"model writes the note": {
			explain: llmtest.Reply{Content: `{"explanation":"## Insufficient data\n\nNothing on the corpus answers this.\n\n## Suggestions\n\n- Ask a trade directory."}`},
			want:    "Nothing on the corpus answers this.",
		},
		"model fails, the record writes it": {
			explain: llmtest.Reply{Status: 500, Body: `{"error":{"message":"down","type":"server_error"}}`},
			want:    "## What was dropped and why",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
				switch schemaName(req) {
				case "grade":
					return llmtest.Reply{Content: `{"grade":1,"reason":"off topic"}`}
				case "explanation":
					return tc.explain
				}
				return researchReplies(req)
			}))
			cfg := agent.Research{Searcher: memSearch{sevenSources()}, Options: agent.Options{Model: modelClient(t, srv), Now: fixedClock(), NoRecency: true}}
			res, err := cfg.Run(context.Background(), "How much does a wedding guitarist charge per hour?")
			require.NoError(t, err)
			assert.Equal(t, agent.DecisionInsufficient, res.Decision)
			assert.Equal(t, agent.StatusInsufficient, res.Status)
			assert.Contains(t, res.Report, tc.want)
		})
	}
}

// TestSourceRecordJSON: a record is written to sources.json with the keys
// and order it always had, its text left out, and read back the same.
func TestSourceRecordJSON(t *testing.T) {
	t.Parallel()
	refs := 4
	tests := map[string]struct {
		rec  agent.SourceRecord
		want string
	}{
		"a kept source": {
			rec: agent.SourceRecord{Source: eval.Source{ID: "https://www.energy.gov/a", URL: "https://www.energy.gov/a", Title: "Heat pumps", Text: "not written",
				Author: "A. Author", AuthorKnown: true, Published: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), References: &refs},
				Domain: "energy.gov", FoundBy: "heat pumps", Iteration: 1, Kept: true, Grade: 5, GateReason: "on topic", Rating: 10, Summary: "Heat pumps work."},
			want: `{"url":"https://www.energy.gov/a","title":"Heat pumps","domain":"energy.gov","author":"A. Author","published":"2026-01-02T00:00:00Z",` +
				`"references":4,"found_by":"heat pumps","iteration":1,"kept":true,"gate_grade":5,"gate_reason":"on topic","credibility":10,"summary":"Heat pumps work."}`,
		},
		"a dropped --url source with nothing known": {
			rec:  agent.SourceRecord{Source: eval.Source{ID: "https://x.example/", URL: "https://x.example/", AuthorKnown: true, References: new(int)}, Domain: "x.example", FoundBy: "--url", Dropped: "fetch: no fetcher configured"},
			want: `{"url":"https://x.example/","domain":"x.example","references":0,"found_by":"--url","iteration":0,"kept":false,"dropped":"fetch: no fetcher configured"}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tc.rec)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(b))
			var back agent.SourceRecord
			require.NoError(t, json.Unmarshal(b, &back))
			want := tc.rec
			want.Text = ""
			assert.Equal(t, want, back)
		})
	}
}

// countFetch is a Fetcher that serves one page for every URL and counts
// the fetches.
type countFetch struct{ n *atomic.Int32 }

func (f countFetch) Fetch(_ context.Context, u string) (web.Document, error) {
	f.n.Add(1)
	return web.Document{URL: u, FinalURL: u, Title: "Heat pumps", ContentType: "text/html",
		Text: "Heat pumps keep a COP of 2 at minus 15 degrees in cold climates, field data from cold homes shows."}, nil
}

// TestResearchOnePagePerURL: URLs that name one page (a fragment, another
// case, the default port), given with --url or found by the search, are
// one source, fetched once, not several that would fill a report alone.
func TestResearchOnePagePerURL(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	found := sevenSources()[:1] // https://site0.gov/page, with its text
	cfg := agent.Research{
		Searcher: memSearch{found},
		Fetcher:  countFetch{&n},
		URLs: []string{
			"https://example.org/heat", "https://example.org/heat#cold", "HTTPS://Example.org:443/heat",
			"https://site0.gov/page#top",
		},
		Options: agent.Options{Now: fixedClock(), NoRecency: true},
	}
	res, err := cfg.Run(context.Background(), "How do heat pumps perform in cold climates?")
	require.NoError(t, err)
	var urls []string
	for _, s := range res.Sources {
		urls = append(urls, s.URL)
	}
	assert.Equal(t, []string{"https://site0.gov/page", "https://example.org/heat"}, urls)
	assert.Equal(t, int32(1), n.Load())
}

// TestResearchRefusesAProfileOfAnotherKind: a research run scores a
// report, so a context or daily profile is refused before anything is
// searched, as --profile refuses it on the command line.
func TestResearchRefusesAProfileOfAnotherKind(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"context", "daily"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, err := agent.LoadProfile(name)
			require.NoError(t, err)
			cfg := offlineResearch(t, memSearch{sevenSources()})
			cfg.Profile = p
			res, err := cfg.Run(context.Background(), "heat pumps in cold climates")
			require.EqualError(t, err, fmt.Sprintf("research: profile %q is a %s profile; research needs one of kind report", p.Name, p.Kind))
			assert.Nil(t, res)
		})
	}
}
