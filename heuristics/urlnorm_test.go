package heuristics

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNormalizeURL(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want string
	}{
		"already normal":                     {"https://example.com/a/b", "https://example.com/a/b"},
		"lower-cases scheme and host":        {"HTTPS://Docs.Python.ORG/3/Library", "https://docs.python.org/3/Library"},
		"keeps www":                          {"https://www.example.com/x", "https://www.example.com/x"},
		"drops default http port":            {"http://example.com:80/x", "http://example.com/x"},
		"drops default https port":           {"https://example.com:443/x", "https://example.com/x"},
		"keeps other ports":                  {"https://example.com:8443/x", "https://example.com:8443/x"},
		"keeps 443 on http":                  {"http://example.com:443/", "http://example.com:443"},
		"drops empty port":                   {"https://example.com:/x", "https://example.com/x"},
		"drops leading zeros of port":        {"http://example.com:0080/x", "http://example.com/x"},
		"drops fragment":                     {"https://example.com/a#section-2", "https://example.com/a"},
		"drops user information":             {"https://user:secret@example.com/a", "https://example.com/a"},
		"root path becomes empty":            {"https://example.com/", "https://example.com"},
		"removes trailing slash":             {"https://example.com/docs/", "https://example.com/docs"},
		"removes every trailing slash":       {"https://example.com/docs//", "https://example.com/docs"},
		"keeps inner empty segments":         {"https://example.com/a//b", "https://example.com/a//b"},
		"removes dot segments":               {"https://example.com/a/./b/../c", "https://example.com/a/c"},
		"dot segments above root":            {"https://example.com/../../a", "https://example.com/a"},
		"trailing dot-dot":                   {"https://example.com/a/b/..", "https://example.com/a"},
		"upper-cases escapes":                {"https://example.com/a%2fb", "https://example.com/a%2Fb"},
		"decodes unreserved escapes":         {"https://example.com/%7Euser/%41%2D%5F", "https://example.com/~user/A-_"},
		"decoded dot segment":                {"https://example.com/a/%2E%2E/b", "https://example.com/b"},
		"escapes spaces and unicode in path": {"https://example.com/a b/é", "https://example.com/a%20b/%C3%A9"},
		"drops utm parameters":               {"https://example.com/a?utm_source=x&utm_Medium=y&id=3", "https://example.com/a?id=3"},
		"drops click identifiers":            {"https://example.com/?fbclid=1&gclid=2&dclid=3&msclkid=4&yclid=5&igshid=6&_ga=7&ref_src=8&mc_cid=9&mc_eid=10", "https://example.com"},
		"tracking names ignore case":         {"https://example.com/?FBCLID=1&UTM_CAMPAIGN=z&q=go", "https://example.com?q=go"},
		"tracking names are decoded first":   {"https://example.com/?utm%5Fsource=x&q=go", "https://example.com?q=go"},
		"keeps content parameters like ref":  {"https://github.com/o/r?ref=main", "https://github.com/o/r?ref=main"},
		"sorts parameters by name":           {"https://example.com/s?z=1&a=2&m=3", "https://example.com/s?a=2&m=3&z=1"},
		"keeps order of repeated names":      {"https://example.com/s?b=2&a=9&b=1", "https://example.com/s?a=9&b=2&b=1"},
		"drops empty parameters and bare ?":  {"https://example.com/s?&&a=1&", "https://example.com/s?a=1"},
		"drops empty query":                  {"https://example.com/s?", "https://example.com/s"},
		"keeps a name without value":         {"https://example.com/s?flag&a=1", "https://example.com/s?a=1&flag"},
		"normalises query escapes":           {"https://example.com/s?q=%7e%2f", "https://example.com/s?q=~%2F"},
		"escapes stray percent in query":     {"https://example.com/s?q=100%", "https://example.com/s?q=100%25"},
		"keeps plus in query":                {"https://example.com/s?q=a+b", "https://example.com/s?q=a+b"},
		"drops trailing dot of host":         {"https://example.com./a", "https://example.com/a"},
		"lower-cases unicode host":           {"https://BÜCHER.de/", "https://bücher.de"},
		"punycode host as unicode":           {"https://XN--BCHER-KVA.de/", "https://bücher.de"},
		"decomposed accent composed":         {"https://bu\u0308cher.de/", "https://bücher.de"},
		"invalid idn left as written":        {"https://xn--a.de/", "https://xn--a.de"},
		"ipv4 host":                          {"http://192.168.0.1:8080/x", "http://192.168.0.1:8080/x"},
		"ipv6 host":                          {"http://[2001:DB8::1]:80/x", "http://[2001:db8::1]/x"},
		"trims surrounding space":            {"  https://example.com/a  ", "https://example.com/a"},
		"query without path":                 {"https://example.com?b=1&a=2", "https://example.com?a=2&b=1"},
		"fragment and tracking together":     {"https://Example.com:443/Post/?utm_source=feed#comments", "https://example.com/Post"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := NormalizeURL(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			again, err := NormalizeURL(got)
			require.NoError(t, err)
			assert.Equal(t, got, again, "not idempotent")
		})
	}
}

func TestNormalizeURLErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in      string
		wantErr string
	}{
		"empty":         {"", `normalize URL "": empty URL`},
		"blank":         {"   ", `normalize URL "   ": empty URL`},
		"relative path": {"/docs/a", `normalize URL "/docs/a": not an absolute URL (no scheme)`},
		"bare host":     {"example.com/a", `normalize URL "example.com/a": not an absolute URL (no scheme)`},
		"protocol-relative": {
			"//example.com/a", `normalize URL "//example.com/a": not an absolute URL (no scheme)`,
		},
		"mailto":     {"mailto:someone@example.com", `normalize URL "mailto:someone@example.com": scheme "mailto" is not http or https`},
		"javascript": {"javascript:alert(1)", `normalize URL "javascript:alert(1)": scheme "javascript" is not http or https`},
		"ftp":        {"FTP://example.com/f", `normalize URL "FTP://example.com/f": scheme "ftp" is not http or https`},
		"opaque":     {"http:example.com", `normalize URL "http:example.com": no host`},
		"no host":    {"https:///path", `normalize URL "https:///path": no host`},
		"only port":  {"https://:8080/x", `normalize URL "https://:8080/x": no host`},
		"only dots":  {"https://../x", `normalize URL "https://../x": no host`},
		"bad escape": {"https://example.com/%zz", `normalize URL "https://example.com/%zz": invalid URL escape "%zz"`},
		"space in host": {
			"https://exa mple.com/", `normalize URL "https://exa mple.com/": invalid character " " in host name`,
		},
		"port out of range": {"https://example.com:65536/", `normalize URL "https://example.com:65536/": port 65536 out of range`},
		"bad port":          {"https://example.com:port/", `normalize URL "https://example.com:port/": invalid port ":port" after host`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := NormalizeURL(tc.in)
			require.Error(t, err)
			assert.Empty(t, got)
			assert.Equal(t, tc.wantErr, err.Error())
		})
	}
}

func TestTrackingParams(t *testing.T) {
	t.Parallel()
	// Every name on the documented list is dropped, whatever its case.
	for _, p := range trackingParams {
		name := p
		if name[len(name)-1] == '*' {
			name = name[:len(name)-1] + "x"
		}
		got, err := NormalizeURL("https://example.com/a?" + name + "=1&keep=1")
		require.NoError(t, err)
		assert.Equal(t, "https://example.com/a?keep=1", got, p)
	}
}

func TestDomain(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want string
	}{
		"url with subdomain":             {"https://docs.python.org/3/", "python.org"},
		"strips www":                     {"https://www.nytimes.com/2026/x.html", "nytimes.com"},
		"two-label public suffix":        {"https://www.bbc.co.uk/news", "bbc.co.uk"},
		"australian government":          {"https://www.health.gov.au/x", "health.gov.au"},
		"japanese academic":              {"https://www.u-tokyo.ac.jp/en/", "u-tokyo.ac.jp"},
		"bare host":                      {"www.bbc.co.uk", "bbc.co.uk"},
		"bare host with port, path":      {"Docs.Python.org:8080/3/", "python.org"},
		"normalised url":                 {"https://example.com?a=1", "example.com"},
		"upper case":                     {"HTTPS://WWW.EXAMPLE.COM", "example.com"},
		"trailing dot":                   {"https://www.example.com./", "example.com"},
		"private suffix github.io":       {"https://alice.github.io/blog", "alice.github.io"},
		"private suffix blogspot":        {"https://bob.blogspot.com/2020/01/x.html", "bob.blogspot.com"},
		"registrable domain already":     {"https://python.org", "python.org"},
		"ipv4":                           {"http://192.168.1.10:8080/x", "192.168.1.10"},
		"ipv6":                           {"http://[2001:db8::1]/x", "2001:db8::1"},
		"localhost":                      {"http://localhost:3000/", "localhost"},
		"public suffix itself":           {"https://co.uk/", "co.uk"},
		"unicode host":                   {"https://www.bücher.de/x", "bücher.de"},
		"punycode host reads as unicode": {"https://www.xn--bcher-kva.de/x", "bücher.de"},
		"upper-case unicode host":        {"https://WWW.BÜCHER.DE/x", "bücher.de"},
		"other scheme with host":         {"ftp://files.example.org/f", "example.org"},
		"mailto":                         {"mailto:someone@example.com", ""},
		"javascript":                     {"javascript:alert(1)", ""},
		"empty":                          {"", ""},
		"prose":                          {"see the docs", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, Domain(tc.in))
		})
	}
}

func FuzzNormalizeURL(f *testing.F) {
	for _, s := range []string{
		"https://example.com/a/b",
		"HTTP://Example.COM:80/a/./b/../c/?utm_source=x&b=2&a=1#frag",
		"https://user:pw@[2001:db8::1%25eth0]:443/%7e/%2f?q=%zz&&x",
		"https://bücher.de/a b?q=é",
		"http://example.com.:0080//a//",
		"mailto:a@b.c",
		"javascript:alert(1)",
		"//example.com",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := NormalizeURL(raw)
		if err != nil {
			return
		}
		again, err := NormalizeURL(got)
		if err != nil {
			t.Fatalf("NormalizeURL(%q) = %q, which fails: %v", raw, got, err)
		}
		if again != got {
			t.Fatalf("not idempotent: %q -> %q -> %q", raw, got, again)
		}
		_ = Domain(got)
	})
}

func ExampleNormalizeURL() {
	u, err := NormalizeURL("HTTPS://Docs.Python.org:443/3/library/../tutorial/?utm_source=feed&b=2&a=1#intro")
	fmt.Println(u, err)
	_, err = NormalizeURL("mailto:someone@example.com")
	fmt.Println(err)
	// Output:
	// https://docs.python.org/3/tutorial?a=1&b=2 <nil>
	// normalize URL "mailto:someone@example.com": scheme "mailto" is not http or https
}

func ExampleDomain() {
	fmt.Println(Domain("https://docs.python.org/3/"))
	fmt.Println(Domain("www.bbc.co.uk"))
	fmt.Println(Domain("https://alice.github.io/post"))
	fmt.Println(Domain("http://localhost:8080/"))
	// Output:
	// python.org
	// bbc.co.uk
	// alice.github.io
	// localhost
}
