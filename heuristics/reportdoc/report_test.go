package reportdoc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assaylabs/assay/eval"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseClaims(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		md     string
		claims []string // claim texts, in order
		cited  []bool
	}{
		"seed format with quote containing quotes and URL with parentheses": {
			md:     "Rates rose by 4.2 points in the U.S. economy last year [BLS](https://bls.gov/a_(b) \"a \\\"quoted\\\" title\").\n",
			claims: []string{"Rates rose by 4.2 points in the U.S. economy last year BLS."},
			cited:  []bool{true},
		},
		"abbreviations and decimals do not split": {
			md:     "Dr. Smith et al. measured C37.118 frames at 4.2 ms in Fig. 3 of the study [x](https://a.gov/x).\n",
			claims: []string{"Dr. Smith et al. measured C37.118 frames at 4.2 ms in Fig. 3 of the study x."},
			cited:  []bool{true},
		},
		"a detached stop splits lower-cased text": {
			md:     "rates rose last year . the plan passed in may .\n",
			claims: []string{"rates rose last year .", "the plan passed in may ."},
			cited:  []bool{false, false},
		},
		"a detached stop inside link text does not split": {
			md:     "Rates rose as [the bank . the fund](https://a.gov/x) reported.\n",
			claims: []string{"Rates rose as the bank . the fund reported."},
			cited:  []bool{true},
		},
		"initialism before a sentence opener splits": {
			md:     "The budget was set in the U.S. The plan passed in May.\n",
			claims: []string{"The budget was set in the U.S.", "The plan passed in May."},
			cited:  []bool{false, false},
		},
		"single-letter link text ends a sentence": {
			md:     "Prices are listed in appendix [b](https://a.gov/b). Prices rose again in May [c](https://b.edu/c).\n",
			claims: []string{"Prices are listed in appendix b.", "Prices rose again in May c."},
			cited:  []bool{true, true},
		},
		"marker after the full stop belongs to the sentence before": {
			md:     "The first claim is here.[1] The second claim is here. [2]\n\n## Sources\n\n1. https://a.gov/1\n2. https://b.edu/2\n",
			claims: []string{"The first claim is here.[1]", "The second claim is here."},
			cited:  []bool{true, true},
		},
		"footnotes resolve": {
			md:     "Water boils at 100 degrees at sea level.[^w]\n\n[^w]: https://nist.gov/water\n",
			claims: []string{"Water boils at 100 degrees at sea level.[^w]"},
			cited:  []bool{true},
		},
		"dangling numbered reference does not count": {
			md:     "The third claim cites nothing real [7].\n\n## References\n\n1. https://a.gov/1\n",
			claims: []string{"The third claim cites nothing real [7]."},
			cited:  []bool{false},
		},
		// Table rows are claims (TestTableRowsAndListItemsAreClaims).
		"headings, code, quotes and sources are not claims": {
			md: "# A heading with many words here\n\n> A block quote with several words.\n\n```\ncode with several words here.\n```\n\n" +
				"## Sources\n\n- A source entry with words https://a.gov\n\n| a | b |\n|---|---|\n| one two three | https://b.gov |\n",
			claims: nil,
		},
		"questions, labels, short and meta sentences are not claims": {
			md:     "Why does it matter? Yes. This report compares two protocols.\n\nThe key points are these:\n",
			claims: nil,
		},
		"code span with a full stop does not split": {
			md:     "- The flag `--dry-run. Here` prints the plan first.\n",
			claims: []string{"The flag `--dry-run. Here` prints the plan first."},
			cited:  []bool{false},
		},
		"a link standing alone after the sentence cites it": {
			md:     "Uncited looking statement stands here. [Source](https://x.org/y)\n",
			claims: []string{"Uncited looking statement stands here."},
			cited:  []bool{true},
		},
		"relative links are not citations": {
			md:     "See the section on [setup](#setup) for more words.\n",
			claims: []string{"See the section on setup for more words."},
			cited:  []bool{false},
		},
		"link reference definitions resolve numbered refs": {
			md:     "The protocol was standardised in 2022 [1].\n\n[1]: https://www.rfc-editor.org/rfc/rfc9114\n",
			claims: []string{"The protocol was standardised in 2022 1."},
			cited:  []bool{true},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := Parse([]byte(tc.md))
			claims := r.Claims()
			var texts []string
			var cited []bool
			for _, c := range claims {
				texts = append(texts, c.Text)
				cited = append(cited, c.Verdict != "uncited") // with its quote or without

			}
			assert.Equal(t, tc.claims, texts)
			if tc.claims != nil {
				assert.Equal(t, tc.cited, cited)
			}
		})
	}
}

