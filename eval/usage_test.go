package eval_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/eval"
)

func TestMergeSet(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ a, b, want string }{
		"both empty":       {"", "", ""},
		"into empty":       {"", "fp_2", "fp_2"},
		"nothing added":    {"fp_2", "", "fp_2"},
		"the same":         {"fp_2", "fp_2", "fp_2"},
		"sorted":           {"fp_2", "fp_1", "fp_1 fp_2"},
		"distinct":         {"0 1", "1 2", "0 1 2"},
		"a set into a set": {"fp_b", "fp_a fp_c", "fp_a fp_b fp_c"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, eval.MergeSet(tc.a, tc.b))
		})
	}
}

func TestUsageAddMergesFingerprintsAndSeeds(t *testing.T) {
	t.Parallel()
	u := eval.Usage{Calls: 1, Fingerprints: "fp_1", Seeds: "0"}.Add(eval.Usage{Calls: 1, Fingerprints: "fp_1", Seeds: "1"})
	assert.Equal(t, eval.Usage{Calls: 2, Fingerprints: "fp_1", Seeds: "0 1"}, u)
}

func TestUsageAddAndRecorded(t *testing.T) {
	t.Parallel()
	call := eval.Usage{Calls: 2, TokensIn: 100, TokensOut: 10, Latency: 3, CostUSD: 0.5, Fingerprints: "fp_1", Seeds: "1",
		Estimated: true, Retries: 1, Hedges: 1, BatchCalls: 1, CacheErrors: 1}
	hit := eval.Usage{CacheHits: 1, CachedTokensIn: 40, CachedTokensOut: 4, CostUnknown: true, Fingerprints: "fp_0"}
	tests := map[string]struct{ got, want eval.Usage }{
		"add sums every field": {call.Add(hit), eval.Usage{Calls: 2, TokensIn: 100, TokensOut: 10, Latency: 3, CostUSD: 0.5, CostUnknown: true,
			CacheHits: 1, CachedTokensIn: 40, CachedTokensOut: 4, Fingerprints: "fp_0 fp_1", Seeds: "1",
			Estimated: true, Retries: 1, Hedges: 1, BatchCalls: 1, CacheErrors: 1}},
		"recorded keeps the cost, not how it was got": {call.Recorded(), eval.Usage{Calls: 2, TokensIn: 100, TokensOut: 10, Latency: 3, CostUSD: 0.5,
			Fingerprints: "fp_1", Seeds: "1"}},
		"recorded keeps the cache's share": {hit.Recorded(), hit},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.got)
		})
	}
}
