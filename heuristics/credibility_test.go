package heuristics

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// now is the fixed clock of these tests: 23 November 2026, noon UTC.
var now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func clock() time.Time { return now }

func intp(n int) *int           { return &n }
func boolp(b bool) *bool        { return &b }
func floatp(f float64) *float64 { return &f }

func TestCredibilityTiers(t *testing.T) {
	t.Parallel()
	// A source with no metadata gets its tier's base score.
	tests := map[string]struct {
		url        string
		wantRating float64
		wantBasis  string
		wantDomain string
	}{
		"government":        {"https://www.cdc.gov/flu/index.html", 10, "government 10", "cdc.gov"},
		"education":         {"https://cs.stanford.edu/people/x/", 10, "education 10", "stanford.edu"},
		"standards body":    {"https://www.w3.org/TR/wasm-core-2/", 9, "standards_body 9", "w3.org"},
		"official docs":     {"https://docs.python.org/3/library/asyncio.html", 9, "official_docs 9", "python.org"},
		"tier 1 news":       {"https://www.reuters.com/technology/x", 8, "tier1_news 8", "reuters.com"},
		"journal":           {"https://dl.acm.org/doi/10.1145/3597503", 8, "journals 8", "acm.org"},
		"preprint":          {"https://arxiv.org/abs/2401.00001", 7, "preprints 7", "arxiv.org"},
		"industry analysis": {"https://www.gartner.com/en/articles/x", 7, "industry_analysis 7", "gartner.com"},
		"expert blog":       {"https://martinfowler.com/articles/microservices.html", 7, "expert_blogs 7", "martinfowler.com"},
		"tier 2 news":       {"https://arstechnica.com/gadgets/x/", 6, "tier2_news 6", "arstechnica.com"},
		"reference work":    {"https://www.britannica.com/topic/x", 6, "reference_works 6", "britannica.com"},
		"wikipedia":         {"https://en.wikipedia.org/wiki/WebAssembly", 5, "wikipedia 5", "wikipedia.org"},
		"blog platform":     {"https://medium.com/@someone/post-123", 4, "blog_platforms 4 (no named author)", "medium.com"},
		"forum":             {"https://stackoverflow.com/questions/1/x", 3, "forums 3", "stackoverflow.com"},
		"social media":      {"https://x.com/someone/status/1", 2, "social_media 2", "x.com"},
		"user generated":    {"https://www.pinterest.com/pin/1/", 1, "user_generated 1", "pinterest.com"},
		"unlisted site":     {"https://example.org/about", 4, "unlisted site 4", "example.org"},
		"tracking params ignored": {
			"https://docs.python.org/3/?utm_source=x", 9, "official_docs 9", "python.org",
		},
		"no URL": {"", 4, "default 4 (no URL)", ""},
		"mailto URL": {
			"mailto:someone@example.com", 4, `default 4 (unusable URL: scheme "mailto" is not http or https)`, "",
		},
		"relative URL": {"/docs/a", 4, "default 4 (unusable URL: not an absolute URL (no scheme))", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Credibility{Now: clock}.Rate(eval.Source{URL: tc.url})
			assert.Equal(t, eval.SourceRating{
				URL: tc.url, Domain: tc.wantDomain, Rating: tc.wantRating, Basis: tc.wantBasis,
			}, got)
		})
	}
}

