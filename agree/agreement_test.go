package agree

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/stats"
)

// fakeScorer scores a sample by its query: "default" gives a Defaulted
// score, "error" and "timeout" an error, "panic" panics, "nan" a NaN;
// otherwise the value is the answer parsed as a number. With block set it
// waits for the context instead.
type fakeScorer struct {
	block   bool
	started chan struct{} // receives once per call when block is set

	calls    atomic.Int32
	mu       sync.Mutex
	inFlight int
	peak     int
}

var _ eval.Scorer = (*fakeScorer)(nil)

func (f *fakeScorer) Score(ctx context.Context, s eval.Sample) (eval.Score, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.inFlight++
	f.peak = max(f.peak, f.inFlight)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()
	if f.block {
		f.started <- struct{}{}
		<-ctx.Done()
		return eval.Score{}, ctx.Err()
	}
	sc := eval.Score{Metric: "faithfulness", Method: "llm:fake"}
	switch s.Query {
	case "default":
		sc.Value, sc.Defaulted, sc.Err = 0.5, true, errors.New("judge: 429 after 3 tries")
		return sc, nil
	case "error":
		return eval.Score{}, errors.New("cannot read sample")
	case "timeout": // the scorer's own deadline, not the run's
		return eval.Score{}, context.DeadlineExceeded
	case "panic":
		panic("boom")
	case "nan":
		sc.Value = math.NaN()
		return sc, nil
	}
	v, err := strconv.ParseFloat(s.Answer, 64)
	if err != nil {
		return eval.Score{}, err
	}
	sc.Value = v
	return sc, nil
}

const agreeData = `{"id":"a","question":"q","answer":"0.9","human":{"faithful":true}}
{"id":"b","question":"q","answer":"0.2","human":{"faithful":false}}
{"id":"c","question":"default","human":{"faithful":true}}
{"id":"d","question":"q","answer":"0.1","human":{}}
{"id":"e","question":"q","answer":"0.8","human":{"faithful":"yes"}}
{"id":"f","question":"q","answer":"0.4","human":{"faithful":0}}
{"id":"g","question":"error","human":{"faithful":true}}
{"id":"h","question":"panic","human":{"faithful":false}}
{"id":"i","question":"q","answer":"0.6","human":{"faithful":false}}
{"id":"j","question":"nan","human":{"faithful":1}}
{"id":"k","question":"timeout","human":{"faithful":1}}
`

func TestAgree(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	recs, err := dataset.Read("agree.jsonl", strings.NewReader(agreeData))
	require.NoError(t, err)
	threshold := 0.5
	f := &fakeScorer{}

	res, err := Records(context.Background(), recs, Judge{Scorer: f, Concurrency: 2}, Options{Label: "faithful", Threshold: &threshold})
	require.NoError(t, err)

	assert.Equal(t, "faithfulness", res.Metric, "taken from the scores")
	assert.Equal(t, "faithful", res.Label)
	// Counted: a 0.9T, b 0.2F, e 0.8T, f 0.4F, i 0.6F.
	assert.Equal(t, 5, res.N)
	assert.Equal(t, 2, res.Positives)
	assert.Equal(t, 1, res.Skipped)   // d
	assert.Equal(t, 1, res.Defaulted) // c
	assert.Equal(t, 4, res.Errors)    // g, h, j, k
	assert.Equal(t, int32(10), f.calls.Load())
	assert.LessOrEqual(t, f.peak, 2)

	ids := make([]string, len(res.Rows))
	for i, r := range res.Rows {
		ids[i] = r.ID
	}
	assert.Equal(t, []string{"a", "b", "c", "e", "f", "g", "h", "i", "j", "k"}, ids, "input order")
	assert.Equal(t, Row{ID: "a", Line: 1, Value: 0.9, Label: true, Method: "llm:fake"}, res.Rows[0])
	assert.Equal(t, Row{ID: "c", Line: 3, Value: 0.5, Label: true, Defaulted: true, Err: "judge: 429 after 3 tries", Method: "llm:fake"}, res.Rows[2])
	assert.Equal(t, Row{ID: "g", Line: 7, Label: true, Err: "cannot read sample"}, res.Rows[5])
	assert.True(t, strings.HasPrefix(res.Rows[6].Err, "scorer panicked: boom\n"), res.Rows[6].Err)
	assert.Equal(t, Row{ID: "j", Line: 10, Label: true, Err: "value is not finite: NaN", Method: "llm:fake"}, res.Rows[8])
	assert.Equal(t, "context deadline exceeded", res.Rows[9].Err)

	// Every positive is above every negative.
	assert.InDelta(t, 1, res.AUC, 1e-12)
	// Best: between 0.6F and 0.8T, perfect.
	assert.InDelta(t, 0.7, res.Best.Threshold, 1e-12)
	assert.Equal(t, stats.Confusion{TP: 2, TN: 3}, res.Best.Confusion)
	assert.InDelta(t, 1, res.Best.BalancedAccuracy, 1e-12)
	// Fixed at 0.5: 0.6F is a false positive. BA (1+2/3)/2; kappa: po 0.8,
	// pe (3*2+2*3)/25 = 0.48, (0.8-0.48)/0.52.
	require.NotNil(t, res.Fixed)
	assert.Equal(t, 0.5, res.Fixed.Threshold)
	assert.Equal(t, stats.Confusion{TP: 2, FP: 1, TN: 2}, res.Fixed.Confusion)
	assert.InDelta(t, 5.0/6, res.Fixed.BalancedAccuracy, 1e-12)
	assert.InDelta(t, 0.32/0.52, float64(res.Fixed.Kappa), 1e-12)
	assert.InDelta(t, 0.8, res.Fixed.F1, 1e-12)

	assert.Equal(t, MarkdownHeader+
		"| faithfulness | faithful | 5 (2/3) | 1 | 4 | 1 | 1.000 | 0.5 | 0.833 [0.500, 1.000] | 0.615 | 0.800 | 2/1/2/0 |\n"+
		"| faithfulness | faithful | 5 (2/3) | 1 | 4 | 1 | 1.000 | best 0.7 | 1.000 | 1.000 | 1.000 | 2/0/3/0 |\n",
		MarkdownHeader+res.Markdown())

	b, err := json.Marshal(res)
	require.NoError(t, err)
	var back map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &back))
	var fixed map[string]any
	require.NoError(t, json.Unmarshal(back["fixed"], &fixed))
	assert.ElementsMatch(t, []string{"threshold", "tp", "fp", "tn", "fn", "balanced_accuracy", "accuracy", "precision", "recall", "f1", "kappa", "mcc", "balanced_accuracy_ci95"},
		slices.Collect(maps.Keys(fixed)))
	var again Result
	require.NoError(t, json.Unmarshal(b, &again))
	assert.Equal(t, res, again, "the JSON holds the whole result")
}

