package heuristics

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/assaylabs/assay/fixtures"
)

// heatPumpTexts returns the bodies of the embedded corpus's heat-pump
// documents: English prose, about 2,000 words in all.
func heatPumpTexts(b *testing.B) []string {
	b.Helper()
	names, err := fs.Glob(fixtures.Corpus, "corpus/heat-pumps-*.md")
	if err != nil || len(names) == 0 {
		b.Fatalf("no heat-pump documents: %v", err)
	}
	var out []string
	for _, n := range names {
		data, err := fs.ReadFile(fixtures.Corpus, n)
		if err != nil {
			b.Fatal(err)
		}
		_, body, _ := strings.Cut(strings.TrimPrefix(string(data), "---\n"), "\n---\n")
		out = append(out, body)
	}
	return out
}

// BenchmarkFaithfulnessScore checks a six-sentence answer against the
// heat-pump documents: the offline faithfulness judge's work per sample.
func BenchmarkFaithfulnessScore(b *testing.B) {
	contexts := heatPumpTexts(b)
	answer := "Modern air-source heat pumps perform well in cold climates. A typical cold-climate heat pump reaches a COP near 3.5 at 8 °C. " +
		"Even at -25 °C, many models keep a COP above 1.5. Defrost cycles briefly reduce output. " +
		"Heat pumps are not suitable for Arctic homes. Installers in Norway report 40 percent savings."
	b.ReportAllocs()
	for b.Loop() {
		FaithfulnessScore(answer, contexts)
	}
}

// BenchmarkPassageRelevance grades each heat-pump document for a query: the
// offline relevance gate's work per source.
func BenchmarkPassageRelevance(b *testing.B) {
	texts := heatPumpTexts(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range texts {
			PassageRelevance("How do heat pumps perform in cold climates?", t)
		}
	}
}
