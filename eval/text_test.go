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
