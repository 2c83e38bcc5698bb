package eval

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTextCheckInPieces: text written in pieces, cut anywhere (inside a
// rune too), gives the error CheckText gives for the whole.
func TestTextCheckInPieces(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		data  string
		want  string
		blank bool
	}{
		"text":                        {"héllo\nwörld €\n", "", false},
		"blank":                       {" \n\t\u00a0\n", "", true},
		"empty":                       {"", "", true},
		"a NUL byte":                  {"a\nb\x00c", "f:2: binary data (NUL byte): expected UTF-8 text", false},
		"a NUL after bad UTF-8 wins":  {"\xff\n\x00", "f:2: binary data (NUL byte): expected UTF-8 text", false},
		"bad UTF-8":                   {"ok\nab\xffc", "f:2:3: invalid UTF-8: expected UTF-8 text", false},
		"bad UTF-8 on line one":       {"abc\xe2\x82", "f:1:4: invalid UTF-8: expected UTF-8 text", false},
		"a rune cut short, then text": {"é\n€\xe2\x82x", "f:2:4: invalid UTF-8: expected UTF-8 text", false},
		// UTF-16, as Windows tools save text: named as such, by its byte
		// order mark, or by the NUL beside each ASCII character.
		"UTF-16 LE with its mark":        {"\xff\xfei\x00d\x00\n\x00", "f:1: UTF-16 text (little-endian, byte order mark FF FE): save it as UTF-8", false},
		"UTF-16 BE with its mark":        {"\xfe\xff\x00i\x00d\x00\n", "f:1: UTF-16 text (big-endian, byte order mark FE FF): save it as UTF-8", false},
		"UTF-16 LE, Thai, with its mark": {"\xff\xfe\x01\x0e\x32\x0e", "f:1: UTF-16 text (little-endian, byte order mark FF FE): save it as UTF-8", false},
		"UTF-16 LE, no mark":             {"{\x00\"\x00a\x00\"\x00:\x00 \x001\x00}\x00", "f:1: UTF-16 text (little-endian, a NUL byte beside each ASCII character): save it as UTF-8", false},
		"UTF-16 BE, no mark":             {"\x00i\x00d\x00,\x00q\x00\n", "f:1: UTF-16 text (big-endian, a NUL byte beside each ASCII character): save it as UTF-8", false},
		// A NUL or two in text, or runs of them, is binary, not UTF-16.
		"text with one NUL":         {"ab\x00cd\nef", "f:1: binary data (NUL byte): expected UTF-8 text", false},
		"runs of NULs":              {"PK\x03\x04\x00\x00\x00\x00a\x00b\x00", "f:1: binary data (NUL byte): expected UTF-8 text", false},
		"a UTF-8 mark is no UTF-16": {"\xef\xbb\xbfok", "", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			whole := CheckText("f", []byte(tc.data))
			if tc.want == "" {
				assert.NoError(t, whole)
			} else {
				assert.EqualError(t, whole, tc.want)
			}
			for cut1 := 0; cut1 <= len(tc.data); cut1++ {
				for cut2 := cut1; cut2 <= len(tc.data); cut2++ {
					c := TextCheck{Name: "f"}
					for _, piece := range []string{tc.data[:cut1], tc.data[cut1:cut2], tc.data[cut2:]} {
						n, err := c.Write([]byte(piece))
						assert.NoError(t, err)
						assert.Equal(t, len(piece), n)
					}
					assert.Equal(t, tc.blank, c.Blank(), "cut at %d, %d", cut1, cut2)
					assert.Equal(t, int64(len(tc.data)), c.Len())
					assert.Equal(t, whole, c.Err(), "cut at %d, %d", cut1, cut2)
				}
			}
		})
	}
}
