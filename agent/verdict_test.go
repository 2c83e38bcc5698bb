package agent

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
)

func TestResearchVerdict(t *testing.T) {
	t.Parallel()
	p, err := LoadProfile("research")
	require.NoError(t, err)
	sc := func(m string, pts, max float64) eval.Score { return eval.Score{Metric: m, Points: pts, Max: max} }
	tests := map[string]struct {
		scores []eval.Score
		status string
		fixes  []string
	}{
		"seed pass case: 9/10 with grounding 5": {
			[]eval.Score{sc("grounding", 5, 5), sc("source_quality", 2, 2), sc("source_diversity", 1, 1), sc("completeness", 0, 1), sc("clarity", 1, 1)},
			eval.StatusPass, nil,
		},
		"seed iterate case: 6/10": {
			[]eval.Score{sc("grounding", 5, 5), sc("source_quality", 1, 2), sc("source_diversity", 0, 1), sc("completeness", 0, 1), sc("clarity", 0, 1)},
			eval.StatusIterate, []string{"source_quality", "source_diversity", "completeness", "clarity"},
		},
		"seed fail case: grounding 3 with everything else full": {
			[]eval.Score{sc("grounding", 3, 5), sc("source_quality", 1, 2), sc("source_diversity", 1, 1), sc("completeness", 1, 1), sc("clarity", 1, 1)},
			eval.StatusFail, []string{"grounding", "source_quality"},
		},
		"exactly 8 passes": {
			[]eval.Score{sc("grounding", 5, 5), sc("source_quality", 1, 2), sc("source_diversity", 1, 1), sc("completeness", 1, 1), sc("clarity", 0, 1)},
			eval.StatusPass, nil,
		},
		"4.9 grounding fails even with total 9.9": {
			[]eval.Score{sc("grounding", 4.9, 5), sc("source_quality", 2, 2), sc("source_diversity", 1, 1), sc("completeness", 1, 1), sc("clarity", 1, 1)},
			eval.StatusFail, []string{"grounding"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := p.Verdict(tc.scores)
			assert.Equal(t, tc.status, c.Status, c.Reason)
			var dims []string
			for _, f := range c.Fixes {
				dims = append(dims, f.Dimension)
			}
			assert.Equal(t, tc.fixes, dims)
		})
	}
}

func TestDefaultedScoresAreCounted(t *testing.T) {
	t.Parallel()
	p, err := LoadProfile("research")
	require.NoError(t, err)
	scores := []eval.Score{{Metric: "grounding", Points: 5, Max: 5}, {Metric: "completeness", Points: 0.5, Max: 1, Defaulted: true}}
	c := p.Verdict(scores)
	assert.Equal(t, 1, c.Defaulted)
	assert.Contains(t, c.Reason, "1 score(s) fell back to the neutral default")
}

func TestParseProfileErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		yaml, want string
	}{
		"bad kind":                         {"name: x\nkind: essay\nscorers: []\n", "p.yaml:2: kind: must be \"report\" or \"context\", got \"essay\""},
		"unknown metric":                   {"name: x\nkind: report\nscorers:\n  - metric: vibes\n    max: 1\n", "p.yaml:4: scorers[0].metric: unknown metric \"vibes\""},
		"require missing":                  {"name: x\nkind: report\npass:\n  require_full: [clarity]\nscorers:\n  - metric: grounding\n    max: 5\n", "p.yaml:4: pass.require_full: names \"clarity\""},
		"bad stage":                        {"name: x\nkind: report\nscorers:\n  - metric: clarity\n    max: 1\nfixes:\n  - metric: clarity\n    rerun_stages: [9]\n", "p.yaml:8: fixes[0].rerun_stages: stages are 1..6, got 9"},
		"not yaml":                         {"name: [unclosed\n", "p.yaml"},
		"wrong type":                       {"name: x\nkind: report\npass:\n  threshold: eight\nscorers:\n  - metric: grounding\n    max: 5\n", "p.yaml:4: pass.threshold: must be a number, got \"eight\""},
		"not a whole number":               {"name: x\nkind: report\nscorers:\n  - metric: source_diversity\n    max: 1\n    min_unique: five\n", "p.yaml:6: scorers[0].min_unique: must be a whole number, got \"five\""},
		"unknown field":                    {"name: x\nkind: report\npass:\n  treshold: 8\nscorers:\n  - metric: grounding\n    max: 5\n", "p.yaml:4: pass.treshold: unknown field"},
		"unknown scorer field":             {"name: x\nkind: report\nscorers:\n  - metric: grounding\n    maks: 5\n", "p.yaml:5: scorers[0].maks: unknown field"},
		"list expected":                    {"name: x\nkind: report\nscorers: grounding\n", "p.yaml:3: scorers: must be a list"},
		"empty":                            {"", "p.yaml: empty profile"},
		"a second document":                {"name: x\nkind: context\npass:\n  threshold: 0.5\nscorers:\n  - metric: context_quality\n    max: 1\n---\nname: y\n", "p.yaml:8: a second YAML document (after ---)"},
		"threshold missing":                {"name: x\nkind: report\nscorers:\n  - metric: grounding\n    max: 5\n", "pass.threshold: must be above 0 and at most the scorers' total maximum 5, got 0"},
		"threshold past total":             {"name: x\nkind: report\npass:\n  threshold: 8\nscorers:\n  - metric: grounding\n    max: 5\n", "p.yaml:4: pass.threshold: must be above 0 and at most the scorers' total maximum 5, got 8"},
		"NaN threshold":                    {"name: x\nkind: report\npass:\n  threshold: .nan\nscorers:\n  - metric: grounding\n    max: 5\n", "p.yaml:4: pass.threshold: must be a finite number, got NaN"},
		"infinite threshold":               {"name: x\nkind: report\npass:\n  threshold: .inf\nscorers:\n  - metric: grounding\n    max: 5\n", "p.yaml:4: pass.threshold: must be a finite number, got +Inf"},
		"NaN fail_at_or_below":             {"name: x\nkind: context\npass:\n  fail_at_or_below: .nan\nscorers:\n  - metric: context_quality\n    max: 1\n", "p.yaml:4: pass.fail_at_or_below: must be a finite number, got NaN"},
		"infinite max":                     {"name: x\nkind: report\nscorers:\n  - metric: grounding\n    max: .inf\n", "p.yaml:5: scorers[0].max: must be a positive number, got +Inf"},
		"NaN band":                         {"name: x\nkind: report\nscorers:\n  - metric: grounding\n    max: 5\n    bands:\n      - {min: .nan, from: 5, to: 5}\n", "p.yaml:7: scorers[0].bands[0]: need 0 <= min <= 100"},
		"NaN step":                         {"name: x\nkind: report\nscorers:\n  - metric: source_quality\n    max: 2\n    steps:\n      - {min: 9, points: .nan}\n", "p.yaml:7: scorers[0].steps[0].points: must be between 0 and max 2, got NaN"},
		"cutoff above 5":                   {"name: x\nkind: report\npass:\n  threshold: 5\ngate:\n  relevance_cutoff: 6\nscorers:\n  - metric: grounding\n    max: 5\n", "p.yaml:6: gate.relevance_cutoff: must be a grade from 1 to 5, got 6"},
		"negative cutoff":                  {"name: x\nkind: report\npass:\n  threshold: 5\ngate:\n  relevance_cutoff: -1\nscorers:\n  - metric: grounding\n    max: 5\n", "p.yaml:6: gate.relevance_cutoff: must be a grade from 1 to 5, got -1"},
		"cutoff written 0":                 {"name: x\nkind: report\npass:\n  threshold: 5\ngate:\n  relevance_cutoff: 0\nscorers:\n  - metric: grounding\n    max: 5\n", "p.yaml:6: gate.relevance_cutoff: must be a grade from 1 to 5, got 0"},
		"a zero gate on a context profile": {"name: x\nkind: context\npass:\n  threshold: 0.5\ngate:\n  relevance_cutoff: 0\nscorers:\n  - metric: context_quality\n    max: 1\n", "p.yaml:6: gate: only a profile of kind report has a relevance gate"},
		"cutoff not a number":              {"name: x\nkind: report\npass:\n  threshold: 5\ngate:\n  relevance_cutoff: high\nscorers:\n  - metric: grounding\n    max: 5\n", "p.yaml:6: gate.relevance_cutoff: must be a whole number, got \"high\""},
		"a gate on a context profile":      {"name: x\nkind: context\npass:\n  threshold: 0.5\ngate:\n  relevance_cutoff: 4\nscorers:\n  - metric: context_quality\n    max: 1\n", "p.yaml:6: gate: only a profile of kind report has a relevance gate"},
		"NaN step min":                     {"name: x\nkind: report\nscorers:\n  - metric: source_quality\n    max: 2\n    steps:\n      - {min: .nan, points: 1}\n", "p.yaml:7: scorers[0].steps[0].min: must be a finite number, got NaN"},
		"bands on clarity":                 {"name: x\nkind: report\npass: {threshold: 1}\nscorers:\n  - metric: clarity\n    max: 1\n    bands: [{min: 0, from: 1, to: 1}]\n", "p.yaml:7: scorers[0].bands: is a setting of grounding, not of clarity"},
		"weights on grounding":             {"name: x\nkind: report\npass: {threshold: 1}\nscorers:\n  - metric: grounding\n    max: 5\n    weights: {retrieval_confidence: 1}\n", "p.yaml:7: scorers[0].weights: is a setting of context_quality, not of grounding"},
		"steps on a judge":                 {"name: x\nkind: report\npass: {threshold: 1}\nscorers:\n  - metric: completeness\n    max: 1\n    steps: [{min: 1, points: 1}]\n", "p.yaml:7: scorers[0].steps: is a setting of source_quality, not of completeness"},
		"require_quote on clarity":         {"name: x\nkind: report\npass: {threshold: 1}\nscorers:\n  - metric: clarity\n    max: 1\n    require_quote: false\n", "p.yaml:7: scorers[0].require_quote: is a setting of grounding, not of clarity"},
		"min_unique on clarity":            {"name: x\nkind: report\npass: {threshold: 1}\nscorers:\n  - metric: clarity\n    max: 1\n    min_unique: 3\n", "p.yaml:7: scorers[0].min_unique: is a setting of source_diversity, not of clarity"},
		"near_duplicate on diversity":      {"name: x\nkind: report\npass: {threshold: 1}\nscorers:\n  - metric: source_diversity\n    max: 1\n    near_duplicate: 0.5\n", "p.yaml:7: scorers[0].near_duplicate: is a setting of clarity, not of source_diversity"},
		"negative min_unique":              {"name: x\nkind: report\npass: {threshold: 1}\nscorers:\n  - metric: source_diversity\n    max: 1\n    min_unique: -3\n", "p.yaml:7: scorers[0].min_unique: must be 0 (the default, 5) or more, got -3"},
		"negative max_sentence_words":      {"name: x\nkind: report\npass: {threshold: 1}\nscorers:\n  - metric: clarity\n    max: 1\n    max_sentence_words: -1\n", "p.yaml:7: scorers[0].max_sentence_words: must be 0 (the default, 50) or more, got -1"},
		"NaN max_avg_sentence_words":       {"name: x\nkind: report\npass: {threshold: 1}\nscorers:\n  - metric: clarity\n    max: 1\n    max_avg_sentence_words: .nan\n", "p.yaml:7: scorers[0].max_avg_sentence_words: must be 0 (the default, 25) or a positive number, got NaN"},
		"near_duplicate above 1":           {"name: x\nkind: report\npass: {threshold: 1}\nscorers:\n  - metric: clarity\n    max: 1\n    near_duplicate: 7\n", "p.yaml:7: scorers[0].near_duplicate: must be a similarity from 0 (the default, 0.8) to 1, got 7"},
		"context_quality of max 2":         {"name: x\nkind: context\npass: {threshold: 1}\nscorers:\n  - metric: context_quality\n    max: 2\n", "p.yaml:6: scorers[0].max: context_quality is seed 002's overall, whose max is 1, got 2"},
		"weights summing to 0":             {"name: x\nkind: context\npass: {threshold: 0.5}\nscorers:\n  - metric: context_quality\n    max: 1\n    weights: {retrieval_confidence: 0, diversity_score: 0}\n", "p.yaml:7: scorers[0].weights: the four weights must add up to 1"},
		"weights with a key left out":      {"name: x\nkind: context\npass: {threshold: 0.5}\nscorers:\n  - metric: context_quality\n    max: 1\n    weights: {retrieval_confidence: 0.3, context_sufficiency: 0.3, diversity_score: 0.15}\n", "p.yaml:7: scorers[0].weights: the four weights must add up to 1 (seed 002's: retrieval_confidence 0.3, context_sufficiency 0.3, diversity_score 0.15, estimated_faithfulness 0.25; a key left out is 0), got 0.75"},
		"fail line above the threshold":    {"name: x\nkind: context\npass: {threshold: 0.5, fail_at_or_below: 0.9}\nscorers:\n  - metric: context_quality\n    max: 1\n", "p.yaml:3: pass.fail_at_or_below: must be below pass.threshold 0.5, got 0.9"},
		"fail line at the threshold":       {"name: x\nkind: context\npass: {threshold: 0.5, fail_at_or_below: 0.5}\nscorers:\n  - metric: context_quality\n    max: 1\n", "p.yaml:3: pass.fail_at_or_below: must be below pass.threshold 0.5, got 0.5"},
		"maxima past a float64":            {"name: x\nkind: report\npass: {threshold: 1}\nscorers:\n  - {metric: clarity, max: 1e308}\n  - {metric: completeness, max: 1e308}\n", "p.yaml:5: scorers: the maxima add up to more than a number can hold"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseProfile("p.yaml", []byte(tc.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestBuiltinProfilesParse(t *testing.T) {
	t.Parallel()
	for _, name := range Builtin() {
		p, err := LoadProfile(name)
		require.NoError(t, err, name)
		if p.Kind == KindDaily {
			require.NotNil(t, p.Daily, "a daily profile is seed 003's, read by the same loader")
			continue
		}
		assert.NotEmpty(t, p.Specs, name)
	}
	assert.Equal(t, []string{"context", "daily", "research"}, Builtin())
}

// TestLoadProfileReadsDailyFiles: one loader reads every kind of profile;
// a file of kind daily is a daily profile, its errors named as the other
// kinds' are.
func TestLoadProfileReadsDailyFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	builtin, err := os.ReadFile("../heuristics/daily/daily.yaml")
	require.NoError(t, err)
	body := string(builtin)
	require.Contains(t, body, "\nkind: daily\n")
	tests := map[string]struct {
		body, err string
	}{
		"a copy of the built-in daily profile": {body: body},
		"kind quoted":                          {body: strings.Replace(body, "\nkind: daily\n", "\nkind: \"daily\"\n", 1)},
		"an unknown key":                       {body: body + "bogus: 1\n", err: "bogus"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".yaml")
			require.NoError(t, os.WriteFile(path, []byte(tc.body), 0o644))
			p, err := LoadProfile(path)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.Contains(t, err.Error(), path)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, KindDaily, p.Kind)
			require.NotNil(t, p.Daily)
		})
	}
}

