package daily

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestInvisibleCharactersBetweenThaiWords: Thai text often carries
// zero-width spaces (and, pasted from the web, word joiners, soft hyphens
// and byte order marks) between its words. They show nothing, so the
// report reads as the same report: every term, number and percentile is
// found as in the clean text.
func TestInvisibleCharactersBetweenThaiWords(t *testing.T) {
	t.Parallel()
	tr, tel := load(t)
	clean := report(t, "th-faithful.md")
	tests := map[string]string{
		"zero-width space":      "\u200b",
		"word joiner":           "\u2060",
		"zero-width no-break":   "\ufeff",
		"soft hyphen":           "\u00ad",
		"zero-width non-joiner": "\u200c",
		"zero-width joiner":     "\u200d",
	}
	for name, mark := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Between the words of the terms the matcher reads, and inside
			// a number.
			text := strings.NewReplacer(
				"ความไม่แน่นอน", "ความ"+mark+"ไม่"+mark+"แน่นอน",
				"เปอร์เซ็นไทล์", "เปอร์เซ็น"+mark+"ไทล์",
				"ปริมาณการซื้อขาย", "ปริมาณ"+mark+"การ"+mark+"ซื้อขาย",
				"56.6", "56."+mark+"6",
			).Replace(clean)
			assert.NotEqual(t, clean, text)
			want := Default().Score(clean, tr, tel)
			got := Default().Score(text, tr, tel)
			assert.Equal(t, want.Faithfulness.VerifiedClaims, got.Faithfulness.VerifiedClaims)
			assert.Empty(t, got.Faithfulness.Violations)
			assert.Empty(t, got.Completeness.MissingElements)
			assert.Empty(t, got.Reasoning.Issues)
			assert.Empty(t, got.Compliance.Violations)
			assert.InDelta(t, 100, got.OverallQuality, 1e-9)
		})
	}
}

// TestTheDateInAnyOfItsForms: a report gives its date as its writers
// write it: the Thai year in the Buddhist era (2568 is 2025), Thai
// digits, the month by its Thai or English name, in full or short, the
// day before or after the month; each is the truth's date as much as
// the ISO form. Another day, or a year off by the era's 543, is not.
func TestTheDateInAnyOfItsForms(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text string
		want bool
	}{
		"iso, common era":               {"รายงานวันที่ 2025-11-01", true},
		"iso, Buddhist era":             {"รายงานวันที่ 2568-11-01", true},
		"day first, Buddhist era":       {"ณ วันที่ 1/11/2568 ราคาปิด", true},
		"Thai month in full":            {"ณ วันที่ 1 พฤศจิกายน 2568", true},
		"Thai month short, era named":   {"ณ วันที่ ๑ พ.ย. พ.ศ. ๒๕๖๘", true},
		"Thai digits, no spaces":        {"ณวันที่๑พฤศจิกายน๒๕๖๘ราคาปิด", true},
		"English, day first":            {"As of 1 November 2025, the stock", true},
		"English, month first":          {"As of Nov 1, 2025 the stock", true},
		"English, month first, numeric": {"As of 11/01/2025 the stock", true},
		"another day":                   {"ณ วันที่ 2 พฤศจิกายน 2568", false},
		"the era's years confused":      {"ณ วันที่ 1 พฤศจิกายน 2025", true},
		"the year 543 off":              {"ณ วันที่ 1 พฤศจิกายน 2611", false},
		"no date":                       {"ราคาปิดที่ 202.49 บาท", false},
		"a number that is no date":      {"ราคา 1.11 บาท ปริมาณ 2568 หุ้น", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, mentionsDate(lowerASCII(tc.text), "2025-11-01"))
		})
	}
}

// TestTimeframeFromABuddhistEraDate: a Thai report that says its date
// only in the Buddhist era, with no word such as วันนี้ (today), is aware
// of its timeframe as the same report with the ISO date is.
func TestTimeframeFromABuddhistEraDate(t *testing.T) {
	t.Parallel()
	tr, _ := load(t)
	clean := report(t, "th-faithful.md")
	for _, w := range []string{"วันนี้", "ล่าสุด", "สัปดาห์นี้"} {
		clean = strings.ReplaceAll(clean, w, "")
	}
	tests := map[string]struct {
		date string
		want float64 // temporal_completeness
	}{
		"iso":                {"2025-11-01", 100},
		"Buddhist era, iso":  {"2568-11-01", 100},
		"Thai month in full": {"1 พฤศจิกายน 2568", 100},
		"Thai digits, short": {"๑ พ.ย. ๒๕๖๘", 100},
		"no date at all":     {"", 75},
		"the day before":     {"31 ตุลาคม 2568", 75},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			text := strings.Replace(clean, "2025-11-01", tc.date, 1)
			got := Default().Score(text, tr, nil)
			v, ok := got.Completeness.DimensionScores.Get("temporal_completeness")
			assert.True(t, ok)
			assert.InDelta(t, tc.want, v, 1e-9)
		})
	}
}

