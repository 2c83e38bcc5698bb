package agent_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
)

// clarityFirstProfile is the research profile with the clarity fix moved
// up to priority 2, so that it runs in the second iteration of the vitamin
// C query, whose sources have only long sentences: its restructured report
// keeps no claim at all.
func clarityFirstProfile(t *testing.T) *agent.Profile {
	t.Helper()
	data, err := os.ReadFile("profiles/research.yaml")
	require.NoError(t, err)
	text := strings.Replace(string(data), "priority: 5", "priority: 2", 1)
	p, err := agent.ParseProfile("clarity-first.yaml", []byte(text))
	require.NoError(t, err)
	return p
}

// TestRepairThatLowersTheScoreIsUndone checks that a fix whose report
// scores worse than the one before it is recorded, with its card, and
// undone: the run keeps the better report, its card and its sources.
func TestRepairThatLowersTheScoreIsUndone(t *testing.T) {
	t.Parallel()
	cfg := offlineResearch(t, corpus(t))
	cfg.Profile = clarityFirstProfile(t)
	res, err := cfg.Run(context.Background(), "Does vitamin C cure the common cold?")
	require.NoError(t, err)
	require.Len(t, res.Iterations, 3)

	first, undone := res.Iterations[1], res.Iterations[2]
	assert.Equal(t, "source_quality", first.Fix.Dimension)
	assert.False(t, first.Reverted)
	assert.Equal(t, "clarity", undone.Fix.Dimension)
	assert.Equal(t, eval.StatusFail, undone.Card.Status, "the restructured report keeps no claim")
	assert.True(t, undone.Reverted)
	assert.Contains(t, undone.Applied, "undone: the score fell from 6/10 (iterate) to 1/10 (fail)")

	// The run goes on with the report of iteration 1.
	assert.Equal(t, agent.StatusRejected, res.Status)
	assert.Equal(t, "still iterate after 2 repair iteration(s): "+first.Card.Reason, res.Reason)
	assert.Contains(t, res.Report, "## Main Findings\n\n###")
	v, ok := agent.NewRunView(res)
	require.True(t, ok)
	assert.Equal(t, first.Card.Total, v.QualityScore.Total)
	card := agent.NewRunCard(res, false)
	require.NotNil(t, card.Card)
	assert.Equal(t, first.Card.Total, card.Card.Total)
	assert.Equal(t, eval.StatusIterate, card.Card.Status)

	var text strings.Builder
	require.NoError(t, res.Write(&text, agent.FormatMD))
	assert.Contains(t, text.String(), `- Iteration 2: fix "clarity" (re-ran stages [5 6]): restructured`)
	assert.Contains(t, text.String(), "-> fail 1.0/10, undone")
}

// TestRepairRunsTheStagesItsFixNames checks that a fix re-runs the stages
// its profile entry names: a source-quality fix limited to stages 5-6
// searches nothing and only writes the report again.
func TestRepairRunsTheStagesItsFixNames(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("profiles/research.yaml")
	require.NoError(t, err)
	sq := "    metric: source_quality\n    action: Replace sources rated below 7 with primary sources (.gov, .edu, standards bodies, official documentation).\n    rerun_stages: [1, 2, 3, 4, 5, 6]"
	require.Contains(t, string(data), sq)
	text := strings.Replace(string(data), sq, strings.Replace(sq, "[1, 2, 3, 4, 5, 6]", "[5, 6]", 1), 1)
	tests := map[string]struct {
		profile string
		stages  []int
		applied string
	}{
		"the built-in profile searches": {
			profile: string(data), stages: []int{1, 4, 5, 6}, applied: "searched preferring primary sources; replaced 5 of 7",
		},
		"stages 5-6 only search nothing": {
			profile: text, stages: []int{5, 6},
			applied: "no search: the profile re-runs stages [5 6] for this fix; the report is written again",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, err := agent.ParseProfile("p.yaml", []byte(tc.profile))
			require.NoError(t, err)
			cfg := offlineResearch(t, corpus(t))
			cfg.Profile = p
			res, err := cfg.Run(context.Background(), "What are the health effects of microplastics in drinking water?")
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(res.Iterations), 2)
			it := res.Iterations[1]
			assert.Equal(t, "source_quality", it.Fix.Dimension)
			assert.Equal(t, tc.stages, it.Stages)
			assert.Contains(t, it.Applied, tc.applied)
			for _, e := range res.Trace {
				if e.Iteration == 1 && e.Number > 0 && !slices.Contains(tc.stages, e.Number) {
					assert.Failf(t, "stage not named by the fix", "%s (stage %d) ran in iteration 1", e.Stage, e.Number)
				}
			}
		})
	}
}

// TestResearchQueryControlCharactersShowAsText checks that a control
// character in the question (a terminal reset, a bell) reaches the report
// as its escape, never as itself, in a report and in an explanation.
func TestResearchQueryControlCharactersShowAsText(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ query, heading string }{
		"report":      {"How do heat pumps\x1bc perform in cold climates?\a", `# How do heat pumps\\x1bc perform in cold climates?\\a` + "\n"},
		"explanation": {"zxqv\x1bc blorptang\a", `# zxqv\\x1bc blorptang\\a` + "\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res, err := offlineResearch(t, corpus(t)).Run(context.Background(), tc.query)
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(res.Report, tc.heading), res.Report[:min(len(res.Report), 80)])
			assert.NotContains(t, res.Report, "\x1b")
			assert.NotContains(t, res.Report, "\a")
		})
	}
}
