package web

import "time"

// Document is one fetched and extracted source: the main content of a page as
// Markdown, with the metadata the research workflow cites.
type Document struct {
	// URL is the address that was asked for; FinalURL is where redirects
	// ended (equal to URL when there were none).
	URL, FinalURL string
	// Title and Author come from the page (readability, then <meta> tags);
	// either may be empty.
	Title, Author string
	// Published is the publication time the page declares, or the zero time.
	Published time.Time
	// Text is the Markdown of the main content (text/plain and text/markdown
	// pass through unchanged).
	Text string
	// ContentType is the media type of the body, without parameters
	// ("text/html").
	ContentType string
	// Bytes is the size of the body as received, before decoding.
	Bytes int
	// Notes records repairs made on the way, such as "invalid UTF-8
	// repaired" or "decoded from windows-1252", so a run can report them.
	Notes []string
}