// TestThaiAsTypedReadsAsThai: Thai typed in another order of the same
// marks (sara ae as two sara e, sara am as nikhahit and sara aa, a tone
// mark before its vowel) shows the same, and is the same report to the
// scorers as the report in the usual order.
func TestThaiAsTypedReadsAsThai(t *testing.T) {
	t.Parallel()
	tr, tel := load(t)
	clean := report(t, "th-faithful.md")
	toneFirst := regexp.MustCompile(`([\x{0e31}\x{0e34}-\x{0e37}])([\x{0e48}-\x{0e4b}])`)
	tests := map[string]func(string) string{
		"sara ae as two sara e":           strings.NewReplacer("แ", "เเ").Replace,
		"sara am as nikhahit and sara aa": strings.NewReplacer("ำ", "\u0e4d\u0e32").Replace,
		"tone marks before their vowels": func(s string) string {
			return toneFirst.ReplaceAllString(s, "$2$1")
		},
	}
	for name, r := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			text := r(clean)
			assert.NotEqual(t, clean, text)
			want := Default().Score(clean, tr, tel)
			got := Default().Score(text, tr, tel)
			assert.Equal(t, want.Faithfulness.VerifiedClaims, got.Faithfulness.VerifiedClaims)
			assert.Empty(t, got.Faithfulness.Violations)
			assert.Empty(t, got.Completeness.MissingElements)
			assert.Empty(t, got.Compliance.Violations)
			assert.InDelta(t, 100, got.OverallQuality, 1e-9)
		})
	}
}

// TestThaiAbbreviationsEndNoSentence: Thai ends a sentence with a space,
// never a period; the periods of its abbreviations (พ.ศ., the Buddhist
// era; พ.ย., November; กทม., Bangkok) and the space before one end
// none. A long Thai word before a period, or a space between two Thai
// words, still ends one.
func TestThaiAbbreviationsEndNoSentence(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text string
		want int
	}{
		"the Buddhist era named":      {"ความเสี่ยงหลักในปี พ.ศ. 2568 คือความไม่แน่นอน 56.6 ที่อยู่ในระดับสูง", 1},
		"a date with a short month":   {"ราคาปิดที่ 202.49 บาท (1 พ.ย. 2568) และความไม่แน่นอน 56.6 อยู่ในระดับสูง", 1},
		"a month of two letters":      {"ข้อมูล ณ วันที่ 1 มี.ค. 2568 ราคาปิดที่ 202.49 บาท", 1},
		"Bangkok abbreviated":         {"ธนาคารใน กทม. ยังมีแรงซื้อต่อเนื่อง", 1},
		"Thai digits in the year":     {"ในปี พ.ศ. ๒๕๖๘ ราคาขึ้นต่อเนื่อง", 1},
		"the repetition mark spaced":  {"ปัจจัยต่าง ๆ ยังหนุนราคา", 1},
		"at, spaced":                  {"ราคาปิด ณ สิ้นวัน 202.49 บาท", 1},
		"two sentences, a space":      {"ราคาขึ้นต่อเนื่อง แนะนำถือต่อ", 2},
		"a long word before a period": {"ราคาขึ้นต่อเนื่อง. แนะนำถือต่อ", 2},
		"English keeps its periods":   {"The price closed at 202.49 baht. Uncertainty is 56.6.", 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Len(t, Default().parse(tc.text).sentences, tc.want)
		})
	}
}

// TestABuddhistEraDateKeepsTheStoryShort: the story section with its date
// in the Buddhist era is as many sentences as without it.
func TestABuddhistEraDateKeepsTheStoryShort(t *testing.T) {
	t.Parallel()
	tr, tel := load(t)
	clean := report(t, "th-faithful.md")
	tests := map[string]string{
		"a short month": "ราคา 202.49 บาท (1 พ.ย. 2568)",
		"the era named": "ราคา 202.49 บาท ณ ปี พ.ศ. 2568",
		"a full month":  "ราคา 202.49 บาท (1 พฤศจิกายน 2568)",
	}
	for name, with := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Default().Score(strings.Replace(clean, "ราคา 202.49 บาท", with, 1), tr, tel)
			assert.Empty(t, got.Compliance.Violations)
			assert.InDelta(t, 100, got.Compliance.OverallScore, 1e-9)
		})
	}
}
