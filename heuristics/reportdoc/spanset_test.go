package reportdoc

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// naiveStrip is strip by scanning every span, the way it was written
// before the index: the reference the index must agree with.
func naiveStrip(s string, start, end int, spans []span, kinds ...spanKind) string {
	sorted := slices.Clone(spans)
	slices.SortStableFunc(sorted, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	pos := start
	for _, sp := range sorted {
		if sp.end <= pos || sp.start >= end || !slices.Contains(kinds, sp.kind) {
			continue
		}
		b.WriteString(s[pos:max(sp.start, pos)])
		pos = min(sp.end, end)
	}
	if pos < end {
		b.WriteString(s[pos:end])
	}
	return b.String()
}

// TestSpanSetAgreesWithAScan: over random spans, nested and not, the
// index finds what scanning every span finds.
func TestSpanSetAgreesWithAScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	s := strings.Repeat("abcdefghij", 20)
	for round := range 300 {
		var spans []span
		for range rng.IntN(12) {
			a := rng.IntN(len(s))
			b := min(a+1+rng.IntN(30), len(s))
			spans = append(spans, span{a, b, spanKind(rng.IntN(3))})
		}
		ss := newSpanSet(spans)
		for range 20 {
			i := rng.IntN(len(s))
			j := min(i+rng.IntN(40), len(s))
			inside, covers := false, false
			for _, sp := range spans {
				inside = inside || (i > sp.start && i < sp.end)
				covers = covers || (i >= sp.start && i < sp.end)
			}
			assert.Equal(t, inside, ss.strictlyInside(i), "round %d: inside %d of %v", round, i, spans)
			assert.Equal(t, covers, ss.covers(i), "round %d: covers %d of %v", round, i, spans)
			assert.Equal(t, naiveStrip(s, i, j, spans, spanMarker), ss.strip(s, i, j, spanMarker), "round %d: strip %d-%d of %v", round, i, j, spans)
			assert.Equal(t, naiveStrip(s, i, j, spans, spanMarker, spanLink), ss.strip(s, i, j, spanMarker, spanLink))
		}
	}
}

// BenchmarkParseLinks parses a report of one paragraph of n cited
// sentences: the time per link stays flat as n grows (BENCHMARKS.md).
func BenchmarkParseLinks(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		var r strings.Builder
		r.WriteString("# R\n\n## Executive Summary\n\n")
		for i := range n {
			r.WriteString("Claim " + strings.Repeat("x", i%7+1) + " holds [s](https://e" + strings.Repeat("p", i%5+1) + ".org/).\n")
		}
		src := []byte(r.String())
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				if got := len(Parse(src).Sentences); got != n {
					b.Fatalf("%d sentences, want %d", got, n)
				}
			}
		})
	}
}
