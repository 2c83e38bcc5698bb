package heuristics

import (
	"context"
	"io/fs"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/fixtures"
)

// TestScoreReportIsScore checks that every report scorer gives the same
// score from the parsed report as from the sample, on each example report.
func TestScoreReportIsScore(t *testing.T) {
	t.Parallel()
	scorers := map[string]ReportScorer{
		"grounding":      Grounding{},
		"source quality": SourceQuality{},
		"diversity":      Diversity{},
		"completeness":   Completeness{},
		"clarity":        Clarity{},
	}
	reports := map[string]string{}
	for _, name := range []string{"pass", "iterate", "fail"} {
		data, err := fs.ReadFile(fixtures.FS, "reports/"+name+".md")
		require.NoError(t, err)
		reports[name] = string(data)
	}
	for sn, sc := range scorers {
		for rn, md := range reports {
			t.Run(sn+" on "+rn, func(t *testing.T) {
				t.Parallel()
				s := eval.Sample{Query: "How do heat pumps perform in cold climates?", Answer: md}
				want, err := sc.Score(context.Background(), s)
				require.NoError(t, err)
				got, err := sc.ScoreReport(context.Background(), ParseReport([]byte(md)), s)
				require.NoError(t, err)
				assert.Equal(t, want, got)
				assert.NotEmpty(t, got.Metric)
			})
		}
	}
}

// TestScoreReportCancelled checks that a report scorer stops on a done
// context before scoring.
func TestScoreReportCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, sc := range map[string]ReportScorer{"grounding": Grounding{}, "source quality": SourceQuality{}, "diversity": Diversity{}, "completeness": Completeness{}, "clarity": Clarity{}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := sc.ScoreReport(ctx, ParseReport([]byte("# T\n\nA claim of some words.\n")), eval.Sample{})
			assert.ErrorIs(t, err, context.Canceled)
		})
	}
}

// TestParseOnce checks that the scorers of one card, asking from many
// goroutines at once, all get the one parse of its answer, and that another
// card gets its own.
func TestParseOnce(t *testing.T) {
	t.Parallel()
	s := eval.Sample{Answer: "# Title\n\nHeat pumps work in the cold [1].\n\n## Sources\n\n1. https://example.gov/a\n"}
	report := ParseOnce(s)
	const n = 8
	got := make([]*Report, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { got[i] = report() })
	}
	wg.Wait()
	require.NotNil(t, got[0])
	for i := range n {
		assert.Same(t, got[0], got[i], "goroutine %d", i)
	}
	assert.Equal(t, "Title", got[0].Title)
	assert.Equal(t, ParseReport([]byte(s.Answer)), got[0])

	other := ParseOnce(eval.Sample{Answer: "# Other\n"})()
	assert.NotSame(t, got[0], other)
	assert.Equal(t, "Other", other.Title)
}
