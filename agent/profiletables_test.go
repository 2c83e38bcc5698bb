package agent

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProfilePointTablesReachTheirMax: a points table is read by its
// best row, so a table whose best row earns less than the scorer's max
// (the research profile copied and grounding raised to 10, its bands
// kept) makes that max, and a require_full on it, unreachable: every
// fully cited report failed. A step of source quality is an average
// credibility, 1 to 10: a min of 90 was never reached. Two rows at one
// min leave the second unused. Each is refused, naming the line and key.
func TestProfilePointTablesReachTheirMax(t *testing.T) {
	t.Parallel()
	const head = "name: x\nkind: report\npass: {threshold: 1, require_full: [grounding]}\nscorers:\n"
	tests := map[string]struct {
		yaml, want string // want "" parses
	}{
		"seed bands under a max of 10": {head + "  - metric: grounding\n    max: 10\n    bands:\n      - {min: 100, from: 5, to: 5}\n      - {min: 95, from: 4, to: 4.9}\n",
			"p.yaml:8: scorers[0].bands[0].from: the top band (min 100) earns 5 points, not the scorer's max 10"},
		"top band written last": {head + "  - metric: grounding\n    max: 5\n    bands:\n      - {min: 50, from: 1, to: 4}\n      - {min: 100, from: 4.5, to: 5}\n",
			"p.yaml:9: scorers[0].bands[1].from: the top band (min 100) earns 4.5 points, not the scorer's max 5"},
		"two bands at one min": {head + "  - metric: grounding\n    max: 5\n    bands:\n      - {min: 100, from: 5, to: 5}\n      - {min: 100, from: 4, to: 4}\n",
			"p.yaml:9: scorers[0].bands[1].min: another band has min 100: only one of them would be used"},
		"seed steps under a max of 3": {head + "  - metric: grounding\n    max: 5\n  - metric: source_quality\n    max: 3\n    steps:\n      - {min: 9, points: 2}\n      - {min: 5, points: 1}\n",
			"p.yaml:10: scorers[1].steps: the best step earns 2 points, not the scorer's max 3"},
		"a step at 90 (a percentage)": {head + "  - metric: grounding\n    max: 5\n  - metric: source_quality\n    max: 2\n    steps:\n      - {min: 90, points: 2}\n      - {min: 7, points: 1}\n",
			"p.yaml:10: scorers[1].steps[0].min: an average credibility is 1 to 10, got 90"},
		"a step below the scale": {head + "  - metric: grounding\n    max: 5\n  - metric: source_quality\n    max: 2\n    steps:\n      - {min: 9, points: 2}\n      - {min: -3, points: 1}\n",
			"p.yaml:11: scorers[1].steps[1].min: an average credibility is 1 to 10, got -3"},
		"two steps at one min": {head + "  - metric: grounding\n    max: 5\n  - metric: source_quality\n    max: 2\n    steps:\n      - {min: 9, points: 2}\n      - {min: 9, points: 1}\n",
			"p.yaml:11: scorers[1].steps[1].min: another step has min 9: only one of them would be used"},
		"the seed's tables":              {head + "  - metric: grounding\n    max: 5\n    bands:\n      - {min: 100, from: 5, to: 5}\n      - {min: 95, from: 4, to: 4.9}\n  - metric: source_quality\n    max: 2\n    steps:\n      - {min: 9, points: 2}\n      - {min: 7, points: 1.5}\n      - {min: 5, points: 1}\n", ""},
		"a lenient top band, floor at 1": {head + "  - metric: grounding\n    max: 5\n    bands:\n      - {min: 90, from: 5, to: 5}\n  - metric: source_quality\n    max: 2\n    steps:\n      - {min: 8, points: 2}\n      - {min: 1, points: 0.5}\n", ""},
		"no tables, any max (scaled)":    {head + "  - metric: grounding\n    max: 10\n  - metric: source_quality\n    max: 3\n", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseProfile("p.yaml", []byte(tc.yaml))
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
