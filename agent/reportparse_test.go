package agent

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
)

// reportSpy is a report scorer that records the report it was handed and
// whether Score was called instead.
type reportSpy struct {
	mu      sync.Mutex
	reports []*heuristics.Report
	scored  int
}

func (r *reportSpy) Score(context.Context, eval.Sample) (eval.Score, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scored++
	return eval.Score{Metric: "spy"}, nil
}

func (r *reportSpy) ScoreReport(_ context.Context, rep *heuristics.Report, _ eval.Sample) (eval.Score, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reports = append(r.reports, rep)
	return eval.Score{Metric: "spy"}, nil
}

// plainScorer is a scorer that is not a report scorer.
type plainScorer struct{ calls *int }

func (p plainScorer) Score(context.Context, eval.Sample) (eval.Score, error) {
	*p.calls++
	return eval.Score{Metric: "plain"}, nil
}

// TestScoreOneSharesTheParse checks that the report scorers of one card,
// run in parallel, are all handed the same parse of its answer and never
// parse it themselves, while other scorers get the sample.
func TestScoreOneSharesTheParse(t *testing.T) {
	t.Parallel()
	s := eval.Sample{Answer: "# Card\n\nHeat pumps work in the cold, say installers.\n"}
	report := heuristics.ParseOnce(s)
	spy := &reportSpy{}
	const n = 6
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, err := scoreOne(context.Background(), spy, s, report)
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	require.Len(t, spy.reports, n)
	assert.Zero(t, spy.scored, "a report scorer must not be asked to parse")
	for i, r := range spy.reports {
		assert.Same(t, spy.reports[0], r, "scorer %d", i)
	}
	assert.Equal(t, "Card", spy.reports[0].Title)

	calls := 0
	sc, err := scoreOne(context.Background(), plainScorer{&calls}, s, report)
	require.NoError(t, err)
	assert.Equal(t, "plain", sc.Metric)
	assert.Equal(t, 1, calls)
}

// TestScoreReportScorersMatchTheirScore checks that a research card scored
// with the shared parse equals the card of each scorer run on its own.
func TestScoreReportScorersMatchTheirScore(t *testing.T) {
	t.Parallel()
	p, err := LoadProfile("research")
	require.NoError(t, err)
	s := eval.Sample{Query: "throughput of the system", Answer: longReport(600, 10)}
	card, err := Score(context.Background(), p, s, Options{})
	require.NoError(t, err)
	scorers := p.Scorers(Options{})
	require.Len(t, card.Scores, len(scorers))
	for i, sc := range scorers {
		want, err := sc.Score(context.Background(), s)
		require.NoError(t, err)
		assert.Equal(t, want, card.Scores[i], p.Specs[i].Metric)
	}
}