func TestParseLinesAndDangling(t *testing.T) {
	t.Parallel()
	r := Parse([]byte("# T\n\nFirst claim has words.\nSecond claim has words [9].\n"))
	claims := r.Claims()
	require.Len(t, claims, 2)
	assert.Equal(t, 3, claims[0].Line)
	assert.Equal(t, 4, claims[1].Line)
	assert.Equal(t, []string{"[9]"}, r.Dangling)
	assert.Equal(t, "T", r.Title)
}

// TestGroupedNumberedReferences: a marker naming several entries ("[2,
// 3]", "[1-3]") cites each entry it names, as "[2][3]" would; numbers with
// no entry are dangling.
func TestGroupedNumberedReferences(t *testing.T) {
	t.Parallel()
	const sources = "\n\n## References\n\n1. https://a.gov/1\n2. https://b.edu/2\n3. https://c.org/3\n"
	tests := map[string]struct {
		md       string
		refs     [][]string // per claim, the entries cited
		dangling []string
	}{
		"comma list": {
			md:   "Snow cover cuts winter yield sharply [2, 3]." + sources,
			refs: [][]string{{"2", "3"}},
		},
		"semicolon list and a range": {
			md:   "Snow cover cuts winter yield sharply [1; 3]. Bifacial modules recover part of it [1-3]." + sources,
			refs: [][]string{{"1", "3"}, {"1", "2", "3"}},
		},
		"en dash range and a single number, after the full stop": {
			md:   "Snow cover cuts winter yield sharply.[2–3, 1] Next sentence has words." + sources,
			refs: [][]string{{"2", "3", "1"}, nil},
		},
		"one number of the group has no entry": {
			md:       "Snow cover cuts winter yield sharply [2, 9]." + sources,
			refs:     [][]string{{"2"}},
			dangling: []string{"[9]"},
		},
		"no number of the group has an entry": {
			md:       "Snow cover cuts winter yield sharply [7, 9]." + sources,
			refs:     [][]string{nil},
			dangling: []string{"[7, 9]"},
		},
		"a backwards or huge range is not a citation": {
			md:   "Snow cover cuts winter yield sharply [3-1]. Output rose in every year [1-9999]." + sources,
			refs: [][]string{nil, nil},
		},
		"inside a code span it is code": {
			md:   "Index the array as `a[1, 2]` in the program text." + sources,
			refs: [][]string{nil},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := Parse([]byte(tc.md))
			var refs [][]string
			for _, c := range r.Claims() {
				var got []string
				for _, ci := range c.Citations {
					got = append(got, ci.Ref)
				}
				refs = append(refs, got)
			}
			assert.Equal(t, tc.refs, refs)
			assert.Equal(t, tc.dangling, r.Dangling)
		})
	}
}

// TestMarkerAfterFullStopEndsSentence: a citation marker written after a
// sentence's full stop closes that sentence whatever its label ("[^w]"
// holds a lower-case letter, where the Unicode rules see no sentence
// start), so an uncited sentence after it is a claim of its own.
func TestMarkerAfterFullStopEndsSentence(t *testing.T) {
	t.Parallel()
	const defs = "\n\n[^w]: https://a.gov/w\n[^note]: https://b.gov/n\n[^1]: https://c.gov/1\n"
	tests := map[string]struct {
		md     string
		claims []string
		cited  []bool
	}{
		"letter footnote against the full stop": {
			md:     "Water boils at 100 degrees at sea level.[^w] Ice melts at zero degrees here." + defs,
			claims: []string{"Water boils at 100 degrees at sea level.[^w]", "Ice melts at zero degrees here."},
			cited:  []bool{true, false},
		},
		"letter footnote after a space": {
			md:     "Water boils at 100 degrees at sea level. [^note] Ice melts at zero degrees here." + defs,
			claims: []string{"Water boils at 100 degrees at sea level. [^note]", "Ice melts at zero degrees here."},
			cited:  []bool{true, false},
		},
		"two footnotes in a row": {
			md:     "Water boils at 100 degrees at sea level.[^w][^note] Ice melts at zero degrees here.[^1]" + defs,
			claims: []string{"Water boils at 100 degrees at sea level.[^w][^note]", "Ice melts at zero degrees here.[^1]"},
			cited:  []bool{true, true},
		},
		"a footnote without a URL": {
			md:     "Water boils at 100 degrees at sea level.[^s] Ice melts at zero degrees here.\n\n[^s]: Smith, Physics of Water, 2020.\n",
			claims: []string{"Water boils at 100 degrees at sea level.[^s]", "Ice melts at zero degrees here."},
			cited:  []bool{true, false},
		},
		"lower case after the marker continues the sentence": {
			md:     "It holds in the U.S.[^w] and in Canada too." + defs,
			claims: []string{"It holds in the U.S.[^w] and in Canada too."},
			cited:  []bool{true},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var texts []string
			var cited []bool
			for _, c := range Parse([]byte(tc.md)).Claims() {
				texts = append(texts, c.Text)
				cited = append(cited, c.Verdict != "uncited")
			}
			assert.Equal(t, tc.claims, texts)
			assert.Equal(t, tc.cited, cited)
		})
	}
}

