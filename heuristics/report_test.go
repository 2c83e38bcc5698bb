package heuristics

import "testing"

func FuzzParseReport(f *testing.F) {
	for _, s := range []string{"", "# T\n\nA b c [x](https://a.gov \"q\").", "[^1]\n\n[^1]: x", "[1] a.\n\n## Sources\n\n1. https://x", "`a. b` c. d [", "\xff\xfe", "U.S. The. Dr. e.g. [a](<http://x> 'y')"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		r := ParseReport([]byte(md))
		for _, c := range r.Claims() {
			if c.Line < 0 {
				t.Fatalf("negative line %d", c.Line)
			}
		}
		_ = Grounding{}.score(r)
		_ = Clarity{}.score(r)
	})
}
