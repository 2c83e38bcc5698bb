package dispatch_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/dispatch"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
)

// memAPI is a batch endpoint in memory. Each batch is polled once in
// progress, then ends as end says (completed when ""), its errors errs; a
// completed batch answers each call "batch: " and its message, but for
// the messages of fail (a failed line with that error) and omit (no
// line at all). Batches it forgot answer a poll with a 404.
type memAPI struct {
	mu      sync.Mutex
	batches map[string][]llm.BatchCall
	polls   map[string]int
	end     string
	errs    []string
	fail    map[string]string
	omit    map[string]bool
	forgot  map[string]bool
	created int
	// limit, when set, is the most calls of a batch.
	limit int
	// ids, when set, names the batches it makes.
	ids func(n int) string
}

func (m *memAPI) SubmitBatch(_ context.Context, calls []llm.BatchCall) (llm.BatchStatus, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.batches == nil {
		m.batches, m.polls = map[string][]llm.BatchCall{}, map[string]int{}
	}
	if m.limit > 0 && len(calls) > m.limit {
		return llm.BatchStatus{}, &llm.BatchTooLargeError{Calls: len(calls), Fits: m.limit, Limit: "calls"}
	}
	m.created++
	id := fmt.Sprintf("batch_%d", m.created)
	if m.ids != nil {
		id = m.ids(m.created)
	}
	m.batches[id] = calls
	return llm.BatchStatus{ID: id, Status: "validating", Total: len(calls)}, nil
}

func (m *memAPI) RetrieveBatch(_ context.Context, id string) (llm.BatchStatus, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.polls[id]++
	calls, ok := m.batches[id]
	if !ok || m.forgot[id] {
		return llm.BatchStatus{}, &llm.StatusError{Code: 404, Message: "No batch found with id '" + id + "'.", Err: errors.New("status 404")}
	}
	st := llm.BatchStatus{ID: id, Status: "in_progress", Total: len(calls)}
	if m.polls[id] > 1 {
		st.Status, st.Errors = cmpOr(m.end, llm.BatchCompleted), m.errs
	}
	return st, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (m *memAPI) BatchReplies(_ context.Context, st llm.BatchStatus) ([]llm.BatchReply, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []llm.BatchReply
	for _, c := range m.batches[st.ID] {
		text := c.Request.Messages[0].Content
		switch {
		case m.omit[text]:
		case m.fail[text] != "":
			out = append(out, llm.BatchReply{ID: c.ID, Failed: true, Err: errors.New(m.fail[text])})
		case st.Status == llm.BatchCompleted:
			out = append(out, llm.BatchReply{ID: c.ID, Response: llm.Response{Content: "batch: " + text,
				Usage: eval.Usage{TokensIn: 100, TokensOut: 10}}})
		}
	}
	return out, nil
}

// directBackend answers every call sent the normal way "direct".
type directBackend struct {
	mu    sync.Mutex
	calls int
}

func (d *directBackend) Name() string { return "openai:gpt-4o-mini" }

func (d *directBackend) Chat(context.Context, llm.Request) (llm.Response, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls++
	return llm.Response{Content: "direct", Usage: eval.Usage{Calls: 1, TokensIn: 100, TokensOut: 10}}, nil
}

func (d *directBackend) Embed(context.Context, []string) ([][]float32, eval.Usage, error) {
	return nil, eval.Usage{}, llm.ErrNoEmbeddings
}

// askUnit asks the model "ask ID" for each sample: 1 for a batch's
// reply, 0 for one sent directly, a neutral default when the call fails.
func askUnit(c *llm.Client) dispatch.Unit {
	return dispatch.Unit{Metrics: []string{"asked"}, Judge: func(ctx context.Context, s eval.Sample) ([]eval.Score, error) {
		r, err := c.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "ask " + s.ID}}, Tag: "asked"})
		if err != nil {
			return []eval.Score{{Metric: "asked", Value: 0.5, Defaulted: true, Err: err}}, nil
		}
		v := 0.0
		if strings.HasPrefix(r.Content, "batch: ") {
			v = 1
		}
		return []eval.Score{{Metric: "asked", Value: v}}, nil
	}}
}

// askItems are the records r1..rN, one item each.
func askItems(n int) iter.Seq2[dispatch.Item, error] {
	return func(yield func(dispatch.Item, error) bool) {
		for i := 1; i <= n; i++ {
			id := fmt.Sprintf("r%d", i)
			if !yield(dispatch.Item{Record: dataset.Record{ID: id, Sample: eval.Sample{ID: id}}}, nil) {
				return
			}
		}
	}
}

