package dispatch_test

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/dispatch"
	"github.com/assaylabs/assay/eval"
)

// lengthUnit scores each sample's answer length under each of metrics,
// plus the metric's position, so that every result is told apart.
func lengthUnit(metrics ...string) dispatch.Unit {
	return dispatch.Unit{Metrics: metrics, Judge: func(_ context.Context, s eval.Sample) ([]eval.Score, error) {
		out := make([]eval.Score, len(metrics))
		for i, m := range metrics {
			out[i] = eval.Score{Metric: m, Value: float64(len(s.Answer)) + float64(i)/10}
		}
		return out, nil
	}}
}

func rec(id, answer string, line int) dataset.Record {
	return dataset.Record{ID: id, Line: line, Sample: eval.Sample{ID: id, Answer: answer}}
}

// itemsOf are the items of the (record, unit) pairs given, in order.
func itemsOf(pairs ...dispatch.Item) iter.Seq2[dispatch.Item, error] {
	return func(yield func(dispatch.Item, error) bool) {
		for _, it := range pairs {
			if !yield(it, nil) {
				return
			}
		}
	}
}

// delivered is what a dispatch delivered: each pair's values, and the
// records said done.
type delivered struct {
	mu     sync.Mutex
	values map[string][]float64 // "id/unit" -> the results' values
	done   []string
}

func (d *delivered) deliver(r dispatch.Result) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.values == nil {
		d.values = map[string][]float64{}
	}
	k := r.Item.Record.ID + "/" + string(rune('0'+r.Item.Unit))
	for _, res := range r.Results {
		d.values[k] = append(d.values[k], res.Value)
	}
	if r.RecordDone {
		d.done = append(d.done, r.Item.Record.ID)
	}
	return nil
}

func TestLocalDeliversEachDueItem(t *testing.T) {
	t.Parallel()
	units := []dispatch.Unit{lengthUnit("a"), lengthUnit("b", "c")}
	x, yy := rec("x", "four", 1), rec("y", "seven!!", 2)
	for name, tc := range map[string]struct {
		items []dispatch.Item
		limit int
		want  map[string][]float64
		done  []string
	}{
		"every pair": {
			items: []dispatch.Item{{Record: x, Unit: 0}, {Record: x, Unit: 1}, {Record: yy, Unit: 0}, {Record: yy, Unit: 1}},
			limit: 3,
			want:  map[string][]float64{"x/0": {4}, "x/1": {4, 4.1}, "y/0": {7}, "y/1": {7, 7.1}},
			done:  []string{"x", "y"},
		},
		"a unit not due is not run": {
			items: []dispatch.Item{{Record: x, Unit: 1}, {Record: yy, Unit: 0}},
			limit: 1,
			want:  map[string][]float64{"x/1": {4, 4.1}, "y/0": {7}},
			done:  []string{"x", "y"},
		},
		"no items": {limit: 2, want: nil, done: nil},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var d delivered
			err := dispatch.Local{Units: units, Limit: tc.limit}.Dispatch(t.Context(), itemsOf(tc.items...), d.deliver)
			require.NoError(t, err)
			assert.Equal(t, tc.want, d.values)
			slices.Sort(d.done)
			assert.Equal(t, tc.done, d.done, "each record is done once, after its last due unit")
		})
	}
}

