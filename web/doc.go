// Package web finds and reads sources for the research workflow: search
// (stage 1), fetch (stage 2) and main-content extraction (stage 3), with an
// SSRF guard on every outgoing connection. It imports only eval,
// internal/textseg, internal/sqlitedb and internal/termtext of Assay's
// packages.
//
// # Overview
//
// Search backends share two types, [Query] and [Result], and one method
// set, Search(ctx, Query) ([]Result, error) and Name() string; the
// interface is declared by its user (agent.Searcher).
//
//   - [Local] searches a folder of Markdown, text and HTML files, each with
//     YAML front matter naming at least its url (see [ParseCorpusFile]). The
//     folder is indexed into an SQLite FTS5 table (pure Go, no cgo) ranked by
//     BM25, title weighted above body, and the index is updated
//     incrementally by content hash. Text of scripts written without spaces
//     (Chinese, Japanese, Thai) is indexed, and queried, as UAX #29
//     characters and pairs of them (unigrams and bigrams). Results carry the
//     full text, so no fetch is needed. It is the default, offline backend;
//     an embedded corpus (an fs.FS) works the same way.
//   - [SearxNG] asks a SearxNG instance's JSON API; its results carry a
//     snippet only, and the pages are fetched.
//
// Both apply Query.ExcludeDomains (a domain drops its subdomains too) and
// Query.PreferDomains (a stable re-rank: preferred domains such as .gov and
// .edu first, the backend's order kept within each group) before the limit.
//
// Fetching goes through an HTTP client whose dialer asks a [Guard] about
// every address it connects to, after DNS resolution: cloud metadata and
// link-local addresses are always refused, loopback and private ones unless
// allowed, so a URL found in a search result or a document cannot reach the
// local network. [Extract] turns a fetched page into a [Document]: its main
// content as Markdown, title, author and date.
//
//	idx, err := web.OpenLocal(ctx, "corpus", nil, "")
//	if err != nil { ... }
//	defer idx.Close()
//	res, err := idx.Search(ctx, web.Query{Text: "heat pump efficiency", Limit: 5, PreferDomains: []string{".gov"}})
package web
