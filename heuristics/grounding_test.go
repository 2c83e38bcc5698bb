package heuristics

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

func TestBandPoints(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		cov, want float64
	}{
		"100% is 5":     {100, 5},
		"99.99% is 4.9": {99.99, 4.9}, // 4 + 0.9*4.99/5 = 4.898
		"97.5% is 4.45": {97.5, 4.45}, // 4 + 0.9*2.5/5
		"95% is 4":      {95, 4},      // band floor
		"94.99% is 3.9": {94.99, 3.9}, // 3 + 0.9*9.99/10 = 3.899
		"90% is 3.45":   {90, 3.45},   // 3 + 0.9*5/10
		"80% is 2.6":    {80, 2.6},    // 2 + 0.9*10/15
		"62.5% is 1.56": {62.5, 1.56}, // 1 + 0.9*12.5/20 = 1.5625
		"50% is 1":      {50, 1},      // band floor
		"49.99% is 0":   {49.99, 0},   // below every band
		"0% is 0":       {0, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tc.want, bandPoints(defaultGroundingBands, tc.cov), 1e-9)
		})
	}
}

func TestGroundingScore(t *testing.T) {
	t.Parallel()
	cited := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "Fact number %d is true [source](https://a%d.gov/x \"fact %d\").\n", i, i, i)
		}
		return b.String()
	}
	tests := map[string]struct {
		md                  string
		points, total, cite float64
	}{
		"all cited": {cited(4), 5, 4, 4},
		// 87.5% lies in the 85-94.99 band: 3 + 0.9*(87.5-85)/10 = 3.225 -> 3.23.
		"one of 8 uncited": {cited(7) + "An uncited fact stands here.\n", 3.23, 8, 7},
		"no claims":        {"# Title only\n", 0, 0, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := Grounding{}.Score(context.Background(), eval.Sample{Answer: tc.md})
			require.NoError(t, err)
			assert.InDelta(t, tc.points, sc.Points, 1e-9)
			assert.Equal(t, 5.0, sc.Max)
			assert.Equal(t, tc.total, sc.Evidence.Counts["total_claims"])
			assert.Equal(t, tc.cite, sc.Evidence.Counts["cited_claims"])
			if tc.total == 0 {
				assert.True(t, errors.Is(sc.Err, eval.ErrNoClaims))
			}
		})
	}
}

func TestCompletenessAspects(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		query string
		want  []string
	}{
		"vs":          {"React vs Vue", []string{"react", "vue"}},
		"compare":     {"Compare PostgreSQL and MySQL for analytics", []string{"postgresql", "mysql analytics"}},
		"difference":  {"What is the difference between TCP and UDP?", []string{"tcp", "udp"}},
		"differ from": {"How does HTTP/3 differ from HTTP/2?", []string{"http 3", "http 2"}},
		"differs":     {"How TCP differs from UDP", []string{"tcp", "udp"}},
		"plain":       {"What are the key features of WebAssembly?", []string{"features", "webassembly"}},
		"stop words":  {"what is the", nil},
		// Short names are kept as written; words that frame the question
		// are no aspects.
		"a short name on one side":     {"Zig versus C for embedded firmware", []string{"zig", "C embedded firmware"}},
		"a two-letter name":            {"Compare Qt with GTK", []string{"Qt", "gtk"}},
		"the first word is no name":    {"Is WebAssembly fast", []string{"webassembly", "fast"}},
		"inquiry verbs are no aspects": {"What have astronomers uncovered and learned about exoplanet atmospheres?", []string{"astronomers", "exoplanet", "atmospheres"}},
		"Thai comparison":              {"เปรียบเทียบรถไฟฟ้ากับรถเมล์", []string{"รถไฟฟ้า", "รถเมล์"}},
		"Thai difference":              {"รถไฟฟ้าและรถเมล์ต่างกันอย่างไร", []string{"รถไฟฟ้า", "รถเมล์"}},
		"Thai versus":                  {"ค่าโดยสารรถไฟฟ้าเทียบกับรถตู้", []string{"ค่า โดยสาร รถไฟฟ้า", "รถ ตู้"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, Aspects(tc.query))
		})
	}
}

func TestCompletenessGaps(t *testing.T) {
	t.Parallel()
	md := "# React\n\nReact renders components with a virtual DOM [r](https://react.dev).\n"
	sc, err := Completeness{}.Score(context.Background(), eval.Sample{Query: "React vs Vue", Answer: md})
	require.NoError(t, err)
	assert.Equal(t, 0.0, sc.Points)
	assert.Equal(t, []string{`"vue" not covered`}, sc.Evidence.Gaps)
}

