package judges_test

import (
	"testing"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/judges"
)

func TestZZProbe(t *testing.T) {
	cases := []eval.Sample{
		{Query: "q?", Answer: "Paris is the capital of France. Paris is the capital of France.", Reference: "Paris is the capital of France. Berlin is the capital of Germany."},
		{Query: "q?", Answer: "Paris is the capital of France.", Reference: "Paris is the capital of France. Paris is the capital of France."},
		{Query: "q?", Answer: "ok", Reference: "Paris is the capital of France."},
		{Query: "q?", Answer: "Paris", Reference: "Paris"},
		{Query: "q?", Answer: "กรุงเทพเป็นเมืองหลวงของประเทศไทย", Reference: "กรุงเทพเป็นเมืองหลวงของประเทศไทย"},
		{Query: "q?", Answer: "🙂🙂🙂", Reference: "🙂🙂🙂"},
		{Query: "q?", Answer: "PARIS IS THE CAPITAL OF FRANCE!", Reference: "paris is the capital of france."},
	}
	for _, s := range cases {
		for _, n := range []string{judges.MetricAnswerCorrectness, judges.MetricFactualCorrectness, judges.MetricFactualPrecision, judges.MetricFactualRecall, judges.MetricSemanticSimilarity} {
			j, _ := judges.New(n, nil)
			sc, err := j.Score(t.Context(), s)
			t.Logf("%q | %q | %s = %.4f skipped=%v err=%v reason=%s", s.Answer, s.Reference, n, sc.Value, sc.Skipped, err, sc.Reason)
		}
		t.Logf("claims %q", heuristics.SplitClaims(s.Answer))
	}
}