// batchRun is a batch run of n records on api in dir: the values it
// delivered by record, and its log.
type batchRun struct {
	values map[string]float64
	log    bytes.Buffer
	direct *directBackend
	batch  *llm.Batch
}

func runBatches(ctx context.Context, t *testing.T, api llm.BatchAPI, dir string, n int, policy llm.BatchPolicy) (*batchRun, error) {
	t.Helper()
	if policy.Sleep == nil {
		policy.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	}
	out := &batchRun{values: map[string]float64{}, direct: &directBackend{}}
	out.batch = llm.NewBatch(api, policy)
	c := llm.New(llm.Config{Backend: out.direct, Batch: out.batch})
	d := &dispatch.Batch{Local: dispatch.Local{Units: []dispatch.Unit{askUnit(c)}, Limit: 2}, Batch: out.batch, Dir: dir,
		Log: &out.log, Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
	err := d.Dispatch(ctx, askItems(n), func(r dispatch.Result) error {
		for _, res := range r.Results {
			out.values[res.ID] = res.Value
		}
		return nil
	})
	return out, err
}

// TestBatchLogEscapesWhatTheServerSays: the reasons a server gives for a
// failed batch and for its failed calls are shown with their control
// characters and bidi overrides escaped, as any text from outside is.
func TestBatchLogEscapesWhatTheServerSays(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		api  *memAPI
		want string
	}{
		"a batch that failed": {&memAPI{end: llm.BatchFailed, errs: []string{"line 1: invalid\x1b[31m: bad \u202eevil"}},
			`batch batch_1 failed: line 1: invalid\x1b[31m: bad \u202eevil; 0 call(s) answered, 2 to send directly`},
		"a call that failed": {&memAPI{fail: map[string]string{"ask r1": "status 500: boom\x1b[2J\nforged line"}},
			`batch batch_1: 1 call(s) failed in it (status 500: boom\x1b[2J\nforged line); they are sent directly`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := runBatches(t.Context(), t, tc.api, t.TempDir(), 2, llm.BatchPolicy{})
			require.NoError(t, err)
			log := got.log.String()
			assert.Contains(t, log, tc.want)
			assert.NotContains(t, log, "\x1b")
			assert.NotContains(t, log, "\u202e")
			assert.NotContains(t, log, "\nforged")
		})
	}
}

// TestBatchResumeOfABatchTheServerForgot: a resume whose batch from
// before the stop is unknown to the server (a 404: deleted, or past its
// retention) says so, keeps it in batches.json as lost, and sends its
// calls in a new batch, rather than failing every resume of the run; a
// later resume does not ask for it again.
func TestBatchResumeOfABatchTheServerForgot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	api := &memAPI{}
	ctx, stop := context.WithCancel(t.Context())
	// The run stops while its first batch is in progress.
	_, err := runBatches(ctx, t, api, dir, 3, llm.BatchPolicy{Sleep: func(context.Context, time.Duration) error { stop(); return context.Canceled }})
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 1, api.created)

	api.forgot = map[string]bool{"batch_1": true}
	for i, want := range []struct {
		created int
		log     string
	}{
		{2, "bench: the server does not know batch batch_1 (status 404: No batch found with id 'batch_1'.): its calls go in a new batch\n"},
		{2, "bench: picking up batch batch_2 (round 2, 3 call(s), completed when last seen)\n"},
	} {
		got, err := runBatches(t.Context(), t, api, dir, 3, llm.BatchPolicy{})
		require.NoError(t, err, i)
		assert.Equal(t, map[string]float64{"r1": 1, "r2": 1, "r3": 1}, got.values, i)
		assert.Equal(t, want.created, api.created, i)
		assert.Contains(t, got.log.String(), want.log, i)
		assert.Zero(t, got.direct.calls, i)
	}
	assert.Equal(t, 2, api.polls["batch_1"], "polled in progress, then unknown; a batch known to be lost is not polled again")
	book, err := os.ReadFile(filepath.Join(dir, dispatch.FileBatches))
	require.NoError(t, err)
	assert.Contains(t, string(book), `"status": "lost"`)
}

// pollFails is memAPI whose polls fail with a 503 after the first.
type pollFails struct{ *memAPI }

func (p pollFails) RetrieveBatch(ctx context.Context, id string) (llm.BatchStatus, error) {
	st, err := p.memAPI.RetrieveBatch(ctx, id)
	if err == nil && p.polls[id] > 1 {
		return llm.BatchStatus{}, &llm.StatusError{Code: 503, Message: "overloaded", Err: errors.New("status 503")}
	}
	return st, err
}