// TestCompletenessShortNames: a short name is a side of its own, matched
// by its exact spelling, so a lower-case word of the same letters ("go
// further") does not cover it.
func TestCompletenessShortNames(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		query, md string
		gaps      []string
	}{
		"a name never mentioned is a gap outside a comparison too": {
			query: "Rust or Go for command-line tools",
			md:    "# Tools\n\nRust builds fast command-line tools with cargo [r](https://doc.rust-lang.org/x).\n",
			gaps:  []string{`"Go" not covered`},
		},
		"versus with a short name missing": {
			query: "Rust versus Go",
			md:    "# Tools\n\nRust programs go further on embedded boards [r](https://doc.rust-lang.org/x).\n",
			gaps:  []string{`"Go" not covered`},
		},
		"versus with the short name present": {
			query: "Rust versus Go",
			md:    "# Tools\n\nRust and Go both compile to native code [r](https://doc.rust-lang.org/x).\n",
		},
		"a one-letter language": {
			query: "R vs Python for statistics",
			md:    "# Stats\n\nPython has pandas for statistics work [p](https://docs.python.org/x).\n",
			gaps:  []string{`"R" not covered`},
		},
		"an inquiry verb is no gap": {
			query: "What did researchers discover about coral bleaching",
			md:    "# Reefs\n\nResearchers measured coral bleaching across the reef [n](https://noaa.gov/x).\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := Completeness{}.Score(context.Background(), eval.Sample{Query: tc.query, Answer: tc.md})
			require.NoError(t, err)
			assert.Equal(t, tc.gaps, sc.Evidence.Gaps)
		})
	}
}

func TestCompletenessTitleIsNotCoverage(t *testing.T) {
	t.Parallel()
	const body = "\n\n## Executive Summary\n\nHeat pumps move heat from outside air into the home [d](https://www.energy.gov/a).\n"
	tests := map[string]struct {
		query, md string
		points    float64
		gaps      []string
	}{
		"a side named only in the title is a gap": {
			query: "Heat pumps versus gas furnaces", md: "# Heat pumps versus gas furnaces" + body,
			gaps: []string{`"gas furnaces" not covered`},
		},
		"the title as the query covers nothing by itself": {
			query: "", md: "# Heat pumps versus gas furnaces" + body,
			gaps: []string{`"gas furnaces" not covered`},
		},
		"a report of only a title covers nothing": {
			query: "", md: "# Cold climate heat pumps\n",
			gaps: []string{`"cold" not covered`, `"climate" not covered`, `"heat" not covered`, `"pumps" not covered`},
		},
		"section headings still count": {
			query: "Heat pumps versus gas furnaces", md: "# Heat pumps versus gas furnaces" + body + "\n## Gas furnaces\n\nSee above.\n",
			points: 1,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := Completeness{}.Score(context.Background(), eval.Sample{Query: tc.query, Answer: tc.md})
			require.NoError(t, err)
			assert.Equal(t, tc.points, sc.Points)
			assert.Equal(t, tc.gaps, sc.Evidence.Gaps)
		})
	}
}

func TestClarityIssues(t *testing.T) {
	t.Parallel()
	good := "# T\n\n## Executive Summary\n\nShort clear sentence here.\n\n## Main Findings\n\nAnother short sentence here.\n\n## Conclusion\n\nA closing sentence here.\n\n## Sources\n\n- https://a.gov\n"
	sc, _ := Clarity{}.Score(context.Background(), eval.Sample{Answer: good})
	assert.Equal(t, 1.0, sc.Points)
	assert.Empty(t, sc.Evidence.Issues)

	long := strings.Repeat("word ", 60)
	bad := "# T\n\n" + long + ".\n\nThe same sentence again here. The same sentence again here.\n"
	sc, _ = Clarity{}.Score(context.Background(), eval.Sample{Answer: bad})
	assert.Equal(t, 0.0, sc.Points)
	assert.Contains(t, sc.Evidence.Issues, "missing executive summary section")
	assert.Contains(t, sc.Evidence.Issues, "1 sentence over 50 words")
	assert.Contains(t, sc.Evidence.Issues, `repeated sentence at line 5: "The same sentence again here."`)
}

