package heuristics

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// trackingParams are the query parameters NormalizeURL drops because they
// record how a reader arrived at a page, not which page it is. Names are
// compared case-insensitively after percent-decoding; an entry ending in "*"
// matches every name that starts with the rest ("utm_*" drops utm_source,
// utm_medium...).
//
// The list is deliberately short: a parameter that may select content (ref,
// source, lang, page) is never on it. Change it only before normalising
// anything, as it is read without locking.
var trackingParams = []string{
	"utm_*",                    // Google Analytics campaign tags
	"fbclid",                   // Facebook
	"gclid", "gclsrc", "dclid", // Google Ads, DoubleClick
	"gbraid", "wbraid", // Google Ads (iOS)
	"msclkid",          // Microsoft Ads
	"mc_cid", "mc_eid", // Mailchimp
	"yclid",                        // Yandex
	"igshid",                       // Instagram
	"twclid", "ref_src", "ref_url", // Twitter / X
	"ttclid",     // TikTok
	"li_fat_id",  // LinkedIn
	"_ga", "_gl", // Google Analytics cross-domain
	"_hsenc", "_hsmi", // HubSpot
	"mkt_tok",                   // Marketo
	"vero_id",                   // Vero
	"oly_anon_id", "oly_enc_id", // Omeda
}

// NormalizeURL returns a canonical form of an absolute http or https URL, so
// that two spellings of the same address compare equal. It
//
//   - lower-cases the scheme and the host and drops trailing dots of the
//     host; an internationalised host is written in Unicode whether given
//     so or as punycode ("xn--"), so both spellings compare equal;
//   - drops user information, the fragment, an empty port and the default
//     port (80 for http, 443 for https), and leading zeros of other ports;
//   - keeps "www.": it is part of the address (Domain removes it);
//   - normalises percent-encoding (RFC 3986 section 6.2.2): escapes are
//     upper-cased, escapes of unreserved characters (letters, digits, "-._~")
//     are decoded, and characters that must be escaped are;
//   - removes the dot segments "." and ".." from the path, then every trailing
//     slash, so the root path "/" becomes "";
//   - drops the query parameters named by trackingParams and empty ones, and
//     sorts the rest by name, keeping the order of repeated names.
//
// NormalizeURL is idempotent: normalising its result gives the result again.
// It fails, saying why, for text that is not an absolute URL, for schemes
// other than http and https (mailto:, javascript:, ftp:...) and for URLs
// without a host.
func NormalizeURL(raw string) (string, error) {
	s, err := normalizeURL(raw)
	if err != nil {
		return "", fmt.Errorf("normalize URL %q: %w", raw, err)
	}
	return s, nil
}

// normalizeURL is NormalizeURL with errors that give only the reason, for use
// in a rating's basis.
func normalizeURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", errors.New("empty URL")
	}
	u, err := url.Parse(raw)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			return "", uerr.Err
		}
		return "", err
	}
	switch {
	case u.Scheme == "":
		return "", errors.New("not an absolute URL (no scheme)")
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("scheme %q is not http or https", u.Scheme)
	case u.Opaque != "" || u.Host == "":
		return "", errors.New("no host")
	}

	host, err := normalizeHost(u.Hostname())
	if err != nil {
		return "", err
	}
	if port := strings.TrimLeft(u.Port(), "0"); u.Port() != "" {
		if port == "" {
			port = "0"
		}
		if len(port) > 5 || port > "65535" && len(port) == 5 {
			return "", fmt.Errorf("port %s out of range", u.Port())
		}
		if !(u.Scheme == "http" && port == "80") && !(u.Scheme == "https" && port == "443") {
			host += ":" + port
		}
	}

	path := normalizeEscapes(u.EscapedPath(), pathByte)
	path = strings.TrimRight(removeDotSegments(path), "/")

	var b strings.Builder
	b.WriteString(u.Scheme)
	b.WriteString("://")
	b.WriteString(host)
	b.WriteString(path)
	if q := normalizeQuery(u.RawQuery); q != "" {
		b.WriteByte('?')
		b.WriteString(q)
	}
	return b.String(), nil
}

// PageKey returns the key under which two addresses of one page are one
// source: NormalizeURL's form without its scheme and without a leading
// "www." label, so http and https, www.example.org and example.org, a
// trailing slash, a fragment, default ports and tracking parameters make no
// new source. It fails as NormalizeURL does.
func PageKey(raw string) (string, error) {
	n, err := NormalizeURL(raw)
	if err != nil {
		return "", err
	}
	_, rest, _ := strings.Cut(n, "://")
	if after, ok := strings.CutPrefix(rest, "www."); ok {
		host := after
		if i := strings.IndexAny(after, ":/?"); i >= 0 {
			host = after[:i]
		}
		if strings.Contains(host, ".") { // www.com is the site www.com, not com
			rest = after
		}
	}
	return rest, nil
}

// normalizeHost lower-cases a host name as returned by url.URL.Hostname and
// makes it ready to print back into a URL.
func normalizeHost(h string) (string, error) {
	if !utf8.ValidString(h) {
		return "", errors.New("host is not valid UTF-8")
	}
	h = strings.ToLower(h)
	ipv6 := strings.Contains(h, ":")
	if !ipv6 {
		// A trailing dot names the DNS root; the name is the same without.
		h = idnHost(strings.TrimRight(h, "."))
	}
	if h == "" {
		return "", errors.New("no host")
	}
	// Hostname has decoded the host; "%" can only come from an IPv6 zone
	// or a "%25" escape and must be escaped again.
	h = strings.ReplaceAll(h, "%", "%25")
	if ipv6 {
		h = "[" + h + "]"
	}
	return h, nil
}