// TestLinkToNoHostCitesNothing: a link citation whose URL names no host or
// does not parse points at no source, so its claim is uncited (the
// diversity scorer lists such URLs as not usable).
func TestLinkToNoHostCitesNothing(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		md      string
		verdict string
	}{
		"a host":                 {"Hail falls in summer storms [x](https://a.gov/hail \"q\").\n", eval.VerdictCited},
		"a host with a port":     {"Hail falls in summer storms [x](https://a.gov:8443/hail \"q\").\n", eval.VerdictCited},
		"an IP address":          {"Hail falls in summer storms [x](http://192.0.2.7/hail \"q\").\n", eval.VerdictCited},
		"no host":                {"Hail falls in summer storms [x](https:///hail \"q\").\n", eval.VerdictUncited},
		"only dots for a host":   {"Hail falls in summer storms [x](https://.../hail \"q\").\n", eval.VerdictUncited},
		"no host, without quote": {"Hail falls in summer storms [x](https:///hail).\n", eval.VerdictUncited},
		"a port but no host":     {"Hail falls in summer storms <https://:80/hail>.\n", eval.VerdictUncited},
		"a bad escape":           {"Hail falls in summer storms [x](https://a.gov/%zz \"q\").\n", eval.VerdictUncited},
		"a control character":    {"Hail falls in summer storms [x](https://a.gov/\x1b[2J \"q\").\n", eval.VerdictUncited},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			claims := Parse([]byte(tc.md)).Claims()
			require.Len(t, claims, 1)
			assert.Equal(t, tc.verdict, claims[0].Verdict)
		})
	}
}

// TestBulletedSourcesNumbered: a bulleted Sources list whose items open
// with a number ("- 3. url", "- (3) url") names references by those
// numbers, as an ordered list or "- [3] url" does.
func TestBulletedSourcesNumbered(t *testing.T) {
	t.Parallel()
	const body = "# T\n\nAlpha claim is stated here [3]. Beta claim is stated here [4].\n\n## Sources\n\n"
	tests := map[string]struct {
		sources string
		urls    []string
	}{
		"ordered list from 3":      {"3. https://a.gov/3\n4. https://b.gov/4\n", []string{"https://a.gov/3", "https://b.gov/4"}},
		"bullets with [N]":         {"- [3] https://a.gov/3\n- [4] https://b.gov/4\n", []string{"https://a.gov/3", "https://b.gov/4"}},
		"bullets with N.":          {"- 3. https://a.gov/3\n- 4. https://b.gov/4\n", []string{"https://a.gov/3", "https://b.gov/4"}},
		"bullets with N)":          {"* 3) https://a.gov/3\n* 4) https://b.gov/4\n", []string{"https://a.gov/3", "https://b.gov/4"}},
		"bullets with (N)":         {"- (3) Smith. https://a.gov/3\n- (4) Lee. https://b.gov/4\n", []string{"https://a.gov/3", "https://b.gov/4"}},
		"a year is no number":      {"- 2020 Smith. https://a.gov/3\n- 2021 Lee. https://b.gov/4\n", []string{"", ""}},
		"bullets without a number": {"- https://a.gov/3\n- https://b.gov/4\n", []string{"", ""}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var urls []string
			for _, c := range Parse([]byte(body + tc.sources)).Claims() {
				u := ""
				if len(c.Citations) > 0 {
					u = c.Citations[0].URL
				}
				urls = append(urls, u)
			}
			assert.Equal(t, tc.urls, urls)
		})
	}
}

