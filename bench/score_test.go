package bench

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/dispatch"
	"github.com/assaylabs/assay/eval"
)

// scorerFunc adapts a function to eval.Scorer.
type scorerFunc func(ctx context.Context, s eval.Sample) (eval.Score, error)

func (f scorerFunc) Score(ctx context.Context, s eval.Sample) (eval.Score, error) { return f(ctx, s) }

func TestScoreAll(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	recs := []dataset.Record{{ID: "a", Line: 1, Sample: eval.Sample{Query: "q1"}}, {ID: "b", Line: 2, Sample: eval.Sample{Query: "q2"}}}
	echo := scorerFunc(func(_ context.Context, s eval.Sample) (eval.Score, error) {
		return eval.Score{Metric: "echo", Reason: s.Query}, nil
	})
	length := scorerFunc(func(_ context.Context, s eval.Sample) (eval.Score, error) {
		return eval.Score{Metric: "len", Value: float64(len(s.Query))}, nil
	})
	tests := map[string]struct {
		scorers []eval.Scorer
		want    [][]string // metric:reason per cell
		err     string
	}{
		"every record by every scorer, in order": {
			scorers: []eval.Scorer{echo, length},
			want:    [][]string{{"echo:q1", "len:"}, {"echo:q2", "len:"}},
		},
		"a scorer error names the record": {
			scorers: []eval.Scorer{scorerFunc(func(_ context.Context, s eval.Sample) (eval.Score, error) {
				if s.Query == "q2" {
					return eval.Score{}, errors.New("no reference")
				}
				return eval.Score{}, nil
			})},
			err: "record b (line 2): no reference",
		},
		"a panic is an error, not a crash": {
			scorers: []eval.Scorer{scorerFunc(func(context.Context, eval.Sample) (eval.Score, error) { panic("boom") })},
			err:     "panicked: boom",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ScoreAll(context.Background(), recs, tc.scorers, 2)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			for i, row := range got {
				for j, s := range row {
					assert.Equal(t, tc.want[i][j], s.Metric+":"+s.Reason)
				}
			}
		})
	}
}

func TestScoreEachWithoutScorersEmitsEveryRecord(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	recs := []dataset.Record{{ID: "a", Line: 1}, {ID: "b", Line: 2}}
	// A deadline so that a hang fails the test instead of stalling it.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var got []string
	err := ScoreEach(ctx, recs, nil, 2, func(i int, scores []eval.Score) error {
		assert.Empty(t, scores)
		got = append(got, recs[i].ID)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, got)
}

func TestScoreAllStopsPromptlyOnCancel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	recs := make([]dataset.Record, 100)
	var started atomic.Int64
	slow := scorerFunc(func(ctx context.Context, _ eval.Sample) (eval.Score, error) {
		started.Add(1)
		select {
		case <-ctx.Done():
			return eval.Score{}, ctx.Err()
		case <-time.After(time.Hour):
			return eval.Score{}, nil
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := ScoreAll(ctx, recs, []eval.Scorer{slow}, 4)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.LessOrEqual(t, started.Load(), int64(8), "no new work after cancellation")
}

func TestScoreEachEmitsInRecordOrder(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	recs := make([]dataset.Record, 6)
	for i := range recs {
		recs[i] = dataset.Record{ID: string(rune('a' + i)), Line: i + 1, Sample: eval.Sample{Query: string(rune('a' + i))}}
	}
	// Later records finish first: record i sleeps (6-i) ms.
	sleepy := scorerFunc(func(ctx context.Context, s eval.Sample) (eval.Score, error) {
		time.Sleep(time.Duration('g'-s.Query[0]) * time.Millisecond)
		return eval.Score{Metric: "q", Reason: s.Query}, nil
	})
	tests := map[string]struct {
		failAt int // emit fails for this record; -1 never
		want   string
		err    string
	}{
		"all records, in order":        {failAt: -1, want: "a,b,c,d,e,f"},
		"an emit error stops the run":  {failAt: 2, want: "a,b", err: "disk full"},
		"a failing first record stops": {failAt: 0, want: "", err: "disk full"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var got []string
			err := ScoreEach(context.Background(), recs, []eval.Scorer{sleepy, sleepy}, 3, func(i int, scores []eval.Score) error {
				if i == tc.failAt {
					return errors.New("disk full")
				}
				require.Len(t, scores, 2)
				assert.Equal(t, recs[i].Sample.Query, scores[1].Reason)
				got = append(got, scores[0].Reason)
				return nil
			})
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.want, strings.Join(got, ","))
		})
	}
}

// TestScoreEachStaysNearTheEmitter: records start close behind the last
// one emitted, so the first results come out while the rest are judged and
// only a bounded number of records wait in memory, even when one record is
// slow.
func TestScoreEachStaysNearTheEmitter(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const n, limit = 300, 2
	recs := make([]dataset.Record, n)
	for i := range recs {
		recs[i] = dataset.Record{ID: strconv.Itoa(i), Sample: eval.Sample{ID: strconv.Itoa(i)}}
	}
	tests := map[string]struct {
		scorers int
		slow    int // this record's scorers take 20 ms; -1 none
	}{
		"one scorer":          {1, -1},
		"three scorers":       {3, -1},
		"a slow early record": {3, 5},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var furthest atomic.Int64 // highest record index started
			furthest.Store(-1)
			sc := scorerFunc(func(_ context.Context, s eval.Sample) (eval.Score, error) {
				i, _ := strconv.Atoi(s.ID)
				for f := furthest.Load(); int64(i) > f && !furthest.CompareAndSwap(f, int64(i)); f = furthest.Load() {
				}
				if i == tc.slow {
					time.Sleep(20 * time.Millisecond)
				}
				return eval.Score{Metric: "m"}, nil
			})
			scorers := make([]eval.Scorer, tc.scorers)
			for j := range scorers {
				scorers[j] = sc
			}
			maxAhead := int64(0)
			err := ScoreEach(context.Background(), recs, scorers, limit, func(i int, _ []eval.Score) error {
				maxAhead = max(maxAhead, furthest.Load()-int64(i))
				return nil
			})
			require.NoError(t, err)
			assert.LessOrEqual(t, maxAhead, int64(dispatch.AheadPerSlot*limit), "records started ahead of the one emitted")
		})
	}
}

