package eval

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestClip(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		s    string
		n    int
		want string // "" : the start of s and the marker, checked below
	}{
		"short is kept":        {s: "a claim", n: 100, want: "a claim"},
		"at the limit is kept": {s: strings.Repeat("a", 100), n: 100, want: strings.Repeat("a", 100)},
		"over is cut":          {s: strings.Repeat("a", 200), n: 100},
		"cut at a rune":        {s: strings.Repeat("é", 200), n: 101},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Clip(tc.s, tc.n)
			assert.LessOrEqual(t, len(got), tc.n)
			if tc.want != "" {
				assert.Equal(t, tc.want, got)
				return
			}
			assert.True(t, utf8.ValidString(got), got)
			kept, marker, ok := strings.Cut(got, CutMarker)
			assert.True(t, ok, got)
			assert.True(t, strings.HasPrefix(tc.s, kept))
			assert.Equal(t, strings.TrimPrefix(tc.s, kept), strings.Repeat(string([]rune(tc.s)[0]), utf8.RuneCountInString(strings.TrimPrefix(tc.s, kept))))
			assert.Regexp(t, `^\d+ more bytes\]$`, marker)
		})
	}
}

// TestEvidenceBounded: every string of the evidence is clipped, the
// evidence it came from is left as it was, and evidence within the limit
// is the same slices.
func TestEvidenceBounded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 10_000)
	e := Evidence{
		Claims:  []Claim{{Text: long, Verdict: VerdictSupported, Citations: []Citation{{Kind: CiteInline, Quote: long, URL: "https://example.org"}}}, {Text: "short"}},
		Sources: []SourceRating{{URL: "https://example.org", Basis: long}},
		Gaps:    []string{"a gap", long},
		Issues:  []string{long},
		Counts:  map[string]float64{"total_claims": 2},
	}
	b := e.Bounded(MaxText)
	for _, s := range []string{b.Claims[0].Text, b.Claims[0].Citations[0].Quote, b.Sources[0].Basis, b.Gaps[1], b.Issues[0]} {
		assert.LessOrEqual(t, len(s), MaxText)
		assert.Contains(t, s, CutMarker)
	}
	assert.Equal(t, "short", b.Claims[1].Text)
	assert.Equal(t, "https://example.org", b.Claims[0].Citations[0].URL)
	assert.Equal(t, "a gap", b.Gaps[0])
	assert.Equal(t, e.Counts, b.Counts)
	assert.Equal(t, long, e.Claims[0].Text, "the original is left alone")
	assert.Equal(t, long, e.Claims[0].Citations[0].Quote)
	assert.Equal(t, long, e.Gaps[1])

	small := Evidence{Gaps: []string{"a gap"}, Claims: []Claim{{Text: "short"}}}
	got := small.Bounded(MaxText)
	assert.Same(t, &small.Gaps[0], &got.Gaps[0], "nothing to cut, nothing copied")
	assert.Same(t, &small.Claims[0], &got.Claims[0])
}