// TestBatchRunStopsPollingAServerThatKeepsFailing: a run whose polls
// keep failing stops, keeping the batch for a resume, which picks it up
// and pays for nothing twice.
func TestBatchRunStopsPollingAServerThatKeepsFailing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	api := &memAPI{}
	_, err := runBatches(t.Context(), t, pollFails{api}, dir, 2, llm.BatchPolicy{MaxFailing: time.Hour})
	require.EqualError(t, err, "polling batch batch_1: every poll failed for 1h0m10s: status 503: overloaded (batches.json keeps the batch: --resume picks it up)")
	got, err := runBatches(t.Context(), t, api, dir, 2, llm.BatchPolicy{})
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"r1": 1, "r2": 1}, got.values)
	assert.Equal(t, 1, api.created)
	assert.Zero(t, got.direct.calls)
}

// TestBatchRoundPastABatchsLimitTakesSeveral: a round with more calls
// than a batch takes sends them in as many batches as it takes, each
// kept in batches.json, every call answered at the batch price.
func TestBatchRoundPastABatchsLimitTakesSeveral(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	api := &memAPI{limit: 2}
	got, err := runBatches(t.Context(), t, api, dir, 5, llm.BatchPolicy{})
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"r1": 1, "r2": 1, "r3": 1, "r4": 1, "r5": 1}, got.values)
	assert.Equal(t, 3, api.created)
	assert.Zero(t, got.direct.calls)
	assert.Equal(t, llm.BatchReport{Batches: 3, Calls: 5, Answered: 5}, got.batch.Report())
	assert.Contains(t, got.log.String(), "bench: round 1: 2 call(s) sent in batch batch_1\nbench: round 1: 2 call(s) sent in batch batch_2\nbench: round 1: 1 call(s) sent in batch batch_3\n")
	book, err := os.ReadFile(filepath.Join(dir, dispatch.FileBatches))
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(string(book), `"round": 1`))
}

// TestBatchResumeRefusesABatchIDThatIsNoID: batches.json's ids go in the
// server's URLs; one that would leave its path segment (another
// endpoint, a query) is refused as bad input naming the file and field,
// and nothing is asked of the server.
func TestBatchResumeRefusesABatchIDThatIsNoID(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		id, want string
	}{
		"none":             {"", "batches[1].id: missing"},
		"another endpoint": {"../files/file-1", `batches[1].id: "../files/file-1" is not a batch id`},
		"a query":          {"batch_1?limit=100", `batches[1].id: "batch_1?limit=100" is not a batch id`},
		"escaped":          {"..%2Ffiles", `batches[1].id: "..%2Ffiles" is not a batch id`},
		"a parent":         {"..", `batches[1].id: ".." is not a batch id`},
		"a control":        {"batch\\u001b[2J", `batches[1].id: "batch\x1b[2J" is not a batch id`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			book := `{"batches": [{"id": "batch_1", "round": 1, "calls": 1, "status": "completed"}, {"id": "` + tc.id + `", "round": 1, "calls": 1, "status": "in_progress"}]}`
			require.NoError(t, os.WriteFile(filepath.Join(dir, dispatch.FileBatches), []byte(book), 0o644))
			api := &memAPI{}
			_, err := runBatches(t.Context(), t, api, dir, 1, llm.BatchPolicy{})
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), filepath.Join(dir, dispatch.FileBatches))
			assert.Empty(t, api.polls, "nothing asked of the server")
		})
	}
}

// TestBatchWithAnIDItCannotAskForStopsTheRun: a server that answers a
// batch with no id, or one that is no path segment, stops the run there,
// rather than writing batches.json that no resume could read.
func TestBatchWithAnIDItCannotAskForStopsTheRun(t *testing.T) {
	t.Parallel()
	for name, id := range map[string]string{"none": "", "a path": "batches/../files/file-1"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			api := &memAPI{ids: func(int) string { return id }}
			_, err := runBatches(t.Context(), t, api, dir, 2, llm.BatchPolicy{})
			require.ErrorContains(t, err, "the server made a batch of 2 call(s) whose id cannot be polled: ")
			_, err = os.Stat(filepath.Join(dir, dispatch.FileBatches))
			require.ErrorIs(t, err, os.ErrNotExist)
			_, err = runBatches(t.Context(), t, &memAPI{}, dir, 2, llm.BatchPolicy{})
			require.NoError(t, err, "the run can be resumed")
		})
	}
}
