package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/judging"
)

// TestRequireQuoteProfileOption: a link without its quote is counted and
// shown apart on the card; the profile's grounding require_quote decides
// whether it counts as cited, and the research profile follows seed 000
// (issue 25, item 12).
func TestRequireQuoteProfileOption(t *testing.T) {
	t.Parallel()
	const report = "# Heat pumps in the cold\n\n## Executive Summary\n\n" +
		"Cold-climate heat pumps held 86 percent of their capacity at minus 15 degrees [NIST](https://www.nist.gov/a \"86 percent of rated capacity\").\n\n" +
		"## Main Findings\n\n" +
		"ปั๊มความร้อนช่วยบ้านประหยัดไฟได้ร้อยละ 30 [กรมพัฒนาพลังงานทดแทน](https://www.dede.go.th/x)\n\n" +
		"Defrost took four minutes per hour in the lab [ORNL](https://www.ornl.gov/b).\n\n" +
		"## Conclusion\n\nThe homes used 40 percent less energy [UMN](https://umn.edu/c \"40 percent less energy\").\n\n## Sources\n\n" +
		"1. https://www.nist.gov/a\n2. https://www.dede.go.th/x\n3. https://www.ornl.gov/b\n4. https://umn.edu/c\n"
	dir := t.TempDir()
	file := filepath.Join(dir, "report.md")
	require.NoError(t, os.WriteFile(file, []byte(report), 0o600))
	data, err := os.ReadFile("profiles/research.yaml")
	require.NoError(t, err)
	lenient := strings.Replace(string(data), "require_quote: true", "require_quote: false", 1)
	require.NotEqual(t, string(data), lenient)
	lenientFile := filepath.Join(dir, "lenient.yaml")
	require.NoError(t, os.WriteFile(lenientFile, []byte(lenient), 0o600))
	unset := strings.Replace(string(data), "require_quote: true", "", 1)
	unsetFile := filepath.Join(dir, "unset.yaml")
	require.NoError(t, os.WriteFile(unsetFile, []byte(unset), 0o600))

	tests := map[string]struct {
		profile   string
		cited     float64
		grounding float64
		status    string
		cardLine  string
	}{
		"the research profile follows the seed": {"research", 2, 1, eval.StatusFail, "Claims: 4, cited: 2 (50%), cited without quote: 2."},
		"unset is the seed's count":             {unsetFile, 2, 1, eval.StatusFail, "Claims: 4, cited: 2 (50%), cited without quote: 2."},
		"a profile may accept plain links":      {lenientFile, 4, 5, "", "Claims: 4, cited: 4 (100%), cited without quote: 2."},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, err := agent.ScoreFile(context.Background(), agent.ScoreJob{File: file, Profile: tc.profile, Judging: judging.Default(),
				Env: func(string) string { return "" }})
			require.NoError(t, err)
			var g eval.Score
			for _, s := range out.Card.Scores {
				if s.Metric == agent.MetricGrounding {
					g = s
				}
			}
			assert.Equal(t, tc.cited, g.Evidence.Counts[heuristics.KeyCitedClaims])
			assert.Equal(t, 2.0, g.Evidence.Counts[heuristics.KeyCitedWithoutQuote])
			assert.Equal(t, tc.grounding, g.Points)
			if tc.status != "" {
				assert.Equal(t, tc.status, out.Card.Status)
				assert.Contains(t, out.Card.Reason, "2 unsourced claim(s) detected (2 cited without quote).")
			}
			var md strings.Builder
			require.NoError(t, out.Write(&md, "md"))
			assert.Contains(t, md.String(), tc.cardLine)
			assert.Contains(t, md.String(), "## Cited without quote\n\n- line 9: ปั๊มความร้อนช่วยบ้านประหยัดไฟได้ร้อยละ 30 กรมพัฒนาพลังงานทดแทน\n- line 11: Defrost took four minutes per hour in the lab ORNL.\n")
			assert.NotContains(t, md.String(), "## Uncited claims", "the claims are cited, only without their quote")
			var y strings.Builder
			require.NoError(t, out.Write(&y, "yaml"))
			assert.Contains(t, y.String(), "  cited_without_quote: 2\n")
		})
	}
}