// TestScoreStream: records read from an iterator come out in order with
// their scores, no more than the window is read ahead of the record
// emitted, and a read error comes after the records read before it.
func TestScoreStream(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const n, limit = 200, 2
	boom := errors.New("boom")
	tests := map[string]struct {
		failAt int // the iterator yields an error here; -1 never
		want   int // records emitted
		err    error
	}{
		"every record":              {failAt: -1, want: n},
		"a read error stops it":     {failAt: 50, want: 50, err: boom},
		"a read error at the start": {failAt: 0, want: 0, err: boom},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var read atomic.Int64 // records taken from the iterator
			seq := func(yield func(dataset.Record, error) bool) {
				for i := range n {
					if i == tc.failAt {
						yield(dataset.Record{}, boom)
						return
					}
					read.Add(1)
					id := strconv.Itoa(i)
					if !yield(dataset.Record{ID: id, Line: i + 1, Sample: eval.Sample{ID: id, Query: id}}, nil) {
						return
					}
				}
			}
			// Later records finish first within the window.
			sc := scorerFunc(func(_ context.Context, s eval.Sample) (eval.Score, error) {
				i, _ := strconv.Atoi(s.ID)
				time.Sleep(time.Duration(3-i%4) * 100 * time.Microsecond)
				return eval.Score{Metric: "m", Reason: s.Query}, nil
			})
			emitted, maxAhead := 0, int64(0)
			err := ScoreStream(context.Background(), seq, []eval.Scorer{sc, sc}, limit, func(i int, rec dataset.Record, scores []eval.Score) error {
				assert.Equal(t, emitted, i)
				assert.Equal(t, strconv.Itoa(i), rec.ID)
				require.Len(t, scores, 2)
				assert.Equal(t, rec.ID, scores[1].Reason)
				maxAhead = max(maxAhead, read.Load()-int64(i))
				emitted++
				return nil
			})
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.want, emitted)
			assert.LessOrEqual(t, maxAhead, int64(dispatch.AheadPerSlot*limit+1), "records read ahead of the one emitted")
		})
	}
}

func TestScoreStreamStopsOnAScorerError(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	recs := make([]dataset.Record, 100)
	for i := range recs {
		recs[i] = dataset.Record{ID: strconv.Itoa(i), Line: i + 1, Sample: eval.Sample{ID: strconv.Itoa(i)}}
	}
	sc := scorerFunc(func(_ context.Context, s eval.Sample) (eval.Score, error) {
		if s.ID == "7" {
			return eval.Score{}, errors.New("no reference")
		}
		return eval.Score{Metric: "m"}, nil
	})
	var got []int
	err := ScoreStream(context.Background(), func(yield func(dataset.Record, error) bool) {
		for _, r := range recs {
			if !yield(r, nil) {
				return
			}
		}
	}, []eval.Scorer{sc}, 0, func(i int, _ dataset.Record, _ []eval.Score) error {
		got = append(got, i)
		return nil
	})
	require.ErrorContains(t, err, "record 7 (line 8): no reference")
	for k, i := range got {
		assert.Equal(t, k, i, "a prefix of the records")
	}
	assert.Less(t, len(got), 8)
}
