package jsstr

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsSpaceMatchesSpaceClass(t *testing.T) {
	t.Parallel()
	class := regexp.MustCompile(`^[` + SpaceClass + `]$`)
	tests := map[string]struct {
		r    rune
		want bool
	}{
		"space":                         {' ', true},
		"tab":                           {'\t', true},
		"no-break space":                {0xA0, true},
		"en quad starts the range":      {0x2000, true},
		"hair space ends the range":     {0x200A, true},
		"zero width space is not":       {0x200B, false},
		"ideographic space":             {0x3000, true},
		"byte order mark is JS space":   {0xFEFF, true},
		"next line is not (unlike Go)":  {0x85, false},
		"a letter is not":               {'a', false},
		"line separator":                {0x2028, true},
		"narrow no-break space":         {0x202F, true},
		"medium mathematical space":     {0x205F, true},
		"ogham space mark":              {0x1680, true},
		"vertical tab":                  {'\v', true},
		"form feed":                     {'\f', true},
		"carriage return and line feed": {'\r', true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, IsSpace(tc.r))
			assert.Equal(t, tc.want, class.MatchString(string(tc.r)), "SpaceClass must agree with IsSpace")
		})
	}
}

func TestTrimAndLen(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in, trimmed string
		length      int
	}{
		"ASCII spaces":                  {"  ab ", "ab", 2},
		"ideographic and no-break":      {"\u3000ab\u00a0", "ab", 2},
		"next line is kept, as in JS":   {"\u0085ab", "\u0085ab", 3},
		"astral characters count two":   {"😀a", "😀a", 3},
		"BMP non-ASCII counts one":      {"日本", "日本", 2},
		"empty":                         {"", "", 0},
		"only whitespace trims to none": {" \t\uFEFF", "", 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Trim(tc.in)
			assert.Equal(t, tc.trimmed, got)
			assert.Equal(t, tc.length, Len(got))
		})
	}
}

func TestASCIIFold(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^(` + ASCIIFold("and", "also") + `)$`)
	tests := map[string]struct {
		in   string
		want bool
	}{
		"lower":                {"and", true},
		"upper":                {"AND", true},
		"mixed":                {"AlSo", true},
		"long s is not s":      {"alſo", false},
		"Kelvin sign is not k": {"\u212Aand", false},
		"another word":         {"or", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, re.MatchString(tc.in))
		})
	}
	assert.Equal(t, "[aA][bB]|[cC]", ASCIIFold("ab", "c"))
}
