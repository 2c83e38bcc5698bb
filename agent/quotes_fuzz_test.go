package agent

import (
	"testing"

	"github.com/assaylabs/assay/eval"
)

// FuzzCheckQuotes runs the quote check over arbitrary reports: it must not
// panic, and it must never add text to the report.
func FuzzCheckQuotes(f *testing.F) {
	src := []*SourceRecord{{Source: eval.Source{URL: "https://a.example/x", Text: "Heat pumps keep a COP of 2 at minus 15 degrees."}}}
	for _, s := range []string{
		`Heat pumps work ([a](https://a.example/x "keep a COP of 2")).`,
		`- Made up ([a](https://a.example/x "never said")). Next one.`,
		`[a](<https://a.example/x> "q \" quote") [b](https://b.example "x")`,
		"", "(((", `[x](y "z`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, report string) {
		out, removed, recited := CheckQuotes(report, src)
		if removed < 0 || recited < 0 {
			t.Fatal("negative counts")
		}
		if recited == 0 && len(out) > len(report) {
			t.Fatalf("report grew: %q -> %q", report, out)
		}
		if removed == 0 && recited == 0 && out != report {
			t.Fatalf("report changed without a reason: %q -> %q", report, out)
		}
	})
}
