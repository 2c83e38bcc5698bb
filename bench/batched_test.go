package bench_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goopenai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/dispatch"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/run"
)

// batchMetrics call the model in dependent steps (faithfulness: claims,
// then verdicts), in one step, and with embeddings beside (which are not
// batched).
var batchMetrics = []string{"faithfulness", "context_precision", "answer_relevancy"}

// batchFake is a fake model server with the batch API whose batches move
// one step each time the coordinator waits between two polls (onSleep
// may do more: stop the run).
type batchFake struct {
	srv     *llmtest.Server
	onSleep func(ctx context.Context) error
}

func newBatchFake(t *testing.T) *batchFake {
	t.Helper()
	return newBatchFakeBad(t, "")
}

// newBatchFakeBad is a batchFake whose first reply to the claims of the
// answer that contains bad (none for "") breaks the claims schema, so that
// the judge asks for a repair.
func newBatchFakeBad(t *testing.T, bad string) *batchFake {
	t.Helper()
	var once sync.Once
	reply := func(req goopenai.ChatCompletionRequest) llmtest.Reply {
		r := llmtest.JudgeReplies(req)
		if bad == "" || req.ResponseFormat == nil || req.ResponseFormat.JSONSchema == nil || req.ResponseFormat.JSONSchema.Name != "claims" ||
			!strings.Contains(req.Messages[len(req.Messages)-1].Content, bad) {
			return r
		}
		once.Do(func() { r = llmtest.Reply{Content: `{"claims": "not a list"}`} })
		return r
	}
	return &batchFake{srv: llmtest.New(t, llmtest.Func(reply), llmtest.Quiet())}
}

func (f *batchFake) env(key string) string {
	return map[string]string{"OPENAI_BASE_URL": f.srv.URL(), "OPENAI_API_KEY": "test-key", "ASSAY_EMBEDDING_MODEL": "fake-embed"}[key]
}

// sleep is the coordinator's wait between polls: the server's batches
// move one step, never the clock.
func (f *batchFake) sleep(ctx context.Context, _ time.Duration) error {
	if f.onSleep != nil {
		if err := f.onSleep(ctx); err != nil {
			return err
		}
	}
	f.srv.StepBatches()
	return ctx.Err()
}

// batchJob is a run of data on f, in dir, with a priced model and no
// reply cache (so that nothing but the batches can answer a call twice).
func batchJob(t *testing.T, f *batchFake, data, dir string, batch bool) bench.Job {
	t.Helper()
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	require.NoError(t, os.WriteFile(prices, []byte("fake-judge: {in: 1, out: 2}\nfake-embed: {in: 0, out: 0}\n"), 0o644))
	j := judging.Default()
	j.LLM.Spec = "openai:fake-judge"
	j.LLM.NoCache = true
	j.LLM.PricesFile = prices
	j.LLM.Concurrency = 2
	j.LLM.CallTimeout = 20 * time.Second
	j.LLM.Batch = batch
	j.LLM.BatchPolicy.Sleep = f.sleep
	return bench.Job{Data: data, Metrics: batchMetrics, Out: dir, NoStore: true, Env: f.env, Judging: j, Quiet: true}
}

// runValues reads results.jsonl: each pair's value and whether it defaulted.
func runValues(t *testing.T, dir string) map[run.Key]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, run.FileResults))
	require.NoError(t, err)
	out := map[run.Key]string{}
	for line := range strings.Lines(string(data)) {
		var r run.Result
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		_, twice := out[r.Key()]
		require.False(t, twice, "pair %v written twice", r.Key())
		v, _ := json.Marshal(struct {
			V         float64
			Defaulted bool
			Err       string
		}{r.Value, r.Defaulted, r.Error})
		out[r.Key()] = string(v)
	}
	return out
}

// plainRun judges data the normal way: the values and calls to compare
// a batch run with.
func plainRun(t *testing.T, data string) (map[run.Key]string, *bench.Outcome, int) {
	t.Helper()
	return plainRunBad(t, data, "")
}

