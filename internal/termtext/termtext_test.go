package termtext

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVisible(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"plain text is kept":        {"café ราคา \\d{4}", "café ราคา \\d{4}"},
		"an escape sequence":        {"a\x1b[2Jb", `a\x1b[2Jb`},
		"tab, line break, return":   {"a\tb\nc\rd", `a\tb\nc\rd`},
		"a right-to-left override":  {"x\u202ey", `x\u202ey`},
		"a C1 control":              {"x\u009by", `x\u009by`},
		"an empty text stays empty": {"", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, Visible(tc.in))
		})
	}
}

func TestMessage(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"plain lines are kept":          {"assay: bad\ncheck the file\n", "assay: bad\ncheck the file\n"},
		"an escape sequence in a name":  {"no\x1b[2Jfile.jsonl: cannot read", `no\x1b[2Jfile.jsonl: cannot read`},
		"a return that would overwrite": {"a\rb\nc", `a\rb` + "\nc"},
		"a right-to-left override":      {"x\u202ey\n", `x\u202ey` + "\n"},
		"a tab is shown":                {"a\tb", `a\tb`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, Message(tc.in))
		})
	}
}