func TestCredibilityAdjustments(t *testing.T) {
	t.Parallel()
	const wiki = "https://en.wikipedia.org/wiki/Go_(programming_language)"
	tests := map[string]struct {
		src        eval.Source
		wantRating float64
		wantBasis  string
	}{
		"no metadata": {
			eval.Source{URL: wiki}, 5, "wikipedia 5",
		},
		"recent": {
			eval.Source{URL: wiki, Published: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)},
			6, "wikipedia 5; +1 recent (2026-09-01) → 6",
		},
		"neither recent nor old": {
			eval.Source{URL: wiki, Published: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)},
			5, "wikipedia 5",
		},
		"old": {
			eval.Source{URL: wiki, Published: time.Date(2019, 3, 14, 0, 0, 0, 0, time.UTC)},
			4, "wikipedia 5; -1 old (2019-03-14) → 4",
		},
		"multiple references": {
			eval.Source{URL: wiki, References: intp(12)}, 6, "wikipedia 5; +1 12 references → 6",
		},
		"two references are multiple": {
			eval.Source{URL: wiki, References: intp(2)}, 6, "wikipedia 5; +1 2 references → 6",
		},
		"one reference changes nothing": {
			eval.Source{URL: wiki, References: intp(1)}, 5, "wikipedia 5",
		},
		"no references": {
			eval.Source{URL: wiki, References: intp(0)}, 3, "wikipedia 5; -2 no references → 3",
		},
		"negative reference count is unknown": {
			eval.Source{URL: wiki, References: intp(-1)}, 5, "wikipedia 5",
		},
		"verified author": {
			eval.Source{URL: wiki, Author: "Ada", AuthorVerified: boolp(true)}, 6, "wikipedia 5; +1 verified author → 6",
		},
		"unverified author": {
			eval.Source{URL: wiki, Author: "Ada", AuthorVerified: boolp(false)}, 5, "wikipedia 5",
		},
		"known to have no author": {
			eval.Source{URL: wiki, AuthorKnown: true}, 4, "wikipedia 5; -1 no author → 4",
		},
		"blank author is no author": {
			eval.Source{URL: wiki, Author: "  ", AuthorKnown: true}, 4, "wikipedia 5; -1 no author → 4",
		},
		"unknown author": {
			eval.Source{URL: wiki, Author: ""}, 5, "wikipedia 5",
		},
		"named author": {
			eval.Source{URL: wiki, Author: "Ada Lovelace", AuthorKnown: true}, 5, "wikipedia 5",
		},
		"combined, as in the seed": {
			eval.Source{
				URL:        "https://docs.python.org/3/whatsnew/3.14.html",
				Published:  time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC),
				References: intp(0),
			},
			8, "official_docs 9; +1 recent (2026-09-01); -2 no references → 8",
		},
		"every adjustment in order": {
			eval.Source{
				URL:            wiki,
				Published:      time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC),
				References:     intp(3),
				AuthorVerified: boolp(true),
				AuthorKnown:    true,
			},
			5, "wikipedia 5; -1 old (2020-01-02); +1 3 references; +1 verified author; -1 no author → 5",
		},
		"capped at 10": {
			eval.Source{
				URL:            "https://www.nih.gov/news",
				Published:      time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
				References:     intp(40),
				Author:         "Dr. Smith",
				AuthorVerified: boolp(true),
			},
			10, "government 10; +1 recent (2026-11-01); +1 40 references; +1 verified author → 10 (capped from 13)",
		},
		"capped at 1": {
			eval.Source{
				URL:         "https://www.pinterest.com/pin/1/",
				Published:   time.Date(2015, 5, 5, 0, 0, 0, 0, time.UTC),
				References:  intp(0),
				AuthorKnown: true,
			},
			1, "user_generated 1; -1 old (2015-05-05); -2 no references; -1 no author → 1 (capped from -3)",
		},
		"date shown in UTC": {
			eval.Source{URL: wiki, Published: time.Date(2026, 9, 1, 1, 0, 0, 0, time.FixedZone("CEST", 2*3600))},
			6, "wikipedia 5; +1 recent (2026-08-31) → 6",
		},
		"date slightly ahead of the clock": {
			eval.Source{URL: wiki, Published: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)},
			6, "wikipedia 5; +1 recent (2026-11-24) → 6",
		},
		"date in the future": {
			eval.Source{URL: wiki, Published: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
			5, "wikipedia 5; recency not rated: published 2027-01-01 is after now → 5",
		},
		"adjustments on an unusable URL": {
			eval.Source{URL: "javascript:void(0)", References: intp(0)},
			2, `default 4 (unusable URL: scheme "javascript" is not http or https); -2 no references → 2`,
		},
		"adjustments on an unlisted site": {
			eval.Source{URL: "https://example.org/", AuthorKnown: true},
			3, "unlisted site 4; -1 no author → 3",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Credibility{Now: clock}.Rate(tc.src)
			assert.Equal(t, tc.wantRating, got.Rating)
			assert.Equal(t, tc.wantBasis, got.Basis)
		})
	}
}

