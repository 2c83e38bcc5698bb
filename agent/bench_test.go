package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/assaylabs/assay/eval"
)

// longReport builds a report of about words words with cites inline
// citations spread over its sentences.
func longReport(words, cites int) string {
	var b strings.Builder
	b.WriteString("# Benchmark report\n\n## Executive Summary\n\n")
	sentence := "The measured throughput of the system rose by 4.2 percent in the U.S. trial according to Dr. Smith et al."
	perSentence := len(strings.Fields(sentence))
	n := words / perSentence
	for i := range n {
		if i > 0 && i%8 == 0 {
			fmt.Fprintf(&b, "\n\n## Findings part %d\n\n", i/8)
		}
		b.WriteString(strings.TrimSuffix(sentence, "."))
		if i%(max(n/cites, 1)) == 0 {
			fmt.Fprintf(&b, " [source %d](https://www.example%d.gov/page/%d \"throughput rose by 4.2 percent\")", i, i%7, i)
		}
		fmt.Fprintf(&b, " in run %d. ", i)
	}
	b.WriteString("\n\n## Conclusion\n\nThroughput rose in every run.\n\n## Sources\n\n- https://www.example0.gov/page/0\n")
	return b.String()
}

func BenchmarkResearchCard(b *testing.B) {
	p, err := LoadProfile("research")
	if err != nil {
		b.Fatal(err)
	}
	s := eval.Sample{Query: "throughput of the system", Answer: longReport(5000, 60)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Score(context.Background(), p, s, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
