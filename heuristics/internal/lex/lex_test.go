package lex

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/kljensen/snowball/english"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWords(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want []string
	}{
		"decimals, initialisms, hyphens and percents stay whole": {
			"The U.S. rate rose 4.2% in the co-op's trial.", []string{"The", "U.S", "rate", "rose", "4.2%", "in", "the", "co-op's", "trial"}},
		"punctuation alone is no word":    {"-- ... ' %", []string{}},
		"leading and trailing marks trim": {"'quoted' -dash- .dot.", []string{"quoted", "dash", "dot"}},
		"Chinese gives characters and pairs": {
			"热泵性能", []string{"热", "热泵", "泵", "泵性", "性", "性能", "能"}},
		"mixed runs keep their Latin words": {
			"AI模型 2024 test", []string{"AI", "模", "模型", "型", "2024", "test"}},
		// Thai is cut into dictionary words, its vowel and tone marks
		// kept: "heat pump" is pump, -ness, hot.
		"Thai is cut into dictionary words": {"ปั๊มความร้อน", []string{"ปั๊ม", "ความ", "ร้อน"}},
		"Thai beside Latin and digits":      {"ราคาทองคำ 2024 gold", []string{"ราคา", "ทองคำ", "2024", "gold"}},
		// A combining accent stays in its word, read in NFC: the letter
		// and its accent become the one precomposed character.
		"a combining accent stays in its word": {"cafe\u0301 open", []string{"caf\u00e9", "open"}},
		"Vietnamese, two marks on a letter":    {"Ha\u0300 No\u0323\u0302i", []string{"H\u00e0", "N\u1ed9i"}},
		// A number's grouping commas are no break: 1,000 is the word 1000.
		"thousands grouped":         {"1,000 people, 1000 seats", []string{"1000", "people", "1000", "seats"}},
		"millions and decimals":     {"1,234,567.89 baht", []string{"1234567.89", "baht"}},
		"Indian grouping":           {"1,00,000 rupees", []string{"100000", "rupees"}},
		"Thai digits grouped":       {"๑,๕๐๐ บาท", []string{"๑๕๐๐", "บาท"}},
		"a list of numbers stays":   {"1,2,3 and 10,20", []string{"1", "2", "3", "and", "10", "20"}},
		"a decimal comma stays":     {"1,5 kg", []string{"1", "5", "kg"}},
		"groups that break stay":    {"1,000,00 and 1234,567", []string{"1", "000", "00", "and", "1234", "567"}},
		"a comma between sentences": {"in 2019,2020 was", []string{"in", "2019", "2020", "was"}},
		"no-break spaces group":     {"1\u00a0000\u00a0000 habitants", []string{"1000000", "habitants"}},
		"narrow no-break and thin":  {"1\u202f000 et 2\u2009500", []string{"1000", "et", "2500"}},
		"an ordinary space stays":   {"chapter 3 100 pages", []string{"chapter", "3", "100", "pages"}},
		"separators of two kinds":   {"1,000\u00a0000", []string{"1000", "000"}},
		"a percent after a space":   {"50 % et 7\u202f%, 1\u00a0000 %", []string{"50%", "et", "7%", "1000%"}},
		"two spaces keep apart":     {"50  % of", []string{"50", "of"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, Default().Words(tc.in))
		})
	}
}

func TestLowerWordsAndWordCount(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in    string
		lower []string
		count int
	}{
		"English":          {"Heat Pumps WORK", []string{"heat", "pumps", "work"}, 3},
		"Chinese by pairs": {"热泵，性能。", []string{"热", "热泵", "泵", "性", "性能", "能"}, 2},
		"empty":            {"", []string{}, 0},
		"Thai numbers and punctuation": {
			"ค่าไฟ (ราว ๑,๕๐๐ บาท) อัตรา ๒.๒ บาท คืนทุน ๖-๘ ปี",
			[]string{"ค่า", "ไฟ", "ราว", "๑๕๐๐", "บาท", "อัตรา", "๒.๒", "บาท", "คืน", "ทุน", "๖-๘", "ปี"}, 12,
		},
		"the same in Arabic digits": {
			"ค่าไฟ (ราว 1,500 บาท) อัตรา 2.2 บาท คืนทุน 6-8 ปี",
			[]string{"ค่า", "ไฟ", "ราว", "1500", "บาท", "อัตรา", "2.2", "บาท", "คืน", "ทุน", "6-8", "ปี"}, 12,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.lower, Default().LowerWords(tc.in))
			assert.Equal(t, tc.count, Default().WordCount(tc.in))
		})
	}
}

func TestIsStop(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		word          string
		dflt, seed002 bool
	}{
		"a function word is in both lists":          {"the", true, true},
		"a research word is in the default only":    {"overview", true, false},
		"a question word is in both":                {"how", true, true},
		"a content word is in neither":              {"pump", false, false},
		"a gram with a function character":          {"如何", true, false},
		"a gram with hiragana":                      {"のは", true, false},
		"a gram without one":                        {"热泵", false, false},
		"capitalised words are not looked up as is": {"The", false, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.dflt, Default().IsStop(tc.word), "default")
			assert.Equal(t, tc.seed002, Seed002().IsStop(tc.word), "seed 002")
		})
	}
}

// TestStopLists checks the embedded lists' sizes, so that a word lost or
// added in an edit shows.
func TestStopLists(t *testing.T) {
	t.Parallel()
	assert.Len(t, Default().stop, 230) // 147 English, 83 Thai
	assert.Len(t, Seed002().stop, 43)
	assert.NotContains(t, Default().stop, "#", "comment lines are not words")
}

