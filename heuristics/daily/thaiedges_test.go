package daily

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestInvisibleCharactersBetweenThaiWords: Thai text often carries
// zero-width spaces (and, pasted from the web, word joiners, soft hyphens
// and byte order marks) between its words. They show nothing, so the
// report reads as the same report: every term, number and percentile is
// found as in the clean text.
func TestInvisibleCharactersBetweenThaiWords(t *testing.T) {
	t.Parallel()
	tr, tel := load(t)
	clean := report(t, "th-faithful.md")
	tests := map[string]string{
		"zero-width space":      "\u200b",
		"word joiner":           "\u2060",
		"zero-width no-break":   "\ufeff",
		"soft hyphen":           "\u00ad",
		"zero-width non-joiner": "\u200c",
		"zero-width joiner":     "\u200d",
	}
	for name, mark := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Between the words of the terms the matcher reads, and inside
			// a number.
			text := strings.NewReplacer(
				"ความไม่แน่นอน", "ความ"+mark+"ไม่"+mark+"แน่นอน",
				"เปอร์เซ็นไทล์", "เปอร์เซ็น"+mark+"ไทล์",
				"ปริมาณการซื้อขาย", "ปริมาณ"+mark+"การ"+mark+"ซื้อขาย",
				"56.6", "56."+mark+"6",
			).Replace(clean)
			assert.NotEqual(t, clean, text)
			want := Default().Score(clean, tr, tel)
			got := Default().Score(text, tr, tel)
			assert.Equal(t, want.Faithfulness.VerifiedClaims, got.Faithfulness.VerifiedClaims)
			assert.Empty(t, got.Faithfulness.Violations)
			assert.Empty(t, got.Completeness.MissingElements)
			assert.Empty(t, got.Reasoning.Issues)
			assert.Empty(t, got.Compliance.Violations)
			assert.InDelta(t, 100, got.OverallQuality, 1e-9)
		})
	}
}
