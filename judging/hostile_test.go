package judging

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/eval"
)

// TestRunLinesShowNamesEscaped: the judging model's and the fact
// checker's names come from flags (--llm, --checker) and a dry run's rows
// from a judges file; the run line and the plan show them with control
// characters and bidi overrides escaped.
func TestRunLinesShowNamesEscaped(t *testing.T) {
	t.Parallel()
	const raw, shown = "evil\x1b]0;pwn\x07\x1b[31m\u202e", `evil\x1b]0;pwn\a\x1b[31m\u202e`
	tests := map[string]struct {
		write func(*strings.Builder)
		want  []string
	}{
		"the run line": {
			write: func(b *strings.Builder) {
				Report{Judge: "llm:openai:" + raw, Checker: "openai:" + raw, CheckerUsage: &eval.Usage{Calls: 2}}.Write(b)
			},
			want: []string{"judge: llm:openai:" + shown + ";", "; checker openai:" + shown + ": calls 2"},
		},
		"the plan": {
			write: func(b *strings.Builder) {
				p := &Plan{Judge: "llm:openai:" + raw, Model: raw, Records: 1, Rows: []PlanRow{{Name: "judge" + raw, Calls: 1}}}
				p.Write(b)
			},
			want: []string{"dry run for llm:openai:" + shown + " on 1", "judge" + shown, "cost unknown: model " + shown + " is not", "({" + shown + ":"},
		},
		"the plan's header": {
			write: func(b *strings.Builder) {
				(&Plan{Header: "dry run for " + raw, Priced: true}).Write(b)
			},
			want: []string{"dry run for " + shown + "\n"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			tc.write(&b)
			out := b.String()
			for _, w := range tc.want {
				assert.Contains(t, out, w)
			}
			assert.NotContains(t, out, "\x1b")
			assert.NotContains(t, out, "\u202e")
		})
	}
}