func plainRunBad(t *testing.T, data, bad string) (map[run.Key]string, *bench.Outcome, int) {
	t.Helper()
	f := newBatchFakeBad(t, bad)
	dir := filepath.Join(t.TempDir(), "plain")
	out, err := bench.Execute(t.Context(), batchJob(t, f, data, dir, false))
	require.NoError(t, err)
	require.Empty(t, out.Failures)
	return runValues(t, dir), out, f.srv.Calls()
}

func TestBatchRunEqualsThePlainRunAtHalfThePrice(t *testing.T) {
	t.Parallel()
	data := queueData(t, 6)
	for name, tc := range map[string]struct {
		bad    string
		rounds int
	}{
		"claims, then their verdicts": {"", 2},
		"a reply repaired":            {"Study 3 finds", 3},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, plain, calls := plainRunBad(t, data, tc.bad)
			require.Len(t, want, 6*len(batchMetrics))

			f := newBatchFakeBad(t, tc.bad)
			dir := filepath.Join(t.TempDir(), "batch")
			out, err := bench.Execute(t.Context(), batchJob(t, f, data, dir, true))
			require.NoError(t, err)
			require.Empty(t, out.Failures)
			assert.Equal(t, want, runValues(t, dir), "the batch run's values are the plain run's")

			bc := f.srv.BatchCounts()
			assert.Zero(t, f.srv.Calls(), "no chat call sent directly")
			assert.Equal(t, calls, bc.Lines, "each reply paid once: as many completions as the plain run's calls")
			assert.Equal(t, tc.rounds, bc.Created, "a round for each step of the judges' calls")
			assert.Equal(t, tc.rounds, bc.Uploads)

			u, pu := out.Report.Usage, plain.Report.Usage
			assert.Equal(t, pu.Calls, u.Calls, "the chat calls, and the embeddings sent as they are")
			assert.Equal(t, calls, u.BatchCalls)
			assert.Equal(t, pu.TokensIn, u.TokensIn)
			assert.Equal(t, pu.TokensOut, u.TokensOut)
			assert.InDelta(t, pu.CostUSD/2, u.CostUSD, 1e-12, "the batch price is half")
			assert.InDelta(t, plain.Summary.Usage.CostUSD/2, out.Summary.Usage.CostUSD, 1e-12, "the results carry the batch price")
			require.NotNil(t, out.Report.Batch)
			assert.Equal(t, tc.rounds, out.Report.Batch.Batches)
			assert.Equal(t, calls, out.Report.Batch.Answered)

			var line strings.Builder
			out.Report.Write(&line)
			assert.Contains(t, line.String(), "calls "+itoa(pu.Calls)+" (batch "+itoa(calls)+", retries 0")
			assert.Contains(t, line.String(), "; batches "+itoa(tc.rounds)+" ("+itoa(calls)+" call(s), "+itoa(calls)+" answered at the batch price)")

			book := readBook(t, dir)
			require.Len(t, book, tc.rounds)
			for i, e := range book {
				assert.Equal(t, "batch_"+itoa(i+1), e.ID)
				assert.Equal(t, i+1, e.Round)
				assert.Equal(t, "completed", e.Status)
			}
		})
	}
}

