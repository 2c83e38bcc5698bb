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
			wantReason: "only 1 distinct source from 1 domain; need 5; 4 cited URLs are other spellings of pages counted once: http://nrel.gov/study, https://nrel.gov/study/, https://nrel.gov/study#fig2 and 1 more",
		},
		"Thai pages spelt two ways each": {
			urls: []string{"https://www.ตัวอย่าง.ไทย/ข่าว/1", "http://xn--72c1a1bt4awk9o.xn--o3cw4h/%E0%B8%82%E0%B9%88%E0%B8%B2%E0%B8%A7/1/",
				"https://energy.go.th/รายงาน", "https://www.energy.go.th/รายงาน?fbclid=abc"},
			wantUnique: 2, wantPoints: 0,
			wantReason: "only 2 distinct sources from 2 domains; need 5; 2 cited URLs are other spellings of pages counted once: http://xn--72c1a1bt4awk9o.xn--o3cw4h/%E0%B8%82%E0%B9%88%E0%B8%B2%E0%B8%A7/1/, https://www.energy.go.th/รายงาน?fbclid=abc",
		},
		"one page in two spellings": {
			urls:       []string{"https://www.nrel.gov/study", "http://nrel.gov/study"},
			wantUnique: 1, wantPoints: 0,
			wantReason: "only 1 distinct source from 1 domain; need 5; 1 cited URL is another spelling of a page counted once: http://nrel.gov/study",
		},
		"five pages of one site are five sources": {
			urls: []string{"https://nrel.gov/a", "https://nrel.gov/b", "https://nrel.gov/a/b", "https://nrel.gov/a?page=2",
				"https://docs.nrel.gov/a"},
			wantUnique: 5, wantPoints: 1,
			wantReason: "5 distinct sources from 1 domain (need 5)",
		},
		"one page cited five times in one spelling": {
			urls:       []string{"https://nist.gov/x", "https://nist.gov/x", "https://nist.gov/x", "https://nist.gov/x", "https://nist.gov/x"},
			wantUnique: 1, wantPoints: 0,
			wantReason: "only 1 distinct source from 1 domain; need 5",
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

// TestCitationClosesItsSentence: a citation belongs to the sentence it
// closes (issue 25, item 9), a link as a bare [1] does; a link that the
// next words continue is that sentence's own.
func TestCitationClosesItsSentence(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		md     string
		claims []string
		cited  []bool
	}{
		"a quoted link against the full stop": {
			md:     "Heat pumps reached a COP of 2.0.[UMN](https://umn.edu/a \"a COP of 2.0\") Next the team measured capacity at 86 percent.\n",
			claims: []string{"Heat pumps reached a COP of 2.0.UMN", "Next the team measured capacity at 86 percent."},
			cited:  []bool{true, false},
		},
		"a plain link against a question mark, then two sentences": {
			md:     "Does frost cut output by a tenth?[ORNL](https://ornl.gov/f) Output fell by 9 percent in the lab. Defrost took four minutes.\n",
			claims: []string{"Output fell by 9 percent in the lab.", "Defrost took four minutes."},
			cited:  []bool{false, false},
		},
		"a link after a space, before a capitalised word": {
			md:     "Sales rose 25 percent in Canada last year. [Reuters](https://reuters.com/x \"rose about 25 percent\") Installers expect more growth this winter.\n",
			claims: []string{"Sales rose 25 percent in Canada last year. Reuters", "Installers expect more growth this winter."},
			cited:  []bool{true, false},
		},
		"two links against the full stop": {
			md:     "Capacity held at 86 percent.[NIST](https://nist.gov/a) [NREL](https://nrel.gov/b) The homes saved money.\n",
			claims: []string{"Capacity held at 86 percent.NIST NREL", "The homes saved money."},
			cited:  []bool{true, false},
		},
		"a Thai sentence with its link against the full stop": {
			md:     "ปั๊มความร้อนให้ค่า COP ราว 2.0 ที่ลบ 15 องศา.[มหาวิทยาลัยมินนิโซตา](https://umn.edu/a \"COP of 2.0\") ต่อมาทีมวัดกำลังการทำความร้อนได้ร้อยละ 86\n",
			claims: []string{"ปั๊มความร้อนให้ค่า COP ราว 2.0 ที่ลบ 15 องศา.มหาวิทยาลัยมินนิโซตา", "ต่อมาทีมวัดกำลังการทำความร้อนได้ร้อยละ 86"},
			cited:  []bool{true, false},
		},
		// Correct content that must not move.
		"a link that opens the next sentence as its subject": {
			md:     "Heat pumps kept homes warm. [NIST](https://nist.gov/a) reports that defrost cut output by a tenth.\n",
			claims: []string{"Heat pumps kept homes warm.", "NIST reports that defrost cut output by a tenth."},
			cited:  []bool{false, true},
		},
		"a citation before the full stop stays": {
			md:     "The homes used 40 percent less energy [UMN](https://umn.edu/a \"40 percent less\"). Next winter the study goes on.\n",
			claims: []string{"The homes used 40 percent less energy UMN.", "Next winter the study goes on."},
			cited:  []bool{true, false},
		},
		"a Thai link inside its sentence stays": {
			md:     "รายงานของ [กรมพัฒนาพลังงานทดแทน](https://www.dede.go.th/x \"ประหยัดไฟร้อยละ 30\") ระบุว่าบ้านประหยัดไฟได้ร้อยละ 30\n",
			claims: []string{"รายงานของ กรมพัฒนาพลังงานทดแทน ระบุว่าบ้านประหยัดไฟได้ร้อยละ 30"},
			cited:  []bool{true},
		},
		"a bare marker still closes its sentence": {
			md:     "Capacity held at 86 percent.[1] The homes saved money.\n\n## Sources\n\n1. https://nist.gov/a\n",
			claims: []string{"Capacity held at 86 percent.[1]", "The homes saved money."},
			cited:  []bool{true, false},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := ParseReport([]byte(tc.md))
			var claims []string
			var cited []bool
			for _, c := range r.Claims() {
				claims = append(claims, c.Text)
				cited = append(cited, c.Verdict != eval.VerdictUncited)
			}
			assert.Equal(t, tc.claims, claims)
			assert.Equal(t, tc.cited, cited)
		})
	}
}

