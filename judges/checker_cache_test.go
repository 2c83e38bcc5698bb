package judges_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/openai"
)

// TestCheckerAnswerNeitherYesNorNoIsNotCached: a checker's answer that
// is neither Yes nor No fails the judgement and is not stored in the
// cache, so that the run again asks the checker afresh rather than
// replaying the failure; a Yes or a No is stored and served again.
func TestCheckerAnswerNeitherYesNorNoIsNotCached(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		first        string
		defaulted    bool // the first run's score
		callsAfter   int  // the checker's calls after both runs
		secondCached bool // the second run is a cache hit
	}{
		"neither Yes nor No": {first: "Probably", defaulted: true, callsAfter: 2},
		"an unreadable word": {first: "Yesterday it did.", defaulted: true, callsAfter: 2},
		"Yes":                {first: "Yes", callsAfter: 1, secondCached: true},
		"No":                 {first: "No.", callsAfter: 1, secondCached: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Script(llmtest.Reply{Content: tc.first}), llmtest.Default(llmtest.Reply{Content: "Yes"}))
			cache, err := llm.OpenCache(filepath.Join(t.TempDir(), "llm-cache.db"), 0)
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, cache.Close()) })
			b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "minicheck"})
			require.NoError(t, err)
			c := llm.New(llm.Config{Backend: b, Cache: cache})
			fc := &judges.FactChecker{Model: c, Name: "openai:minicheck"}
			s := eval.Sample{Answer: "The museum opens at nine.", Sources: []eval.Source{{ID: "s1", Text: "The museum opens at nine every morning."}}}

			sc, err := judges.Faithfulness{Checker: fc}.Score(context.Background(), s)
			require.NoError(t, err)
			assert.Equal(t, tc.defaulted, sc.Defaulted, sc.Reason)
			sc, err = judges.Faithfulness{Checker: fc}.Score(context.Background(), s)
			require.NoError(t, err)
			assert.Equal(t, tc.callsAfter, srv.Calls())
			assert.Equal(t, tc.secondCached, sc.Usage.CacheHits == 1, "%+v", sc.Usage)
			assert.Equal(t, tc.first == "No.", sc.Value == 0 && !sc.Defaulted, sc.Reason)
		})
	}
}
