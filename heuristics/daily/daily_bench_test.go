package daily

import (
	"strings"
	"testing"

	"github.com/assaylabs/assay/internal/textseg"
)

// BenchmarkScore runs the five scorers on a 1,500-word English report of
// the daily shape (the faithful fixture's insights repeated).
func BenchmarkScore(b *testing.B) {
	tr, tel := load(b)
	base := report(b, "en-faithful.md")
	i := strings.Index(base, "## 🎯")
	head, tail := base[:i], base[i:]
	para := base[strings.Index(base, "Momentum"):i]
	var sb strings.Builder
	sb.WriteString(head)
	for textseg.WordCount(sb.String()+tail) < 1500 {
		sb.WriteString(para)
	}
	text := sb.String() + tail
	p := Default()
	for b.Loop() {
		_ = p.Score(text, tr, tel)
	}
	b.ReportMetric(float64(textseg.WordCount(text)), "words")
}