// TestCitedWithoutQuote: seed 000 counts a citation as [text](url
// "quote"); a claim cited only by links without their quote is counted
// apart, and counts as cited only under AcceptUnquoted (issue 25, item 12).
func TestCitedWithoutQuote(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		md                   string
		verdicts             []string
		cited, unquoted      float64 // under the seed's count
		points, acceptPoints float64
		reason               string
	}{
		"a plain link and an autolink": {
			md: "Capacity held at 86 percent at minus 15 degrees [NIST](https://nist.gov/a).\n\n" +
				"Defrost took four minutes per hour <https://ornl.gov/b>.\n\n" +
				"The homes used 40 percent less energy [UMN](https://umn.edu/c \"40 percent less\").\n",
			verdicts: []string{eval.VerdictCitedNoQuote, eval.VerdictCitedNoQuote, eval.VerdictCited},
			cited:    1, unquoted: 2, points: 0, acceptPoints: 5,
			reason: `1 of 3 claims cited (33.3%); cited without quote (not counted: seed 000 cites with [text](url "quote")): ` +
				`line 1: "Capacity held at 86 percent at minus 15 degrees NIST."; line 3: "Defrost took four minutes per hour https://ornl.gov/b."`,
		},
		"an empty title is no quote": {
			md:       "Sales rose 25 percent in Canada [Reuters](https://reuters.com/x \"\").\n\nInstallers expect more growth [AP](https://apnews.com/y \"installers expect growth\").\n",
			verdicts: []string{eval.VerdictCitedNoQuote, eval.VerdictCited},
			cited:    1, unquoted: 1, points: 1, acceptPoints: 5,
			reason: `1 of 2 claims cited (50.0%); cited without quote (not counted: seed 000 cites with [text](url "quote")): line 1: "Sales rose 25 percent in Canada Reuters."`,
		},
		"Thai claims with and without the quote": {
			md: "บ้านที่ติดตั้งปั๊มความร้อนประหยัดไฟได้ร้อยละ 30 [กรมพัฒนาพลังงานทดแทน](https://www.dede.go.th/x)\n\n" +
				"ปั๊มความร้อนให้ค่า COP ราว 2.0 ที่ลบ 15 องศา [มหาวิทยาลัยมินนิโซตา](https://umn.edu/a \"ค่า COP ราว 2.0\")\n",
			verdicts: []string{eval.VerdictCitedNoQuote, eval.VerdictCited},
			cited:    1, unquoted: 1, points: 1, acceptPoints: 5,
			reason: `1 of 2 claims cited (50.0%); cited without quote (not counted: seed 000 cites with [text](url "quote")): line 1: "บ้านที่ติดตั้งปั๊มความร้อนประหยัดไฟได้ร้อยละ 30 กรมพัฒนาพลังงานทดแทน"`,
		},
		// Correct content that must not be flagged.
		"a quote beside a plain link": {
			md:       "Capacity held at 86 percent [NIST](https://nist.gov/a) [NREL](https://nrel.gov/b \"held at 86 percent\").\n",
			verdicts: []string{eval.VerdictCited},
			cited:    1, points: 5, acceptPoints: 5,
			reason: "the 1 claim is cited",
		},
		"numbered references and footnotes name the sources list": {
			md:       "Capacity held at 86 percent [1].\n\nDefrost took four minutes per hour.[^d]\n\n[^d]: https://ornl.gov/b\n\n## Sources\n\n1. https://nist.gov/a\n",
			verdicts: []string{eval.VerdictCited, eval.VerdictCited},
			cited:    2, points: 5, acceptPoints: 5,
			reason: "all 2 claims are cited",
		},
		"an uncited claim stays uncited either way": {
			md:       "Capacity held at 86 percent in every home tested.\n",
			verdicts: []string{eval.VerdictUncited},
			points:   0, acceptPoints: 0,
			reason: `0 of 1 claim cited (0.0%); uncited: line 1: "Capacity held at 86 percent in every home tested."`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sample := eval.Sample{Answer: tc.md}
			sc, err := Grounding{}.Score(context.Background(), sample)
			require.NoError(t, err)
			var verdicts []string
			for _, c := range sc.Evidence.Claims {
				verdicts = append(verdicts, c.Verdict)
			}
			assert.Equal(t, tc.verdicts, verdicts)
			assert.Equal(t, tc.cited, sc.Evidence.Counts[KeyCitedClaims])
			assert.Equal(t, tc.unquoted, sc.Evidence.Counts[KeyCitedWithoutQuote])
			assert.Equal(t, tc.points, sc.Points)
			assert.Equal(t, tc.reason, sc.Reason)

			lenient, err := Grounding{AcceptUnquoted: true}.Score(context.Background(), sample)
			require.NoError(t, err)
			assert.Equal(t, tc.cited+tc.unquoted, lenient.Evidence.Counts[KeyCitedClaims])
			assert.Equal(t, tc.unquoted, lenient.Evidence.Counts[KeyCitedWithoutQuote], "counted apart either way")
			assert.Equal(t, tc.acceptPoints, lenient.Points)
			if tc.unquoted > 0 {
				assert.Contains(t, lenient.Reason, "cited without quote (counted as cited): line ")
			}
		})
	}
}

