package judges

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/prompts"
)

// TestCheckerChunks: contexts are packed in order into chunks of at most
// the budget; a context too long for one is split at sentences, then
// words, then runes, losing no text; each chunk says which contexts it
// holds.
func TestCheckerChunks(t *testing.T) {
	runes := func(s string) int { return utf8.RuneCountInString(s) }
	wordsOf := func(s string) int { return len(strings.Fields(s)) }
	thai := "ตลาดหุ้นไทยปิดบวกเล็กน้อย นักลงทุนต่างชาติซื้อสุทธิ ดัชนีปิดที่ระดับหนึ่งพันสามร้อยห้าสิบจุด"
	tests := []struct {
		name     string
		texts    []string
		budget   int
		count    func(string) int
		want     []string
		passages [][]int
	}{
		{
			name:  "short contexts share a chunk",
			texts: []string{"Rain fell all day.", "The river rose a metre."}, budget: 20, count: wordsOf,
			want: []string{"Rain fell all day.\n\nThe river rose a metre."}, passages: [][]int{{0, 1}},
		},
		{
			name:  "a context per chunk when two do not fit",
			texts: []string{"Rain fell all day.", "", "The river rose a metre."}, budget: 6, count: wordsOf,
			want: []string{"Rain fell all day.", "The river rose a metre."}, passages: [][]int{{0}, {2}},
		},
		{
			name:  "a long context split at its sentences",
			texts: []string{"The dam was built in 1960. It holds a lake of ten square kilometres. Boats are not allowed."}, budget: 9, count: wordsOf,
			want: []string{"The dam was built in 1960.", "It holds a lake of ten square kilometres.", "Boats are not allowed."}, passages: [][]int{{0}, {0}, {0}},
		},
		{
			name:  "a sentence longer than a chunk split at its words",
			texts: []string{"one two three four five six seven"}, budget: 3, count: wordsOf,
			want: []string{"one two three", "four five six", "seven"}, passages: [][]int{{0}, {0}, {0}},
		},
		{
			name:  "Thai, no sentence marks, split where it fits",
			texts: []string{thai}, budget: 30, count: runes,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ps []prompts.Passage
			for _, x := range tt.texts {
				ps = append(ps, prompts.Passage{Text: x})
			}
			fc := &FactChecker{ChunkTokens: tt.budget, Count: tt.count}
			cs := fc.chunks(ps)
			var got []string
			var passages [][]int
			for _, c := range cs {
				assert.LessOrEqual(t, tt.count(c.text), tt.budget, "chunk %q", c.text)
				got = append(got, c.text)
				passages = append(passages, c.passages)
			}
			if tt.want != nil {
				assert.Equal(t, tt.want, got)
				assert.Equal(t, tt.passages, passages)
				return
			}
			require.Greater(t, len(cs), 1)
			// No text lost: the chunks hold every non-space rune, in order.
			strip := func(s string) string { return strings.Join(strings.Fields(s), "") }
			assert.Equal(t, strip(strings.Join(tt.texts, "")), strip(strings.Join(got, "")))
		})
	}
}

// TestCheckChunkTokens: 0 is the default; a chunk too small to hold a
// sentence is refused, naming the flag.
func TestCheckChunkTokens(t *testing.T) {
	assert.NoError(t, CheckChunkTokens(0))
	assert.NoError(t, CheckChunkTokens(minChunkTokens))
	assert.NoError(t, CheckChunkTokens(32000))
	err := CheckChunkTokens(5)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--checker-chunk 5")
}