func TestAgreeWithoutLabelsOrThreshold(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	recs, err := dataset.Read("agree.jsonl", strings.NewReader(agreeData))
	require.NoError(t, err)
	f := &fakeScorer{}

	res, err := Records(context.Background(), recs, Judge{Scorer: f, Metric: "mine"}, Options{Label: "relevant"})
	require.NoError(t, err)
	// With no pair, kappa is undefined: NaN, null in JSON.
	assert.True(t, math.IsNaN(float64(res.Best.Kappa)), "kappa %v", res.Best.Kappa)
	res.Best.Kappa = 0
	assert.Equal(t, Result{Metric: "mine", Label: "relevant", LabelType: "binary", Skipped: 11, Best: ThresholdResult{Threshold: 0.5}}, res)
	assert.Equal(t, int32(0), f.calls.Load())
	assert.Equal(t, "| mine | relevant | 0 (0/0) | 0 | 0 | 11 | n/a | - | n/a | n/a | n/a | - |\n", res.Markdown(),
		"no statistics where nothing was scored")
}

func TestAgreeStopsWhenCancelled(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var data strings.Builder
	for i := range 20 {
		data.WriteString(`{"id":"` + strconv.Itoa(i) + `","question":"q","human":{"faithful":true}}` + "\n")
	}
	recs, err := dataset.Read("many.jsonl", strings.NewReader(data.String()))
	require.NoError(t, err)

	f := &fakeScorer{block: true, started: make(chan struct{}, 20)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Records(ctx, recs, Judge{Scorer: f, Concurrency: 3}, Options{Label: "faithful"})
		done <- err
	}()
	<-f.started
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, context.Canceled, err, "ctx.Err() itself")
	case <-time.After(5 * time.Second):
		t.Fatal("Agree did not return after cancel")
	}
	assert.LessOrEqual(t, f.calls.Load(), int32(3), "no work started after the cancel")
}

func TestAgreeWithACancelledContextScoresNothing(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	recs, err := dataset.Read("agree.jsonl", strings.NewReader(agreeData))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := &fakeScorer{}
	_, err = Records(ctx, recs, Judge{Scorer: f}, Options{Label: "faithful"})
	assert.Equal(t, context.Canceled, err)
	assert.Equal(t, int32(0), f.calls.Load())
}

// aheadPerSlot is how many records dispatch.Stream reads ahead of the
// scoring per call slot, as its documentation bounds it.
const aheadPerSlot = 8

// TestAgreeStream: records read from an iterator give Agree's result, no
// more of them are read than the window ahead of the scoring, and a read
// error stops the run after the records before it are scored.
func TestAgreeStream(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const n, limit = 200, 2
	boom := errors.New("boom")
	var recs []dataset.Record
	for i := range n {
		id := strconv.Itoa(i)
		rec := dataset.Record{ID: id, Line: i + 1, Sample: eval.Sample{ID: id, Query: "q", Answer: strconv.FormatFloat(float64(i%10)/10, 'f', 1, 64)}}
		if i%7 != 0 { // the rest are skipped
			rec.Human = map[string]any{"faithful": i%3 == 0}
		}
		recs = append(recs, rec)
	}
	threshold := 0.5
	opts := Options{Label: "faithful", Threshold: &threshold}
	want, err := Records(context.Background(), recs, Judge{Scorer: &fakeScorer{}, Concurrency: limit}, opts)
	require.NoError(t, err)

	tests := map[string]struct {
		failAt int // the iterator yields an error here; -1 never
		err    error
	}{
		"every record":          {failAt: -1},
		"a read error stops it": {failAt: 50, err: boom},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := &fakeScorer{}
			var read, ahead atomic.Int32 // labelled records taken; most not yet scored
			seq := func(yield func(dataset.Record, error) bool) {
				for i, rec := range recs {
					if i == tc.failAt {
						yield(dataset.Record{}, boom)
						return
					}
					if _, ok := rec.Label("faithful"); ok {
						ahead.Store(max(ahead.Load(), read.Add(1)-f.calls.Load()))
					}
					if !yield(rec, nil) {
						return
					}
				}
			}
			got, err := Stream(context.Background(), seq, Judge{Scorer: f, Concurrency: limit}, opts)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				assert.Equal(t, read.Load(), f.calls.Load(), "the records read before it are scored")
			} else {
				require.NoError(t, err)
				assert.Equal(t, want, got)
			}
			assert.LessOrEqual(t, ahead.Load(), int32(aheadPerSlot*limit+1), "records read ahead of the scoring")
		})
	}
}