func TestCredibilityRecencyBoundaries(t *testing.T) {
	t.Parallel()
	sixMonths := time.Date(2026, 5, 23, 12, 0, 0, 0, time.UTC) // now - 6 months
	twoYears := time.Date(2024, 11, 23, 12, 0, 0, 0, time.UTC) // now - 2 years
	tests := map[string]struct {
		published time.Time
		want      float64
	}{
		"a second under 6 months is recent":   {sixMonths.Add(time.Second), 6},
		"exactly 6 months is not recent":      {sixMonths, 5},
		"a second over 6 months is not":       {sixMonths.Add(-time.Second), 5},
		"a second under 2 years is not old":   {twoYears.Add(time.Second), 5},
		"exactly 2 years is not old":          {twoYears, 5},
		"a second over 2 years is old":        {twoYears.Add(-time.Second), 4},
		"published now is recent":             {now, 6},
		"a day ahead of the clock is recent":  {now.Add(24 * time.Hour), 6},
		"more than a day ahead is not rated":  {now.Add(24*time.Hour + time.Second), 5},
		"same instant in another time zone":   {sixMonths.In(time.FixedZone("JST", 9*3600)), 5},
		"unknown publication date is neutral": {time.Time{}, 5},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Credibility{Now: clock}.Rate(eval.Source{URL: "https://en.wikipedia.org/wiki/X", Published: tc.published})
			assert.Equal(t, tc.want, got.Rating, got.Basis)
		})
	}
}

func TestCredibilityWithoutClock(t *testing.T) {
	t.Parallel()
	// With Now nil, recency is not rated, however recent or old the source.
	for _, published := range []time.Time{
		time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		got := Credibility{}.Rate(eval.Source{URL: "https://en.wikipedia.org/wiki/X", Published: published})
		assert.Equal(t, 5.0, got.Rating)
		assert.Equal(t, "wikipedia 5", got.Basis)
	}
}

func TestCredibilityWithAuthorTier(t *testing.T) {
	t.Parallel()
	const (
		tech     = "https://dev.to/someone/why-go-3kd1"
		blog     = "https://someone.substack.com/p/why-go"
		thaiBlog = "https://somchai.blogspot.com/2025/01/ปั๊มความร้อน.html"
	)
	tests := map[string]struct {
		src        eval.Source
		wantRating float64
		wantBasis  string
	}{
		// Seed 001: general tech blog 5 with an author, 4 anonymous.
		"tech platform, named author": {
			eval.Source{URL: tech, Author: "Sam"}, 5, "blog_platforms 5 (named author)",
		},
		"tech platform, unknown author": {
			eval.Source{URL: tech}, 4, "blog_platforms 4 (no named author)",
		},
		"tech platform, known anonymous is not penalised twice": {
			eval.Source{URL: tech, AuthorKnown: true}, 4, "blog_platforms 4 (no named author)",
		},
		"tech platform, named and verified": {
			eval.Source{URL: tech, Author: "Sam", AuthorVerified: boolp(true), References: intp(5)},
			7, "blog_platforms 5 (named author); +1 5 references; +1 verified author → 7",
		},
		// Seed 001: anonymous blogs 2; a general blog that names its author
		// is not anonymous and keeps 5.
		"blog host, named author": {
			eval.Source{URL: blog, Author: "Sam"}, 5, "personal_blogs 5 (named author)",
		},
		"blog host, unknown author": {
			eval.Source{URL: blog}, 2, "personal_blogs 2 (no named author)",
		},
		"blog host, known anonymous is not penalised twice": {
			eval.Source{URL: blog, AuthorKnown: true}, 2, "personal_blogs 2 (no named author)",
		},
		"thai blog, anonymous, no references": {
			eval.Source{URL: thaiBlog, AuthorKnown: true, References: intp(0)}, 1, "personal_blogs 2 (no named author); -2 no references → 1 (capped from 0)",
		},
		"thai blog, named author": {
			eval.Source{URL: thaiBlog, Author: "สมชาย ใจดี"}, 5, "personal_blogs 5 (named author)",
		},
	}
	assert.Equal(t, "substack.com", Domain(blog), "substack is no public suffix")
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Credibility{Now: clock}.Rate(tc.src)
			assert.Equal(t, tc.wantRating, got.Rating)
			assert.Equal(t, tc.wantBasis, got.Basis)
		})
	}
}

func TestCredibilityGiven(t *testing.T) {
	t.Parallel()
	// Metadata that would otherwise adjust the rating.
	src := func(c *float64) eval.Source {
		return eval.Source{
			URL:         "https://www.pinterest.com/pin/1/",
			Published:   time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC),
			References:  intp(0),
			AuthorKnown: true,
			Credibility: c,
		}
	}
	tests := map[string]struct {
		given      *float64
		wantRating float64
		wantBasis  string
	}{
		"given wins over tier and adjustments": {floatp(7.5), 7.5, "given by user"},
		"given 10":                             {floatp(10), 10, "given by user"},
		"given 1":                              {floatp(1), 1, "given by user"},
		"above 10 is capped":                   {floatp(14), 10, "given by user (14, capped to 10)"},
		"below 1 is capped":                    {floatp(0), 1, "given by user (0, capped to 1)"},
		"negative is capped":                   {floatp(-3.5), 1, "given by user (-3.5, capped to 1)"},
		"infinity is capped":                   {floatp(math.Inf(1)), 10, "given by user (+Inf, capped to 10)"},
		"NaN is ignored": {
			floatp(math.NaN()), 1,
			"user_generated 1; -1 old (2015-01-01); -2 no references; -1 no author → 1 (capped from -3)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Credibility{Now: clock}.Rate(src(tc.given))
			assert.Equal(t, tc.wantRating, got.Rating)
			assert.Equal(t, tc.wantBasis, got.Basis)
			assert.Equal(t, "pinterest.com", got.Domain)
		})
	}
}

