package heuristics

import "github.com/assaylabs/assay/heuristics/reportdoc"

// The report parser is package reportdoc; these names keep the scorers'
// signatures (ScoreReport(ctx, *Report, Sample)) readable to their callers.
type (
	// Report is a Markdown report parsed for scoring (reportdoc.Report).
	Report = reportdoc.Report
	// Section is one heading of a report (reportdoc.Section).
	Section = reportdoc.Section
	// Sentence is one sentence of a report's body (reportdoc.Sentence).
	Sentence = reportdoc.Sentence
	// Paragraph is one paragraph of a report's body (reportdoc.Paragraph).
	Paragraph = reportdoc.Paragraph
)

// ParseReport parses a Markdown report (reportdoc.Parse). It never fails.
func ParseReport(src []byte) *Report { return reportdoc.Parse(src) }
