package thai

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDictionaryLoads(t *testing.T) {
	t.Parallel()
	d, err := readDictionary(wordsGz)
	require.NoError(t, err)
	assert.Len(t, d.words, 26383)
	for _, w := range []string{"กาแฟ", "รสชาติ", "สรุป", "อ้างอิง", "ปั๊ม", "ความ", "ร้อน"} {
		assert.True(t, Known(w), w)
	}
}

func TestSegment(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want []string
	}{
		"dictionary words":                       {"กาแฟคั่วอ่อนมีรสเปรี้ยว", []string{"กาแฟ", "คั่ว", "อ่อน", "มี", "รส", "เปรี้ยว"}},
		"compound word kept whole":               {"รสชาติของชาเขียว", []string{"รสชาติ", "ของ", "ชา", "เขียว"}},
		"mixed scripts and digits":               {"หุ้นABCปิดที่18.95บาท", []string{"หุ้น", "ABC", "ปิด", "ที่", "18.95", "บาท"}},
		"spaces stay their own pieces":           {"ราคา ทอง", []string{"ราคา", " ", "ทอง"}},
		"Thai digits are a number":               {"อัตรา๒.๒บาท ๖-๘ปี ๓,๑๘๐", []string{"อัตรา", "๒.๒", "บาท", " ๖-๘", "ปี", " ๓,๑๘๐"}},
		"the baht sign with its number":          {"ราคา฿1,500", []string{"ราคา", "฿1,500"}},
		"unknown run stays together":             {"ฎฎฎกาแฟ", []string{"ฎฎฎ", "กาแฟ"}},
		"a silenced consonant ends its syllable": {"โซลาร์ฟาร์มพันธุ์ข้าว", []string{"โซ", "ลาร์", "ฟาร์ม", "พันธุ์", "ข้าว"}},
		"empty":                                  {"", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Segment(tc.in)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.in, strings.Join(got, ""))
		})
	}
}

// FuzzSegment: any text comes back whole, cut into non-empty pieces, none
// starting with a mark written after its consonant when a cut was free.
func FuzzSegment(f *testing.F) {
	for _, s := range []string{"กาแฟคั่วอ่อน", "เเเ", "ั้ิ", "ก\u0e31\u0e49x", "\xff\xfeก", "ไทย 123 ไทย"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Segment(s)
		if strings.Join(got, "") != s {
			t.Fatalf("Segment(%q) = %q: pieces do not join to the input", s, got)
		}
		for _, w := range got {
			if w == "" {
				t.Fatalf("Segment(%q) has an empty piece", s)
			}
		}
	})
}
