package judges_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/openai"
)

// TestSourceRelevanceGradesInParallel grades 7 sources against a server
// that takes 100 ms a call: seed 004's gate must take about one call, not
// seven.
func TestSourceRelevanceGradesInParallel(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies), llmtest.Latency(100*time.Millisecond))
	b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge"})
	require.NoError(t, err)
	c := llm.New(llm.Config{Backend: b, Concurrency: 8})
	s := eval.Sample{Query: "How do heat pumps perform in cold climates?"}
	for i := range 7 {
		s.Sources = append(s.Sources, eval.Source{ID: fmt.Sprint(i), URL: fmt.Sprintf("https://s%d.gov/", i), Text: "Heat pumps keep working in the cold."})
	}
	start := time.Now()
	sc, err := judges.SourceRelevance{Model: c}.Score(context.Background(), s)
	elapsed := time.Since(start)
	require.NoError(t, err)
	assert.Equal(t, 7, srv.Calls())
	assert.Equal(t, 4.0, sc.Points)
	assert.Less(t, elapsed, 170*time.Millisecond, "7 calls of 100 ms took %v", elapsed)
}
