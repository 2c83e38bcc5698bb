package judges

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAspectKey: two aspects that name the same thing, in other case, with
// other punctuation or with an accent typed another way, are one aspect.
func TestAspectKey(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ a, b string }{
		"case and punctuation":        {"Cost, per year", "cost per YEAR"},
		"a precomposed accent":        {"Caf\u00e9 prices", "cafe\u0301 prices"},
		"Vietnamese typed two ways":   {"H\u00e0 N\u1ed9i", "Ha\u0300 No\u0323\u0302i"},
		"an umlaut typed two ways":    {"Malm\u00f6 transit", "Malmo\u0308 transit"},
		"Thai is kept as it is typed": {"ราคา", "ราคา"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, aspectKey(tc.a), aspectKey(tc.b))
		})
	}
}