// TestNumIsFmtsTrimmed: num writes what fmt's %.3f writes, without the
// trailing zeros and point.
func TestNumIsFmtsTrimmed(t *testing.T) {
	t.Parallel()
	for _, x := range []float64{0, math.Copysign(0, -1), 1, 10, 100, 0.5, 0.9183106382978723, 0.0004, 0.0005, 0.0015, -0.25,
		-0.0004, 1234.5678, 1e21, 1e-9, math.Inf(1), math.Inf(-1), math.NaN()} {
		want := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", x), "0"), ".")
		assert.Equal(t, want, num(x), "%v", x)
	}
}

// TestContextReasonFollowsThePassRule: a context profile whose pass rule
// is not seed 002's CRAG thresholds gives its status by its own rule, and
// its reason does not name a CRAG class the card's crag contradicts
// ("ambiguous: decompose" beside "correct: use_retrieved").
func TestContextReasonFollowsThePassRule(t *testing.T) {
	t.Parallel()
	parse := func(threshold, fail float64) *Profile {
		p, err := ParseProfile("p.yaml", fmt.Appendf(nil, "name: p\nkind: context\npass: {threshold: %v, fail_at_or_below: %v}\nscorers:\n  - {metric: context_quality, max: 1}\n", threshold, fail))
		require.NoError(t, err)
		return p
	}
	strict, lenient, builtIn := parse(0.9, 0.5), parse(0.6, 0.2), parse(0.7, 0.3)
	tests := map[string]struct {
		profile        *Profile
		overall        float64
		status, reason string
	}{
		"strict, correct but below its threshold": {strict, 0.8, eval.StatusIterate, "Overall 0.8 is below the profile's threshold 0.9 and above its fail line 0.5: iterate."},
		"strict, ambiguous but at its fail line":  {strict, 0.4, eval.StatusFail, "Overall 0.4 is at or below the profile's fail line 0.5: fail."},
		"strict, correct and above it":            {strict, 0.95, eval.StatusPass, "Retrieval is correct (overall 0.95 >= 0.9): use it."},
		"lenient, ambiguous but passing":          {lenient, 0.65, eval.StatusPass, "Overall 0.65 reaches the profile's threshold 0.6: pass."},
		"lenient, incorrect but not failing":      {lenient, 0.25, eval.StatusIterate, "Overall 0.25 is below the profile's threshold 0.6 and above its fail line 0.2: iterate."},
		"seed's rule, ambiguous":                  {builtIn, 0.5, eval.StatusIterate, "Retrieval is ambiguous (overall 0.5, between 0.3 and 0.7): decompose the query and retrieve for each part."},
		"seed's rule, incorrect":                  {builtIn, 0.3, eval.StatusFail, "Retrieval is incorrect (overall 0.3 <= 0.3): run a supplemental search."},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := tc.profile.Verdict([]eval.Score{{Metric: MetricContextQuality, Value: tc.overall, Points: tc.overall, Max: 1}})
			assert.Equal(t, tc.status, c.Status)
			assert.Equal(t, tc.reason, c.Reason)
		})
	}
}

