package web

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Result is one search hit, from any backend.
type Result struct {
	URL     string
	Title   string
	Snippet string
	// Text is the document's full text when the backend has it (the local
	// corpus), so no fetch is needed; "" otherwise.
	Text string
	// Author is "" when unknown; AuthorKnown says whether the source named
	// one.
	Author      string
	AuthorKnown bool
	Published   time.Time // zero when unknown
	// References is the number of references the document cites, when
	// its metadata says; 0 otherwise.
	References int
	// Score is the backend's relevance; higher is better. Scores are
	// comparable only within one backend's results.
	Score float64
	// Backend names the backend that found it ("local", "searxng").
	Backend string
}

// Query is what a backend searches for.
type Query struct {
	// Text is the user's query, free text. Empty text returns no results
	// and no error.
	Text string
	// Limit is the most results to return; 0 or less means
	// DefaultLimit.
	Limit int
	// ExcludeDomains are registrable domains ("example.com", which also
	// drops "www.example.com") or hosts ("blog.example.com") whose results
	// are dropped. A full URL is accepted and reduced to its host.
	ExcludeDomains []string
	// PreferDomains are domain suffixes (".gov", ".edu", "who.int") whose
	// results rank first. The re-rank is stable: the backend's order is kept
	// within the preferred and the other results.
	PreferDomains []string
}

// DefaultLimit is the number of results returned when Query.Limit is not
// set.
const DefaultLimit = 10

// limit returns q.Limit, or DefaultLimit when that is not set.
func (q Query) limit() int {
	if q.Limit <= 0 {
		return DefaultLimit
	}
	return q.Limit
}

// resultHost returns the lower-case host of rawURL without port or trailing
// dot, or "" when rawURL has none.
func resultHost(rawURL string) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
}

// domainPattern normalises a user-given domain: lower case, no scheme,
// path, port, "*." or surrounding dots. A bare suffix such as "gov" or ".gov"
// becomes "gov".
func domainPattern(d string) string {
	d = strings.ToLower(strings.TrimSpace(d))
	if strings.Contains(d, "://") {
		d = resultHost(d)
	}
	if i := strings.IndexAny(d, "/:"); i >= 0 {
		d = d[:i]
	}
	d = strings.TrimPrefix(d, "*")
	return strings.Trim(d, ".")
}

// hostMatches reports whether host is domain or one of its subdomains (a
// match on whole labels: "example.com" matches "www.example.com" but not
// "badexample.com"). A registrable domain thus matches every host under it,
// and a public suffix ("gov", "ac.uk") every site under that.
func hostMatches(host, domain string) bool {
	if host == "" || domain == "" {
		return false
	}
	return host == domain || strings.HasSuffix(host, "."+domain)
}

// domainRules holds a Query's domain lists, normalised once.
type domainRules struct {
	exclude, prefer []string
}

func newDomainRules(q Query) domainRules {
	norm := func(in []string) []string {
		var out []string
		for _, d := range in {
			if p := domainPattern(d); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	return domainRules{exclude: norm(q.ExcludeDomains), prefer: norm(q.PreferDomains)}
}

func (r domainRules) any(host string, list []string) bool {
	return slices.ContainsFunc(list, func(d string) bool { return hostMatches(host, d) })
}

// excluded reports whether results from rawURL are to be dropped.
func (r domainRules) excluded(rawURL string) bool {
	return len(r.exclude) > 0 && r.any(resultHost(rawURL), r.exclude)
}

// preferred reports whether results from rawURL rank first.
func (r domainRules) preferred(rawURL string) bool {
	return len(r.prefer) > 0 && r.any(resultHost(rawURL), r.prefer)
}

// applyDomainRules drops the excluded items of xs, moves the preferred ones
// first (stable) and cuts the list to limit; urlOf gives an item's URL.
func applyDomainRules[T any](r domainRules, xs []T, urlOf func(T) string, limit int) []T {
	if len(r.exclude) > 0 {
		xs = slices.DeleteFunc(xs, func(x T) bool { return r.excluded(urlOf(x)) })
	}
	if len(r.prefer) > 0 {
		// A stable partition: preferred items first, each group in order.
		var first, rest []T
		for _, x := range xs {
			if r.preferred(urlOf(x)) {
				first = append(first, x)
			} else {
				rest = append(rest, x)
			}
		}
		xs = append(first, rest...)
	}
	if len(xs) > limit {
		xs = xs[:limit]
	}
	return xs
}

// UnreachableError is a search backend that could not be reached at all:
// the connection was refused or reset, the name did not resolve, or the
// request timed out without a reply. It is not a reply the backend sent
// (an HTTP error status): the backend is down or its address is wrong, so
// retrying the same search does not help. Test for it with errors.As.
type UnreachableError struct {
	// Backend names the backend and where it was looked for, as the user
	// gave it: "searxng:http://127.0.0.1:8888".
	Backend string
	// Err is the transport error.
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("search backend %s unreachable: %v", e.Backend, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

var _ error = (*UnreachableError)(nil)

// DocumentKey is rawURL reduced to the document it names, for telling
// whether two URLs are one source: scheme and host lower case, the
// scheme's default port and the fragment dropped, an empty path "/". The
// same page found twice, or given as https://x.org/a and
// https://X.org:443/a#part, is one document, not two sources. A URL that
// does not parse is its own key.
func DocumentKey(rawURL string) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || u.Host == "" {
		return rawURL
	}
	k := *u
	k.Scheme = strings.ToLower(k.Scheme)
	host, port := strings.ToLower(k.Hostname()), k.Port()
	if port == "" || (k.Scheme == "http" && port == "80") || (k.Scheme == "https" && port == "443") {
		k.Host = host
		if strings.Contains(host, ":") {
			k.Host = "[" + host + "]"
		}
	} else {
		k.Host = net.JoinHostPort(host, port)
	}
	k.Fragment, k.RawFragment = "", ""
	if k.Path == "" && k.RawPath == "" {
		k.Path = "/"
	}
	return k.String()
}
