package agent_test

import (
	"context"
	"os"
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
