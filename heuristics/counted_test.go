package heuristics

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCountedThings(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want []Counted
	}{
		"English, the word after": {
			in:   "I have 2 children and 21°C",
			want: []Counted{{"2 children", "2", "children"}, {"21°C", "21", "°c"}},
		},
		"Thai, the noun and its classifier": {
			in:   "ฉันมีลูก 2 คน อยากไปเที่ยว",
			want: []Counted{{"ลูก 2 คน", "2", "ลูก คน"}},
		},
		"Thai digits, no spaces, text after the classifier": {
			in:   "สำหรับลูก๓คนของคุณ",
			want: []Counted{{"ลูก๓คน", "3", "ลูก คน"}},
		},
		"a Thai classifier after a Latin word": {
			in:   "ซื้อ iPhone 2 เครื่อง",
			want: []Counted{{"2 เครื่อง", "2", "เครื่อง"}},
		},
		"one number however written": {
			in: "1,500 dollars, 1500.0 dollars, ๑,๕๐๐ บาท, 02 kids, 0.50 kg, 1,5 kg, 1,234,567 baht",
			want: []Counted{{"1,500 dollars", "1500", "dollars"}, {"1500.0 dollars", "1500", "dollars"},
				{"๑,๕๐๐ บาท", "1500", "บาท"}, {"02 kids", "2", "kids"}, {"0.50 kg", "0.5", "kg"},
				{"1,5 kg", "1.5", "kg"}, {"1,234,567 baht", "1234567", "baht"}},
		},
		"a number inside a word is none": {
			in:   "print on A4 paper, release 1.5.2 notes",
			want: nil,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, CountedThings(tc.in))
		})
	}
}