// TestReportFailLineReason: a report profile may have a fail line too; its
// reason speaks of the report, not of a retrieval.
func TestReportFailLineReason(t *testing.T) {
	t.Parallel()
	p, err := ParseProfile("p.yaml", []byte("name: p\nkind: report\npass: {threshold: 8, fail_at_or_below: 4}\nscorers:\n  - {metric: grounding, max: 5}\n  - {metric: clarity, max: 5}\n"))
	require.NoError(t, err)
	c := p.Verdict([]eval.Score{{Metric: MetricGrounding, Points: 3, Max: 5}, {Metric: MetricClarity, Points: 1, Max: 5}})
	assert.Equal(t, eval.StatusFail, c.Status)
	assert.Equal(t, "Score 4/10 is at or below the profile's fail line 4.", c.Reason)
}

// TestContextWeightsAddingUpToOne: weights that leave sub-scores out are
// taken when the rest add up to 1, and weigh the overall so.
func TestContextWeightsAddingUpToOne(t *testing.T) {
	t.Parallel()
	p, err := ParseProfile("p.yaml", []byte("name: x\nkind: context\npass: {threshold: 0.5}\nscorers:\n  - metric: context_quality\n    max: 1\n    weights: {retrieval_confidence: 0.5, context_sufficiency: 0.5}\n"))
	require.NoError(t, err)
	require.Len(t, p.Specs, 1)
	w := p.Specs[0].Weights
	require.NotNil(t, w)
	assert.Equal(t, heuristics.ContextWeights{RetrievalConfidence: 0.5, ContextSufficiency: 0.5}, *w)
}