func TestBatchRunResumedMidBatchPicksItUp(t *testing.T) {
	t.Parallel()
	data := queueData(t, 5)
	want, plain, calls := plainRun(t, data)

	f := newBatchFake(t)
	dir := filepath.Join(t.TempDir(), "batch")
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	// The coordinator stops while the first batch is in progress.
	f.onSleep = func(context.Context) error {
		if f.srv.BatchStatus("batch_1") == "in_progress" {
			stop()
		}
		return nil
	}
	out, err := bench.Execute(ctx, batchJob(t, f, data, dir, true))
	require.NoError(t, err)
	require.Equal(t, judging.FailInterrupted, out.Failures[0].Kind)
	require.Equal(t, 1, f.srv.BatchCounts().Created)
	require.Equal(t, 0, f.srv.BatchCounts().Lines, "the batch was not answered yet")
	book := readBook(t, dir)
	require.Len(t, book, 1)
	assert.Equal(t, "in_progress", book[0].Status)

	f.onSleep = nil
	job := batchJob(t, f, data, dir, true)
	job.Resume = true
	out, err = bench.Execute(t.Context(), job)
	require.NoError(t, err)
	require.Empty(t, out.Failures)
	assert.Equal(t, want, runValues(t, dir))
	bc := f.srv.BatchCounts()
	assert.Equal(t, []string{"batch_1", "batch_2"}, f.srv.BatchIDs(), "batch_1 picked up, not created again; batch_2 the verdicts' round")
	assert.Equal(t, calls, bc.Lines, "no reply paid twice")
	assert.Zero(t, f.srv.Calls())
	assert.Equal(t, calls, out.Report.Usage.BatchCalls)
	assert.InDelta(t, plain.Summary.Usage.CostUSD/2, out.Summary.Usage.CostUSD, 1e-12, "each reply's cost in the results once, at the batch price")
	assert.Equal(t, "completed", readBook(t, dir)[0].Status)
}

func TestBatchThatFailsOrExpiresSendsItsCallsDirectly(t *testing.T) {
	t.Parallel()
	data := queueData(t, 4)
	want, _, calls := plainRun(t, data)
	for name, tc := range map[string]struct {
		status   string
		answered int
	}{
		"failed":  {"failed", 0},
		"expired": {"expired", 3},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newBatchFake(t)
			f.onSleep = func(context.Context) error {
				if f.srv.BatchStatus("batch_1") == "in_progress" {
					f.srv.EndBatch("batch_1", tc.status, tc.answered)
				}
				return nil
			}
			dir := filepath.Join(t.TempDir(), "batch")
			out, err := bench.Execute(t.Context(), batchJob(t, f, data, dir, true))
			require.NoError(t, err)
			require.Empty(t, out.Failures)
			assert.Equal(t, want, runValues(t, dir), "the calls no batch answered were sent directly")
			b := out.Report.Batch
			require.NotNil(t, b)
			assert.Equal(t, 1, b.Failed)
			first := readBook(t, dir)[0]
			assert.Equal(t, tc.status, first.Status)
			assert.Equal(t, first.Calls-tc.answered, b.Direct)
			assert.Equal(t, b.Direct, f.srv.Calls(), "each call the batch left sent once")
			assert.Equal(t, calls, f.srv.BatchCounts().Lines+f.srv.Calls(), "no reply paid twice")
			var line strings.Builder
			out.Report.Write(&line)
			assert.Contains(t, line.String(), "; 1 failed or expired; "+itoa(b.Direct)+" call(s) sent directly)")
		})
	}
}

func TestBatchRefusesTheQueueAndABudget(t *testing.T) {
	t.Parallel()
	f := newBatchFake(t)
	data := queueData(t, 1)
	for name, tc := range map[string]struct {
		job  func(*bench.Job)
		want string
	}{
		"queue":  {func(j *bench.Job) { j.Queue.Workers = 2 }, "give --batch or --workers"},
		"budget": {func(j *bench.Job) { j.Judging.LLM.MaxCostUSD = 1 }, "give one of --batch and --max-cost"},
		// A dry run plans the run it would be: not one that cannot be made.
		"a dry run with a budget": {func(j *bench.Job) { j.Judging.LLM.MaxCostUSD, j.Judging.DryRun = 1, true }, "give one of --batch and --max-cost"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			job := batchJob(t, f, data, filepath.Join(t.TempDir(), "run"), true)
			tc.job(&job)
			_, err := bench.Execute(t.Context(), job)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

type bookEntry struct {
	ID     string `json:"id"`
	Round  int    `json:"round"`
	Calls  int    `json:"calls"`
	Status string `json:"status"`
}

func readBook(t *testing.T, dir string) []bookEntry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, dispatch.FileBatches))
	require.NoError(t, err)
	var b struct {
		Batches []bookEntry `json:"batches"`
	}
	require.NoError(t, json.Unmarshal(data, &b))
	return b.Batches
}