func TestTerms(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want []string
	}{
		"stop words and short words go, once each": {"How do heat pumps perform in cold climates? Heat!", []string{"heat", "pumps", "perform", "cold", "climates"}},
		"a short word with a digit stays":          {"the 5G era", []string{"5g", "era"}},
		"grams without function characters stay":   {"热泵效率如何", []string{"热", "热泵", "泵", "泵效", "效", "效率", "率"}},
		"nothing left":                             {"what is the", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, Default().Terms(tc.in))
		})
	}
}

func TestStemSet(t *testing.T) {
	t.Parallel()
	got := Default().StemSet("Heat pumps performed", "热泵")
	want := map[string]bool{"heat": true, "pumps": true, "pump": true, "performed": true, "perform": true, "热": true, "热泵": true, "泵": true}
	assert.Equal(t, want, got)
}

// TestStemIsSnowball checks memoised stems against the Snowball stemmer,
// asked twice (the second from the memo), and that grams are their own
// stems.
func TestStemIsSnowball(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"running", "Climates", "generously", "the", "heat-pumps", "4.2", "ponies", "ponies"} {
		want := english.Stem(strings.ToLower(w), false)
		assert.Equal(t, want, Default().Stem(w), w)
		assert.Equal(t, want, Default().Stem(w), w+" (memoised)")
	}
	assert.Equal(t, "热泵", Default().Stem("热泵"))
}

// TestStemConcurrent stems the same words from many goroutines (run with
// -race): each gets Snowball's stem.
func TestStemConcurrent(t *testing.T) {
	t.Parallel()
	ws := strings.Fields("heat pumps perform well in cold climates where defrost cycles briefly reduce output and installers report savings")
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(ws))
	for range 8 {
		wg.Go(func() {
			for _, w := range ws {
				if got, want := stem(w), english.Stem(w, false); got != want {
					errs <- fmt.Sprintf("%s: %s, want %s", w, got, want)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestStemMemoIsBoundedAndOwnsItsKeys stems more distinct words than the
// memo holds: it never holds more than maxMemoStems, and its keys are
// copies, not slices of the text they came from (which they would keep
// alive).
func TestStemMemoIsBoundedAndOwnsItsKeys(t *testing.T) {
	// Not parallel: it fills the process-wide memo.
	var b strings.Builder
	for i := range maxMemoStems + 1000 {
		fmt.Fprintf(&b, "word%dx ", i)
	}
	text := b.String()
	start := uintptr(unsafe.Pointer(unsafe.StringData(text)))
	end := start + uintptr(len(text))
	for w := range strings.FieldsSeq(text) {
		stem(w)
	}
	n := 0
	stems.m.Range(func(k, _ any) bool {
		n++
		p := uintptr(unsafe.Pointer(unsafe.StringData(k.(string))))
		require.False(t, p >= start && p < end, "memo key %q points into the text", k)
		return true
	})
	assert.LessOrEqual(t, n, maxMemoStems)
	assert.Positive(t, n)
	assert.Equal(t, "word70000x", stem("word70000x"))
}

// TestHasWordsAndEachWord checks that eachWord gives what Words returns,
// stopping when asked, and HasWords counts as Words does.
func TestHasWordsAndEachWord(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in string
		n  int // len(Words(in))
	}{
		"English":               {"The U.S. rate rose 4.2% in the co-op's trial.", 9},
		"Chinese grams":         {"热泵性能 AI", 8},
		"punctuation only":      {"-- ... %", 0},
		"empty":                 {"", 0},
		"one word among commas": {", , word , ,", 1},
	}
	l := Default()
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var seq []string
			eachWord(tc.in, func(w string) bool {
				seq = append(seq, w)
				return true
			})
			require.Len(t, l.Words(tc.in), tc.n)
			if tc.n > 0 {
				assert.Equal(t, l.Words(tc.in), seq)
			}
			for n := 0; n <= tc.n+1; n++ {
				assert.Equal(t, n <= tc.n, l.HasWords(tc.in, n), "at least %d", n)
			}
			stopped := 0
			eachWord(tc.in, func(string) bool {
				stopped++
				return false
			})
			assert.Equal(t, min(tc.n, 1), stopped)
		})
	}
}

// FuzzWords checks that eachWord (and so HasWords, Terms and StemSet)
// splits any text, invalid UTF-8 included, as Words does.
func FuzzWords(f *testing.F) {
	for _, s := range []string{"", "The U.S. rate rose 4.2%.", "热泵，性能。AI模型2024", "ปั๊มความร้อน", "co-op's -x- 'y'", "a\xffb\xc3", "。。", "日本語のテキストです", "1,000 and 1,00,000.5, 1,2 ๑,๕๐๐"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := Default().Words(s)
		got := []string{}
		eachWord(s, func(w string) bool {
			got = append(got, w)
			return true
		})
		assert.Equal(t, want, got)
		for n := range len(want) + 2 {
			assert.Equal(t, n <= len(want), Default().HasWords(s, n))
		}
	})
}

func TestInquiry(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"uncovered": true, "Knows": true, "revealing": true, "happened": true,
		"findings": true, "glacier": false, "protocol": false, "temperature": false,
	}
	for w, want := range tests {
		assert.Equal(t, want, Inquiry(w), w)
	}
}
