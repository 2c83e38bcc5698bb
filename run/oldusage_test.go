package run_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
)

// TestOldResultLinesWithUsageDecode: results.jsonl lines written by a
// model-judged run before eval.Usage became the one usage type read with
// their usage whole, and are written again byte for byte.
func TestOldResultLinesWithUsageDecode(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		line string
		want eval.Usage
	}{
		"a judged line": {
			line: `{"id":"q7","metric":"faithfulness","value":0.5,"points":0.5,"max":1,"method":"llm:openai:gpt-4o-mini","reason":"1 of 2 claims supported by the contexts",` +
				`"usage":{"calls":2,"tokens_in":1830,"tokens_out":212,"latency_ns":2417000000,"cost_usd":0.0004017,"fingerprints":"fp_0392822090","seeds":"7"}}`,
			want: eval.Usage{Calls: 2, TokensIn: 1830, TokensOut: 212, Latency: 2417 * time.Millisecond, CostUSD: 0.0004017, Fingerprints: "fp_0392822090", Seeds: "7"},
		},
		"a line served from the cache, on an unpriced model": {
			line: `{"id":"q8","metric":"answer_relevancy","value":1,"points":5,"max":5,"method":"llm:ollama:qwen3:8b","reason":"on topic",` +
				`"usage":{"latency_ns":1200,"cost_unknown":true,"cache_hits":1,"cached_tokens_in":640,"cached_tokens_out":31}}`,
			want: eval.Usage{Latency: 1200, CostUnknown: true, CacheHits: 1, CachedTokensIn: 640, CachedTokensOut: 31},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f, err := run.ReadResultsFrom("results.jsonl", strings.NewReader(tt.line+"\n"))
			require.NoError(t, err)
			var got []run.Result
			for r := range f.All() {
				got = append(got, r)
			}
			require.Len(t, got, 1)
			assert.Equal(t, tt.want, got[0].Usage)
			assert.Equal(t, tt.want, got[0].Score().Usage)
			b, err := json.Marshal(got[0])
			require.NoError(t, err)
			assert.Equal(t, tt.line, string(b))
		})
	}
}