// TestTableRowsAndListItemsAreClaims: facts in table rows and list items
// are claims and are counted, and so is a short factual sentence (issue
// 25, item 11); headers, labels and questions are not.
func TestTableRowsAndListItemsAreClaims(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		md     string
		claims []string
		cited  []bool
	}{
		"an English table, a row cited in a cell": {
			md: "| Measure | Value | Source |\n|---|---|---|\n" +
				"| COP at minus 15 degrees | 2.0 | [NREL](https://nrel.gov/a \"a COP of 2.0\") |\n" +
				"| Capacity kept | 86% | |\n",
			claims: []string{"COP at minus 15 degrees | 2.0 | NREL", "Capacity kept | 86% |"},
			cited:  []bool{true, false},
		},
		"a Thai table with a numbered reference": {
			md:     "| รายการ | ค่า |\n|---|---|\n| ค่า COP ที่ลบ 15 องศา | 2.0 [1] |\n| ไฟฟ้าที่ประหยัดได้ | ร้อยละ 30 |\n\n## Sources\n\n1. https://www.dede.go.th/x\n",
			claims: []string{"ค่า COP ที่ลบ 15 องศา | 2.0 [1]", "ไฟฟ้าที่ประหยัดได้ | ร้อยละ 30"},
			cited:  []bool{true, false},
		},
		"short facts in list items": {
			md:     "- Efficiency: 300%\n- COP 2.0\n- Founded 1998\n- Staff: 40\n- Sales fell.\n- Prices doubled!\n- COVID-19 spread.\n",
			claims: []string{"Efficiency: 300%", "COP 2.0", "Founded 1998", "Staff: 40", "Sales fell.", "Prices doubled!", "COVID-19 spread."},
			cited:  []bool{false, false, false, false, false, false, false},
		},
		"Thai list items": {
			md:     "- ข้อดี:\n- ยอดขายลดลงร้อยละ 5\n- ราคาจะขึ้นอีกไหม?\n",
			claims: []string{"ยอดขายลดลงร้อยละ 5"},
			cited:  []bool{false},
		},
		// Correct content that must not be counted.
		"labels, indexes and courtesies are no claims": {
			md:     "- Step 3\n- Table 2\n- Thank you.\n- Fast startup\n- Pros:\n- 86%\n\nYes. In 2020.\n",
			claims: nil,
		},
		"a header row and a label row are no claims": {
			md:     "| Region | Share |\n|---|---|\n| **Cold climates** | |\n| Nordic countries | 60% |\n",
			claims: []string{"Nordic countries | 60%"},
			cited:  []bool{false},
		},
		"a table in the Sources section is no claim, and lists the references": {
			md:     "The homes used 40 percent less energy [1].\n\nDefrost took four minutes [2].\n\n## Sources\n\n| # | Page |\n|---|---|\n| 1 | https://umn.edu/c |\n| [2] | [ORNL](https://ornl.gov/b) |\n",
			claims: []string{"The homes used 40 percent less energy [1].", "Defrost took four minutes [2]."},
			cited:  []bool{true, true},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := ParseReport([]byte(tc.md))
			var claims []string
			var cited []bool
			for _, c := range r.Claims() {
				claims = append(claims, c.Text)
				cited = append(cited, c.Verdict == eval.VerdictCited)
			}
			assert.Equal(t, tc.claims, claims)
			assert.Equal(t, tc.cited, cited)
			g := Grounding{}.score(r)
			assert.Equal(t, float64(len(tc.claims)), g.Evidence.Counts[KeyTotalClaims])
		})
	}
}

// TestTableRowsAreNotProse: clarity reads sentences, not table rows; a
// long row is no long sentence.
func TestTableRowsAreNotProse(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 60)
	r := ParseReport([]byte("Heat pumps kept homes warm all winter.\n\n| Finding | Detail |\n|---|---|\n| Heat | " + long + "|\n"))
	sc := Clarity{}.score(r)
	assert.Equal(t, 1.0, sc.Evidence.Counts["sentences"])
	assert.NotContains(t, strings.Join(sc.Evidence.Issues, "\n"), "over 50 words")
	require.Len(t, r.Claims(), 2, "the row is a claim all the same")
}