func TestCredibilityCustomTiers(t *testing.T) {
	t.Parallel()
	user, err := LoadTiers("mine.yaml", strings.NewReader(`
default_score: 2
tiers:
  - name: wiki
    score: 8
    domains: [wikipedia.org]
`))
	require.NoError(t, err)
	c := Credibility{Tiers: DefaultTiers().Merge(user)}

	got := c.Rate(eval.Source{URL: "https://de.wikipedia.org/wiki/Go"})
	assert.Equal(t, 8.0, got.Rating)
	assert.Equal(t, "wiki 8", got.Basis)

	got = c.Rate(eval.Source{URL: "https://example.net/"})
	assert.Equal(t, 2.0, got.Rating)
	assert.Equal(t, "unlisted site 2", got.Basis)

	got = c.Rate(eval.Source{URL: "https://go.dev/doc/"})
	assert.Equal(t, 9.0, got.Rating, "built-in tiers still apply")
}

func TestCredibilityNeverNaN(t *testing.T) {
	t.Parallel()
	for _, s := range []eval.Source{
		{},
		{URL: "%%%"},
		{URL: "https://"},
		{Credibility: floatp(math.NaN())},
		{URL: "https://example.com", References: intp(math.MaxInt)},
	} {
		got := Credibility{Now: clock}.Rate(s)
		assert.False(t, math.IsNaN(got.Rating))
		assert.GreaterOrEqual(t, got.Rating, 1.0)
		assert.LessOrEqual(t, got.Rating, 10.0)
		assert.NotEmpty(t, got.Basis)
	}
}

func TestSourceQualityPoints(t *testing.T) {
	t.Parallel()
	seed000 := []PointStep{{Min: 9, Points: 2}, {Min: 5, Points: 1}}
	tests := map[string]struct {
		avg   float64
		table []PointStep
		want  float64
	}{
		"10 is primary":              {10, defaultSourceQualityTable, 2},
		"9 is primary":               {9, defaultSourceQualityTable, 2},
		"just under 9":               {8.99, defaultSourceQualityTable, 1.5},
		"7 is secondary":             {7, defaultSourceQualityTable, 1.5},
		"just under 7":               {6.99, defaultSourceQualityTable, 1},
		"5 is tertiary":              {5, defaultSourceQualityTable, 1},
		"just under 5":               {4.99, defaultSourceQualityTable, 0},
		"1":                          {1, defaultSourceQualityTable, 0},
		"NaN, as from no sources":    {math.NaN(), defaultSourceQualityTable, 0},
		"minus infinity":             {math.Inf(-1), defaultSourceQualityTable, 0},
		"nil table is the default":   {7.5, nil, 1.5},
		"empty table gives nothing":  {10, []PointStep{}, 0},
		"seed 000 table":             {8, seed000, 1},
		"table order does not count": {9.2, []PointStep{{5, 1}, {7, 1.5}, {9, 2}}, 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, SourceQualityPoints(tc.avg, tc.table))
		})
	}
}

func ExampleCredibility_Rate() {
	c := Credibility{Now: func() time.Time { return time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC) }}
	refs := 0
	r := c.Rate(eval.Source{
		URL:        "https://docs.python.org/3/whatsnew/3.14.html",
		Published:  time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC),
		References: &refs,
	})
	fmt.Println(r.Domain, r.Rating)
	fmt.Println(r.Basis)
	// Output:
	// python.org 8
	// official_docs 9; +1 recent (2026-09-01); -2 no references → 8
}

func ExampleSourceQualityPoints() {
	fmt.Println(SourceQualityPoints(9.5, defaultSourceQualityTable))
	fmt.Println(SourceQualityPoints(7.5, defaultSourceQualityTable))
	fmt.Println(SourceQualityPoints(math.NaN(), defaultSourceQualityTable))
	// Output:
	// 2
	// 1.5
	// 0
}