// TestDefaultTablesScaleToMax: a grounding or source quality scorer given
// a maximum but no table of its own earns its maximum where seed 001's
// table earns its top, and the same share of it below.
func TestDefaultTablesScaleToMax(t *testing.T) {
	t.Parallel()
	cite := func(host string) string {
		return fmt.Sprintf("Fact about %s is true [source](https://%s/x \"fact\").\n", host, host)
	}
	allCited := cite("a.gov") + cite("b.edu") + cite("c.gov") + cite("d.edu")
	// 7 of 8 cited is 87.5%: 3.225 of seed 001's 5 points, 6.45 of 10.
	oneUncited := allCited + cite("e.gov") + cite("f.gov") + cite("g.gov") + "An uncited fact stands here.\n"
	blogs := cite("someone.blogspot.com") + cite("other.blogspot.com")
	tests := map[string]struct {
		scorer      eval.Scorer
		md          string
		points, max float64
	}{
		"grounding of 10, all cited":           {Grounding{Max: 10}, allCited, 10, 10},
		"grounding of 10, one of 8 uncited":    {Grounding{Max: 10}, oneUncited, 6.45, 10},
		"grounding of 1, all cited":            {Grounding{Max: 1}, allCited, 1, 1},
		"grounding of 5 is seed 001's table":   {Grounding{Max: 5}, oneUncited, 3.23, 5},
		"grounding with bands keeps them":      {Grounding{Max: 10, Bands: []Band{{Min: 100, From: 7, To: 7}}}, allCited, 7, 10},
		"source quality of 4, primary sources": {SourceQuality{Max: 4}, allCited, 4, 4},
		"source quality of 1, primary sources": {SourceQuality{Max: 1}, allCited, 1, 1},
		"source quality of 4, anonymous blogs": {SourceQuality{Max: 4}, blogs, 0, 4},
		"source quality with steps keeps them": {SourceQuality{Max: 4, Table: []PointStep{{Min: 1, Points: 3}}}, allCited, 3, 4},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := tc.scorer.Score(context.Background(), eval.Sample{Answer: tc.md})
			require.NoError(t, err)
			assert.InDelta(t, tc.points, sc.Points, 1e-9)
			assert.Equal(t, tc.max, sc.Max)
			assert.InDelta(t, tc.points/tc.max, sc.Value, 1e-9)
		})
	}
}

// TestCompletenessReasonCountsAspects: the reason's count of aspects
// agrees with its noun, one aspect being "1 key aspect".
func TestCompletenessReasonCountsAspects(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		query, md, want string
	}{
		"one aspect, covered":  {"geothermal", "# Heat\n\nGeothermal wells move heat [d](https://energy.gov/a).\n", "1 key aspect of the query covered"},
		"one aspect, missing":  {"solar", "# Heat\n\nGeothermal wells move heat [d](https://energy.gov/a).\n", "0 of 1 key aspect covered"},
		"two aspects, covered": {"Rust vs Go", "# Tools\n\nRust and Go compile to native code [r](https://go.dev/x).\n", "all 2 key aspects of the query covered"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := Completeness{}.Score(context.Background(), eval.Sample{Query: tc.query, Answer: tc.md})
			require.NoError(t, err)
			assert.Equal(t, tc.want, sc.Reason)
		})
	}
}

// TestClarityCountsWordsNotMarkers: a sentence's length is its words, not
// its citation markers or bare URLs, so citing a sentence more fully does
// not make it "too long".
func TestClarityCountsWordsNotMarkers(t *testing.T) {
	t.Parallel()
	const head = "# T\n\n## Executive Summary\n\n"
	const tail = "\n\n## Conclusion\n\nA closing sentence here [1].\n\n## Main Findings\n\nAnother short sentence here [2].\n\n" +
		"## Sources\n\n1. https://a.gov/1\n2. https://b.edu/2\n3. https://c.gov/3\n4. https://d.edu/4\n"
	words24 := strings.TrimSpace(strings.Repeat("heat ", 23)) + " pumps"
	tests := map[string]struct {
		sentence string
		avg      float64
		points   float64
	}{
		"separate markers":      {words24 + " [1][2][3][4][^a].\n\n[^a]: https://e.gov/5", 10.67, 1},
		"a grouped marker":      {words24 + " [1, 2, 3, 4].", 10.67, 1},
		"a range marker":        {words24 + " [1-4].", 10.67, 1},
		"a bare URL":            {words24 + " https://a.gov/one/two/three/four/five/six.", 10.67, 1},
		"a dangling marker":     {words24 + " [7][8][9].", 10.67, 1},
		"link text is prose":    {words24 + " [heat pump study of the year](https://a.gov/1 \"q\").", 12.67, 1},
		"long prose stays long": {strings.Repeat("heat ", 51) + "pumps [1].", 20, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, _ := Clarity{}.Score(context.Background(), eval.Sample{Answer: head + tc.sentence + tail})
			assert.InDelta(t, tc.avg, sc.Evidence.Counts["avg_sentence_words"], 0.005)
			assert.Equal(t, tc.points, sc.Points, sc.Evidence.Issues)
		})
	}
}

