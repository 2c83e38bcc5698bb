package plural_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/internal/plural"
)

// TestCount: one is singular, any other count plural, with English's
// regular endings.
func TestCount(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		n    int
		noun string
		want string
	}{
		"one":                   {1, "sample", "1 sample"},
		"none":                  {0, "sample", "0 samples"},
		"two":                   {2, "domain", "2 domains"},
		"minus one":             {-1, "call", "-1 call"},
		"y after a consonant":   {3, "reply", "3 replies"},
		"y after a vowel":       {2, "day", "2 days"},
		"one reply":             {1, "reply", "1 reply"},
		"after s":               {2, "bus", "2 buses"},
		"after ch":              {4, "batch", "4 batches"},
		"after x":               {2, "box", "2 boxes"},
		"several words":         {5, "model call", "5 model calls"},
		"several words and one": {1, "model call", "1 model call"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, plural.Count(tc.n, tc.noun))
		})
	}
}

// TestVerb: the verb agrees with its subject's count.
func TestVerb(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "is", plural.Verb(1, "is", "are"))
	assert.Equal(t, "are", plural.Verb(0, "is", "are"))
	assert.Equal(t, "match", plural.Verb(2, "matches", "match"))
}

func ExampleCount() {
	fmt.Println(plural.Count(1, "sample") + ", " + plural.Count(3, "reply"))
	// Output: 1 sample, 3 replies
}
