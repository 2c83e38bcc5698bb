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
// that takes 100 ms a call: seed 004's gate must take a small multiple of
// one call (measured alone, so the bound follows the machine's load), not
// the seven calls one after another would take.
func TestSourceRelevanceGradesInParallel(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	srv := llmtest.New(t, llmtest.Func(llmtest.JudgeReplies), llmtest.Latency(100*time.Millisecond))
	b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge"})
	require.NoError(t, err)
	c := llm.New(llm.Config{Backend: b, Concurrency: 8})
	s := eval.Sample{Query: "How do heat pumps perform in cold climates?"}
	for i := range 7 {
		s.Sources = append(s.Sources, eval.Source{ID: fmt.Sprint(i), URL: fmt.Sprintf("https://s%d.gov/", i), Text: fmt.Sprintf("Heat pumps keep working in the cold (%d).", i)})
	}
	judge := judges.SourceRelevance{Model: c}
	// One call alone, on this machine under its current load.
	start := time.Now()
	_, err = judge.Grade(context.Background(), s.Query, eval.Source{URL: "https://one.gov/", Text: "One source alone."})
	require.NoError(t, err)
	one := time.Since(start)

	start = time.Now()
	sc, err := judge.Score(context.Background(), s)
	seven := time.Since(start)
	require.NoError(t, err)
	assert.Equal(t, 8, srv.Calls())
	assert.Equal(t, 4.0, sc.Points)
	assert.GreaterOrEqual(t, one, 100*time.Millisecond)
	assert.Less(t, seven, one*3, "7 calls took %v, one call %v: not in parallel", seven, one)
}