// TestClarityRepeatedSentenceCitedApart: a sentence repeated with another
// citation marker is still repeated; sentences that differ in their words
// are not.
func TestClarityRepeatedSentenceCitedApart(t *testing.T) {
	t.Parallel()
	const head = "# T\n\n## Executive Summary\n\nHeat pumps work in cold weather [1].\n\n## Main Findings\n\n"
	const tail = "\n\n## Conclusion\n\nThey suit cold places [2].\n\n## Sources\n\n1. https://a.gov/1\n2. https://b.edu/2\n3. https://c.gov/3\n\n[^a]: https://d.gov/4\n"
	tests := map[string]struct {
		body   string
		issues []string
	}{
		"numbered markers":  {"Sales grew steadily in Norway [2]. Sales grew steadily in Norway [3].", []string{`repeated sentence at line 9: "Sales grew steadily in Norway [3]."`}},
		"a footnote":        {"Sales grew steadily in Norway [2].\n\nSales grew steadily in Norway.[^a]", []string{`repeated sentence at line 11: "Sales grew steadily in Norway.[^a]"`}},
		"a grouped marker":  {"Sales grew steadily in Norway [2]. Sales grew steadily in Norway [1-3].", []string{`repeated sentence at line 9: "Sales grew steadily in Norway [1-3]."`}},
		"different numbers": {"Sales grew 4% in Norway [2]. Sales grew 9% in Norway [3].", nil},
		"a Thai sentence, its number in Thai then ASCII digits": {
			"ราคาข้าวหอมมะลิสูงขึ้นร้อยละ ๑๐ ในปีนี้[2]\n\nราคาข้าวหอมมะลิสูงขึ้นร้อยละ 10 ในปีนี้[3]",
			[]string{`repeated sentence at line 11: "ราคาข้าวหอมมะลิสูงขึ้นร้อยละ 10 ในปีนี้[3]"`, "paragraphs at lines 9 and 11 are near-duplicates"},
		},
		"Thai sentences with different numbers": {"ราคาข้าวหอมมะลิสูงขึ้นร้อยละ ๑๐ ในปีนี้[2]\n\nราคาข้าวหอมมะลิสูงขึ้นร้อยละ 11 ในปีนี้[3]", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, _ := Clarity{}.Score(context.Background(), eval.Sample{Answer: head + tc.body + tail})
			assert.Equal(t, tc.issues, sc.Evidence.Issues)
		})
	}
}

// TestShownFiguresNeverReachAMissedThreshold: the coverage and average
// credibility a card shows are rounded down, so a figure shown at a
// threshold (100%, an average of 9) means the rule's figure reached it.
func TestShownFiguresNeverReachAMissedThreshold(t *testing.T) {
	t.Parallel()
	cite := func(i int, host string, quoted bool) string {
		if !quoted {
			return fmt.Sprintf("Claim number %d is stated here.\n", i)
		}
		return fmt.Sprintf("Claim number %d is stated here [s](https://%s/p%d \"q\").\n", i, host, i)
	}
	var nearlyAll, nearlyNine strings.Builder
	for i := range 2000 {
		nearlyAll.WriteString(cite(i, "a.gov", i > 0)) // 1999 of 2000 cited: 99.95%
	}
	for i := range 200 {
		nearlyNine.WriteString(cite(i, "docs.python.org", true)) // official docs, 9
	}
	nearlyNine.WriteString(cite(200, "nature.com", true)) // a journal, 8: 1808/201 = 8.995
	tests := map[string]struct {
		scorer eval.Scorer
		md     string
		key    string
		shown  float64
		points float64
		reason string
	}{
		"coverage 99.95%":   {Grounding{}, nearlyAll.String(), KeyCitationCoveragePct, 99.95, 4.89, "1999 of 2000 claims cited (99.9%)"},
		"coverage 2 of 3":   {Grounding{}, cite(0, "a.gov", true) + cite(1, "a.gov", true) + cite(2, "", false), KeyCitationCoveragePct, 66.67, 1.75, "2 of 3 claims cited (66.7%)"},
		"average 8.995":     {SourceQuality{}, nearlyNine.String(), KeyAvgCredibility, 8.99, 1.5, "average credibility 8.99 over 201 sources"},
		"average exactly 9": {SourceQuality{}, cite(0, "docs.python.org", true), KeyAvgCredibility, 9, 2, "average credibility 9.00 over 1 source"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := tc.scorer.Score(context.Background(), eval.Sample{Answer: tc.md})
			require.NoError(t, err)
			assert.Equal(t, tc.shown, sc.Evidence.Counts[tc.key])
			assert.Equal(t, tc.points, sc.Points)
			assert.True(t, strings.HasPrefix(sc.Reason, tc.reason), sc.Reason)
		})
	}
}

func TestShownAt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		x, per, want float64
	}{
		{8.995, 100, 8.99},
		{8.994, 100, 8.99},
		{9, 100, 9},
		{200.0 / 3, 100, 66.67},
		{200.0 / 3, 10, 66.7},
		{99.95, 10, 99.9},
		{99.995, 100, 99.99},
		{0.29, 100, 0.29},
		{7.9999, 100, 7.99},
		{7.004, 100, 7},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, shownAt(tc.x, tc.per), "shownAt(%v, %v)", tc.x, tc.per)
	}
}
