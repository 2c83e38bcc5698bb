package agent_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
)

// TestCheckQuotes checks a model report's citations against the kept
// sources: a quote the cited source has stays, a quote another source has
// is re-cited, and a sentence citing what no source says, or a page that
// is not a source at all, is removed.
func TestCheckQuotes(t *testing.T) {
	t.Parallel()
	srcs := []*agent.SourceRecord{
		{Source: eval.Source{URL: "https://a.example/x", Text: "Heat pumps keep a COP of 2 at minus 15 degrees."}},
		{Source: eval.Source{URL: "https://b.example/y", Text: "Field data from 11 homes show backup heat is rarely used."}},
		{Source: eval.Source{URL: "https://c.example/z", Text: "Le caf\u00e9 de Flore in Saint-Germain opened in 1887."}},
	}
	tests := map[string]struct {
		report           string
		want             string
		removed, recited int
	}{
		"a quote its source has stays": {
			report: `Heat pumps work ([a](https://a.example/x "keep a COP of 2")). Next.`,
			want:   `Heat pumps work ([a](https://a.example/x "keep a COP of 2")). Next.`,
		},
		"a quote another source has is re-cited": {
			report:  `Backup is rare ([a](https://a.example/x "backup heat is rarely used")).`,
			want:    `Backup is rare ([a](https://b.example/y "backup heat is rarely used")).`,
			recited: 1,
		},
		"an invented quote takes its sentence out": {
			report:  `They never fail ([a](https://a.example/x "never fail")). Heat pumps work ([a](https://a.example/x "keep a COP of 2")).`,
			want:    `Heat pumps work ([a](https://a.example/x "keep a COP of 2")).`,
			removed: 1,
		},
		"an invented quote in Chinese takes its sentence out, up to its 。": {
			report:  `热泵从不失效 ([a](https://a.example/x "从不失效"))。热泵有效 ([a](https://a.example/x "keep a COP of 2"))。`,
			want:    `热泵有效 ([a](https://a.example/x "keep a COP of 2"))。`,
			removed: 1,
		},
		"the sentence after an invented Chinese quote stays": {
			report:  `热泵有效 ([a](https://a.example/x "keep a COP of 2"))！热泵从不失效 ([a](https://a.example/x "从不失效"))。`,
			want:    `热泵有效 ([a](https://a.example/x "keep a COP of 2"))！`,
			removed: 1,
		},
		// Unicode NFC on both sides: an accent typed as its own character
		// is the same letter as the precomposed one the source has.
		"a quote with a combining accent stays": {
			report: "Flore is old ([c](https://c.example/z \"Le cafe\u0301 de Flore\")). Next.",
			want:   "Flore is old ([c](https://c.example/z \"Le cafe\u0301 de Flore\")). Next.",
		},
		"a plain link to a source stays": {
			report: `Heat pumps work ([a](https://a.example/x)). Next.`,
			want:   `Heat pumps work ([a](https://a.example/x)). Next.`,
		},
		"a plain link to a page that is no source takes its sentence out": {
			report:  `Heat pumps work ([a](https://a.example/x)). They never fail ([blog](https://invented.example/post)). Next one.`,
			want:    `Heat pumps work ([a](https://a.example/x)). Next one.`,
			removed: 1,
		},
		"a source listed by another form of its URL stays": {
			report: `Heat pumps work ([a](https://A.example/x/)).`,
			want:   `Heat pumps work ([a](https://A.example/x/)).`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, removed, recited := agent.CheckQuotes(tc.report, srcs)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.removed, removed, "removed")
			assert.Equal(t, tc.recited, recited, "recited")
		})
	}
}
