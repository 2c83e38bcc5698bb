package agent

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParsedProfileIsCheckedOnce: a profile Parse read was checked there,
// so Score does not check it again on every card (the check reads the
// registry's entries: 15-120 us, more than a context card costs); a
// profile a Go program built is still checked by Score.
func TestParsedProfileIsCheckedOnce(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"context", "research"} {
		p, err := LoadProfile(name)
		require.NoError(t, err)
		assert.True(t, p.checked, name)
		assert.True(t, p.WithMetrics(p.Metrics()).checked, "a copy with other metrics keeps it")
		built := *p
		built.checked = false
		built.Specs = append(slices.Clone(p.Specs), ScorerSpec{Metric: "no_such_metric", Max: 1})
		require.Error(t, built.scoreable(), "a profile not read by Parse is checked")
	}
}
