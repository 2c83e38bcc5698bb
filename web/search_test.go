package web_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/web"
)

func TestDocumentKey(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"already plain":             {"https://x.org/a?b=1", "https://x.org/a?b=1"},
		"fragment dropped":          {"https://x.org/a#part", "https://x.org/a"},
		"scheme and host lower":     {"HTTPS://X.Org/A", "https://x.org/A"},
		"default port dropped":      {"http://x.org:80/a", "http://x.org/a"},
		"https default port":        {"https://x.org:443/a", "https://x.org/a"},
		"other port kept":           {"http://x.org:8080/a", "http://x.org:8080/a"},
		"port of the other scheme":  {"https://x.org:80/a", "https://x.org:80/a"},
		"empty path is the root":    {"https://x.org", "https://x.org/"},
		"ipv6 host":                 {"http://[::1]:80/a#b", "http://[::1]/a"},
		"ipv6 host with a port":     {"http://[::1]:8080/a", "http://[::1]:8080/a"},
		"query order is kept":       {"https://x.org/a?b=2&a=1", "https://x.org/a?b=2&a=1"},
		"path case is kept":         {"https://x.org/A#x", "https://x.org/A"},
		"not a url is its own key":  {"http://[::1", "http://[::1"},
		"no host is its own key":    {"/relative#x", "/relative#x"},
		"surrounding space trimmed": {" https://x.org/a ", "https://x.org/a"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, web.DocumentKey(tc.in))
		})
	}
}