// normalizeQuery drops tracking and empty parameters from a raw query,
// normalises their escapes and sorts them by name (stable for repeated
// names).
func normalizeQuery(rawQuery string) string {
	if rawQuery == "" {
		return ""
	}
	var parts []string
	for p := range strings.SplitSeq(rawQuery, "&") {
		if p == "" {
			continue
		}
		p = normalizeEscapes(p, queryByte)
		if isTrackingParam(queryKey(p)) {
			continue
		}
		parts = append(parts, p)
	}
	slices.SortStableFunc(parts, func(a, b string) int {
		return strings.Compare(queryKey(a), queryKey(b))
	})
	return strings.Join(parts, "&")
}

// queryKey is the still-escaped name of a "name=value" query parameter.
func queryKey(p string) string {
	k, _, _ := strings.Cut(p, "=")
	return k
}

func isTrackingParam(key string) bool {
	if k, err := url.QueryUnescape(key); err == nil {
		key = k
	}
	key = strings.ToLower(key)
	for _, t := range trackingParams {
		t = strings.ToLower(t)
		if prefix, ok := strings.CutSuffix(t, "*"); ok {
			if strings.HasPrefix(key, prefix) {
				return true
			}
		} else if key == t {
			return true
		}
	}
	return false
}

// normalizeEscapes upper-cases percent escapes, decodes those of unreserved
// characters, escapes a "%" that starts no valid escape, and escapes every
// byte that allowed rejects.
func normalizeEscapes(s string, allowed func(byte) bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			d := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(d) {
				b.WriteByte(d)
			} else {
				b.WriteByte('%')
				b.WriteByte(hex[d>>4])
				b.WriteByte(hex[d&15])
			}
			i += 2
		case c != '%' && allowed(c):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// isUnreserved reports whether c is an unreserved character of RFC 3986.
func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// isSubDelim reports whether c is a sub-delimiter of RFC 3986.
func isSubDelim(c byte) bool {
	return strings.IndexByte("!$&'()*+,;=", c) >= 0
}

// pathByte reports whether c may stand unescaped in a path.
func pathByte(c byte) bool {
	return isUnreserved(c) || isSubDelim(c) || c == ':' || c == '@' || c == '/'
}

// queryByte reports whether c may stand unescaped in one query parameter.
func queryByte(c byte) bool {
	return c != '&' && (pathByte(c) || c == '?')
}

// removeDotSegments removes "." and ".." segments from an absolute path
// (RFC 3986 section 5.2.4). A path ending in a dot segment keeps a trailing
// slash, which the caller then trims.
func removeDotSegments(p string) string {
	if p == "" {
		return ""
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, s)
			continue
		}
		if last {
			out = append(out, "")
		}
	}
	return "/" + strings.Join(out, "/")
}

// Domain returns the registrable domain (the effective top-level domain plus
// one label, from the public suffix list) of a URL or a bare host name:
// "https://docs.python.org/3/" and "www.bbc.co.uk" give "python.org" and
// "bbc.co.uk". Suffixes run by private parties count too, so each site on a
// shared host is its own domain ("alice.github.io", "bob.blogspot.com").
//
// IP addresses, single-label names ("localhost") and names that are public
// suffixes themselves ("co.uk") are returned as they are, lower-cased and
// without port or brackets. Text with no usable host (mailto:, "") gives "".
// An internationalised name is returned in Unicode whether it was written
// so or in its punycode ("xn--") form, so both count as one domain.
func Domain(rawOrNormalized string) string {
	host := hostOf(rawOrNormalized)
	if host == "" || !strings.Contains(host, ".") {
		return host
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return host
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return d
}

// hostOf returns the lower-cased host name of a URL or of a bare
// "host[:port][/path]", without port, brackets or trailing dots, or "" when
// there is none.
func hostOf(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return ""
	}
	if !strings.Contains(raw, "://") && !strings.HasPrefix(raw, "//") {
		// A bare host. "@" or a blank means something else (mailto:,
		// prose); schemes such as "tel:" fail below as bad ports.
		if strings.ContainsAny(raw, "@ \t\r\n") {
			return ""
		}
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return canonicalHost(u.Hostname())
}

// canonicalHost lower-cases a host name (no port), trims its dots and
// writes an internationalised name in one form (idnHost).
func canonicalHost(h string) string {
	return idnHost(strings.TrimRight(strings.ToLower(strings.TrimSpace(h)), "."))
}

// idnHost writes an internationalised host name in one form whichever way
// it was written: Unicode, normalised by IDNA's lookup mapping (so case and
// composed or decomposed accents agree), for reading. "XN--BCHER-KVA.de",
// "BÜCHER.de" and "bu\u0308cher.de" all give "bücher.de". Plain ASCII names,
// and names IDNA rejects, are returned unchanged.
func idnHost(h string) string {
	ascii := true
	for i := 0; i < len(h); i++ {
		if h[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii && !strings.Contains(h, "xn--") {
		return h
	}
	a, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return h
	}
	if u, err := idna.Lookup.ToUnicode(a); err == nil {
		return u
	}
	return a
}