// TestBoldParagraphAsHeading: a paragraph of the document that is only a
// few words of bold text stands as a heading, as reports written by models
// often use one: "**Sources**" opens the Sources section whose entries
// resolve numbered references. A bold sentence, bold text inside a list or
// bold words inside prose stay prose.
func TestBoldParagraphAsHeading(t *testing.T) {
	t.Parallel()
	const refs = "1. https://a.gov/1\n2. https://b.edu/2\n"
	tests := map[string]struct {
		md         string
		sections   []string
		claims     []string
		cited      []bool
		hasHeading bool // a Markdown heading, not a bold paragraph
	}{
		"bold headings and a bold Sources": {
			md:       "**Executive Summary**\n\nHeat pumps work in cold weather [1].\n\n**Sources:**\n\n" + refs,
			sections: []string{"Executive Summary", "Sources"},
			claims:   []string{"Heat pumps work in cold weather [1]."},
			cited:    []bool{true},
		},
		"a bold label inside Sources does not end it": {
			md:         "## Findings\n\nHeat pumps work in cold weather [2].\n\n## Sources\n\n**Government**\n\n" + refs,
			sections:   []string{"Findings", "Sources", "Government"},
			claims:     []string{"Heat pumps work in cold weather [2]."},
			cited:      []bool{true},
			hasHeading: true,
		},
		"a bold sentence is a claim": {
			md:       "**Heat pumps cut bills by a third.**\n",
			sections: nil,
			claims:   []string{"Heat pumps cut bills by a third."},
			cited:    []bool{false},
		},
		"bold words inside prose": {
			md:       "**Heat pumps** cut bills by a third in Norway.\n",
			sections: nil,
			claims:   []string{"Heat pumps cut bills by a third in Norway."},
			cited:    []bool{false},
		},
		"a long bold paragraph": {
			md:       "**Heat pumps cut household heating bills by about a third in Norway and Sweden**\n",
			sections: nil,
			claims:   []string{"Heat pumps cut household heating bills by about a third in Norway and Sweden"},
			cited:    []bool{false},
		},
		"bold in a list item": {
			md:       "- **Sources**\n- Heat pumps work in cold weather here.\n",
			sections: nil,
			claims:   []string{"Heat pumps work in cold weather here."},
			cited:    []bool{false},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := Parse([]byte(tc.md))
			var sections []string
			for _, s := range r.Sections {
				sections = append(sections, s.Title)
			}
			var texts []string
			var cited []bool
			for _, c := range r.Claims() {
				texts = append(texts, c.Text)
				cited = append(cited, c.Verdict != "uncited")
			}
			assert.Equal(t, tc.sections, sections)
			assert.Equal(t, tc.claims, texts)
			assert.Equal(t, tc.cited, cited)
			assert.Equal(t, tc.hasHeading, r.HasHeading())
		})
	}
}

// TestSourcesHeadingsInOtherWords: a heading made of a word naming sources
// and words that may stand beside one ("Sources & References") opens the
// Sources section; a heading about a topic that has "sources" in it does
// not.
func TestSourcesHeadingsInOtherWords(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"Sources":                           true,
		"Sources & References":              true,
		"References and Sources":            true,
		"6. References and Further Reading": true,
		"Notes and References":              true,
		"List of Sources":                   true,
		"Sources Cited":                     true,
		"Reference":                         true,
		"Sources of heat loss":              false,
		"Source code":                       false,
		"Notes":                             false,
		"Key Findings":                      false,
	}
	for heading, want := range tests {
		t.Run(heading, func(t *testing.T) {
			t.Parallel()
			r := Parse([]byte("# T\n\nAlpha claim is stated here [1].\n\n## " + heading + "\n\n1. https://a.gov/1\n"))
			claims := r.Claims()
			require.NotEmpty(t, claims)
			assert.Equal(t, want, claims[0].Verdict == "cited")
			assert.Equal(t, want, r.Sections[len(r.Sections)-1].Sources)
		})
	}
}

// TestGroupedReferencesCostTheirEntries: group markers give a sentence
// each entry they name once, so a run of thousands of "[1-50]" markers
// yields 50 citations, not 50 per marker.
func TestGroupedReferencesCostTheirEntries(t *testing.T) {
	t.Parallel()
	var sources strings.Builder
	sources.WriteString("\n\n## Sources\n\n")
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&sources, "%d. https://a%d.gov/x\n", i, i)
	}
	tests := map[string]struct {
		md   string
		refs int
	}{
		"one range":               {"Output rose in every year [1-50]." + sources.String(), 50},
		"the range repeated":      {"Output rose in every year " + strings.Repeat("[1-50]", 5000) + "." + sources.String(), 50},
		"ranges with words apart": {"Output rose in every year " + strings.Repeat("and [1-50] ", 2000) + "today." + sources.String(), 50},
		"overlapping groups":      {"Output rose in every year [1, 2] and [2-4]." + sources.String(), 4},
		"single markers repeated": {"Output rose in every year [1][1]." + sources.String(), 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			claims := Parse([]byte(tc.md)).Claims()
			require.Len(t, claims, 1)
			assert.Len(t, claims[0].Citations, tc.refs)
		})
	}
}