func itoa(n int) string { return strconv.Itoa(n) }

// A judge whose calls differ each time it runs can never be answered by
// a batch: the run stops after maxBatchRounds rounds, saying so, rather
// than paying for batches for ever.
func TestBatchRunStopsAJudgeNoBatchCanAnswer(t *testing.T) {
	t.Parallel()
	reg := agent.Builtins().Clone()
	require.NoError(t, reg.Add(metric.Entry{Name: "restless", Kind: metric.KindJudge, Dataset: true,
		Build: func(m metric.Model) eval.Scorer { return restless{m, new(atomic.Int64)} }}))
	f := newBatchFake(t)
	job := batchJob(t, f, queueData(t, 1), filepath.Join(t.TempDir(), "run"), true)
	job.Metrics, job.Registry = []string{"restless"}, reg
	_, err := bench.Execute(t.Context(), job)
	require.ErrorContains(t, err, "--batch: after 16 rounds, 1 call(s) still have no reply: a judge asks for other calls each time it runs")
	assert.Equal(t, 15, f.srv.BatchCounts().Created)
}

// restless asks the model something new each time it scores.
type restless struct {
	m metric.Model
	n *atomic.Int64
}

func (r restless) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	resp, err := r.m.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: s.ID + " asked for the " + itoa(int(r.n.Add(1))) + "th time"}}})
	if err != nil {
		return eval.Score{Metric: "restless", Value: 0.5, Defaulted: true, Err: err}, nil
	}
	return eval.Score{Metric: "restless", Value: float64(len(resp.Content) % 2)}, nil
}

// TestBatchRunWithTheCacheCountsWhatItPaid: with the reply cache on (the
// default), a judge run again after a batch used to find its earlier
// round's replies in the cache and record them as cache hits, so that
// summary.json (and runs show, report.html) counted a fraction of the
// tokens and cost the usage line did. Each reply is the judgement's that
// asked for it, cache or not: the summary counts what the run paid.
func TestBatchRunWithTheCacheCountsWhatItPaid(t *testing.T) {
	t.Parallel()
	data := queueData(t, 4)
	want, plain, calls := plainRun(t, data)

	f := newBatchFake(t)
	job := batchJob(t, f, data, filepath.Join(t.TempDir(), "batch"), true)
	job.Judging.LLM.NoCache = false
	job.Judging.LLM.CachePath = filepath.Join(t.TempDir(), "llm-cache.db")
	out, err := bench.Execute(t.Context(), job)
	require.NoError(t, err)
	require.Empty(t, out.Failures)
	assert.Equal(t, want, runValues(t, job.Out))
	assert.Equal(t, calls, f.srv.BatchCounts().Lines, "each reply paid once")

	u, s := out.Report.Usage, out.Summary.Usage
	assert.Equal(t, plain.Summary.Usage.TokensIn, s.TokensIn, "the results carry the tokens paid")
	assert.Equal(t, plain.Summary.Usage.TokensOut, s.TokensOut)
	assert.Equal(t, [2]int{u.TokensIn, u.TokensOut}, [2]int{s.TokensIn, s.TokensOut}, "the summary agrees with the usage line")
	assert.InDelta(t, u.CostUSD, s.CostUSD, 1e-12)
	assert.InDelta(t, plain.Summary.Usage.CostUSD/2, s.CostUSD, 1e-12, "each reply's cost once, at the batch price")
	assert.Equal(t, plain.Summary.Usage.CacheHits, s.CacheHits, "no reply of the run's own counted as served from the cache")
	assert.Equal(t, [3]int{s.CacheHits, s.CachedTokensIn, s.CachedTokensOut}, [3]int{u.CacheHits, u.CachedTokensIn, u.CachedTokensOut},
		"the usage line counts the cache hits the summary does: a judge run again after a batch is not served from the cache")
}