func TestLocalStops(t *testing.T) {
	t.Parallel()
	broken := dispatch.Unit{Metrics: []string{"a"}, Judge: func(_ context.Context, s eval.Sample) ([]eval.Score, error) {
		if s.ID == "y" {
			return nil, errors.New("broken sample")
		}
		return []eval.Score{{Metric: "a", Value: 1}}, nil
	}}
	readErr := errors.New("line 3: not JSON")
	for name, tc := range map[string]struct {
		items   iter.Seq2[dispatch.Item, error]
		deliver func(dispatch.Result) error
		want    string
	}{
		"a unit's error names the record": {
			items: itemsOf(dispatch.Item{Record: rec("x", "", 1)}, dispatch.Item{Record: rec("y", "", 2)}),
			want:  "record y (line 2): broken sample",
		},
		"the items' error": {
			items: func(yield func(dispatch.Item, error) bool) {
				if yield(dispatch.Item{Record: rec("x", "", 1)}, nil) {
					yield(dispatch.Item{}, readErr)
				}
			},
			want: "line 3: not JSON",
		},
		"a unit the plan lacks": {
			items: itemsOf(dispatch.Item{Record: rec("x", "", 1), Unit: 4}),
			want:  "record x: the plan has no unit 4",
		},
		"deliver's error": {
			items:   itemsOf(dispatch.Item{Record: rec("x", "", 1)}),
			deliver: func(dispatch.Result) error { return errors.New("disk full") },
			want:    "disk full",
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			deliver := tc.deliver
			if deliver == nil {
				deliver = func(dispatch.Result) error { return nil }
			}
			err := dispatch.Local{Units: []dispatch.Unit{broken}, Limit: 2}.Dispatch(t.Context(), tc.items, deliver)
			require.Error(t, err)
			assert.True(t, strings.Contains(err.Error(), tc.want), "got %v", err)
		})
	}
}

func TestLocalInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	wait := dispatch.Unit{Metrics: []string{"a"}, Judge: func(ctx context.Context, _ eval.Sample) ([]eval.Score, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	go func() { <-started; cancel() }()
	var d delivered
	err := dispatch.Local{Units: []dispatch.Unit{wait}, Limit: 1}.Dispatch(ctx, itemsOf(dispatch.Item{Record: rec("x", "", 1)}), d.deliver)
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, d.values, "a judgement cut short delivers nothing")
}

// TestStreamRunsLimitAtOnce: with more scorers waiting, Stream has limit
// of them running at once (each holds until limit run together, so a
// pool short of limit never finishes); every record is emitted once, in
// order.
func TestStreamRunsLimitAtOnce(t *testing.T) {
	for name, limit := range map[string]int{"one": 1, "three": 3, "eight": 8} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // bounds a hang; no figure depends on it
			defer cancel()
			var mu sync.Mutex
			running, most := 0, 0
			full := make(chan struct{}) // closed once limit scorers ran at once
			sc := scorerFunc(func(ctx context.Context, s eval.Sample) (eval.Score, error) {
				mu.Lock()
				running++
				most = max(most, running)
				if running == limit {
					select {
					case <-full:
					default:
						close(full)
					}
				}
				mu.Unlock()
				select {
				case <-full:
				case <-ctx.Done():
					return eval.Score{}, ctx.Err()
				}
				mu.Lock()
				running--
				mu.Unlock()
				return eval.Score{Metric: "len", Value: float64(len(s.Answer))}, nil
			})
			var recs []dataset.Record
			for i := range 5 * limit {
				recs = append(recs, rec(strings.Repeat("r", i+1), strings.Repeat("a", i), i+1))
			}
			var emitted []int
			err := dispatch.Stream(ctx, recordsOf(recs), []eval.Scorer{sc, sc}, limit, 2*limit, func(i int, _ dataset.Record, scores []eval.Score) error {
				emitted = append(emitted, i)
				assert.Equal(t, float64(i), scores[1].Value)
				return nil
			})
			require.NoError(t, err)
			assert.Equal(t, limit, most)
			assert.Len(t, emitted, len(recs))
			assert.True(t, slices.IsSorted(emitted))
		})
	}
}

type scorerFunc func(context.Context, eval.Sample) (eval.Score, error)

func (f scorerFunc) Score(ctx context.Context, s eval.Sample) (eval.Score, error) { return f(ctx, s) }

func recordsOf(recs []dataset.Record) iter.Seq2[dataset.Record, error] {
	return func(yield func(dataset.Record, error) bool) {
		for _, r := range recs {
			if !yield(r, nil) {
				return
			}
		}
	}
}
