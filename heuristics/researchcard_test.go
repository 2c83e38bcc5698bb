package heuristics

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// The tests of this file follow the classes of input of issue 25's research
// card: each table mixes inputs that must change a count with correct
// content that must not.

// citing returns a report whose every sentence cites one of urls, in seed
// 000's format.
func citing(urls ...string) string {
	var b strings.Builder
	for i, u := range urls {
		b.WriteString("Fact number ")
		b.WriteString(strings.Repeat("I", i+1))
		b.WriteString(" is stated here [src](")
		b.WriteString(u)
		b.WriteString(` "a quote"). `)
	}
	return b.String() + "\n"
}

func TestPageKey(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		a, b string
		same bool
	}{
		"http and https":                      {"http://nrel.gov/a", "https://nrel.gov/a", true},
		"www and the bare host":               {"https://www.nrel.gov/a", "https://nrel.gov/a", true},
		"a trailing slash":                    {"https://nrel.gov/a/", "https://nrel.gov/a", true},
		"a fragment":                          {"https://nrel.gov/a#results", "https://nrel.gov/a", true},
		"tracking parameters":                 {"https://nrel.gov/a?utm_source=x&fbclid=1&gclid=2", "https://nrel.gov/a", true},
		"all at once":                         {"HTTP://WWW.NREL.gov:80/a/?utm_medium=mail#top", "https://nrel.gov/a", true},
		"a Thai host in punycode and in Thai": {"http://www.xn--72c1a1bt4awk9o.xn--o3cw4h/ข่าว", "https://ตัวอย่าง.ไทย/%E0%B8%82%E0%B9%88%E0%B8%B2%E0%B8%A7/", true},
		"another path is another page":        {"https://nrel.gov/a", "https://nrel.gov/b", false},
		"a deeper path is another page":       {"https://nrel.gov/a", "https://nrel.gov/a/b", false},
		"a content parameter is another page": {"https://nrel.gov/a?page=2", "https://nrel.gov/a", false},
		"a Thai content parameter":            {"https://ตัวอย่าง.ไทย/a?lang=th", "https://ตัวอย่าง.ไทย/a?lang=en", false},
		"another subdomain is another site":   {"https://docs.nrel.gov/a", "https://nrel.gov/a", false},
		"www.com is a site, not com":          {"https://www.com/a", "https://com/a", false},
		"another port is another site":        {"https://www.nrel.gov:8443/a", "https://nrel.gov/a", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, err := PageKey(tc.a)
			require.NoError(t, err)
			b, err := PageKey(tc.b)
			require.NoError(t, err)
			if tc.same {
				assert.Equal(t, a, b)
			} else {
				assert.NotEqual(t, a, b)
			}
			again, err := PageKey("https://" + a)
			require.NoError(t, err)
			assert.Equal(t, a, again, "a key read back as a URL gives itself")
		})
	}
	_, err := PageKey("mailto:a@b.org")
	assert.ErrorContains(t, err, `scheme "mailto" is not http or https`)
}

// TestDiversityCountsPages: distinct sources are distinct pages (issue 25,
// item 10): spellings of one page are one source, named in the reason.
func TestDiversityCountsPages(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		urls       []string
		wantUnique int
		wantPoints float64
		wantReason string
	}{
		"five spellings of one page": {
			urls: []string{"https://www.nrel.gov/study", "http://nrel.gov/study", "https://nrel.gov/study/",
				"https://nrel.gov/study#fig2", "https://nrel.gov/study?utm_source=news&gclid=x"},
			wantUnique: 1, wantPoints: 0,
			wantReason: "only 1 distinct sources from 1 domains; need 5; 4 cited URL(s) are another spelling of a page counted once: http://nrel.gov/study, https://nrel.gov/study/, https://nrel.gov/study#fig2 and 1 more",
		},
		"Thai pages spelt two ways each": {
			urls: []string{"https://www.ตัวอย่าง.ไทย/ข่าว/1", "http://xn--72c1a1bt4awk9o.xn--o3cw4h/%E0%B8%82%E0%B9%88%E0%B8%B2%E0%B8%A7/1/",
				"https://energy.go.th/รายงาน", "https://www.energy.go.th/รายงาน?fbclid=abc"},
			wantUnique: 2, wantPoints: 0,
			wantReason: "only 2 distinct sources from 2 domains; need 5; 2 cited URL(s) are another spelling of a page counted once: http://xn--72c1a1bt4awk9o.xn--o3cw4h/%E0%B8%82%E0%B9%88%E0%B8%B2%E0%B8%A7/1/, https://www.energy.go.th/รายงาน?fbclid=abc",
		},
		"five pages of one site are five sources": {
			urls: []string{"https://nrel.gov/a", "https://nrel.gov/b", "https://nrel.gov/a/b", "https://nrel.gov/a?page=2",
				"https://docs.nrel.gov/a"},
			wantUnique: 5, wantPoints: 1,
			wantReason: "5 distinct sources from 1 domains (need 5)",
		},
		"one page cited five times in one spelling": {
			urls:       []string{"https://nist.gov/x", "https://nist.gov/x", "https://nist.gov/x", "https://nist.gov/x", "https://nist.gov/x"},
			wantUnique: 1, wantPoints: 0,
			wantReason: "only 1 distinct sources from 1 domains; need 5",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := Diversity{}.Score(context.Background(), eval.Sample{Answer: citing(tc.urls...)})
			require.NoError(t, err)
			assert.Equal(t, float64(tc.wantUnique), sc.Evidence.Counts[KeyUniqueSources])
			assert.Equal(t, tc.wantPoints, sc.Points)
			assert.Equal(t, tc.wantReason, sc.Reason)
		})
	}
}

// TestSourceQualityRatesEachPageOnce: a page cited in two spellings is
// rated once, with the metadata given for either spelling.
func TestSourceQualityRatesEachPageOnce(t *testing.T) {
	t.Parallel()
	known := []eval.Source{{URL: "https://www.medium.com/@a/post", Author: "Ann"}}
	sc, err := SourceQuality{}.Score(context.Background(), eval.Sample{
		Answer:  citing("http://medium.com/@a/post/", "https://medium.com/@a/post#top", "https://www.nasa.gov/x"),
		Sources: known,
	})
	require.NoError(t, err)
	require.Len(t, sc.Evidence.Sources, 2)
	assert.Equal(t, "blog_platforms 5 (named author)", sc.Evidence.Sources[0].Basis, "the author given for the www spelling")
	assert.Equal(t, 7.5, sc.Evidence.Counts[KeyAvgCredibility])
}
