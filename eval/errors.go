package eval

import "errors"

// ErrNoClaims is returned (wrapped) in a Score's Err, and named in reasons,
// when an answer has no verifiable claim to check. Test with errors.Is.
var ErrNoClaims = errors.New("no verifiable claims")

// ErrNoAnswer is a Score's Err, and named in its reason, when the sample
// has no answer (missing, empty or blank) for a judge that judges the
// answer; the score is Skipped. Test with errors.Is.
var ErrNoAnswer = errors.New("no answer to judge")

// ErrNoQuestion is a Score's Err, and named in its reason, when the
// sample has no question (missing, empty or blank) for a judge that
// judges relevance to it; the score is Skipped, as a grade of relevance
// to nothing would be a number about nothing. Test with errors.Is.
var ErrNoQuestion = errors.New("no question to judge relevance to")

// ErrNoSections is a Score's Err, and named in its reason, when a metric
// that reads a report's sections (Markdown headings) is given an answer
// with none, as a RAG answer is: the metric does not apply to it, and the
// score is Skipped. Test with errors.Is.
var ErrNoSections = errors.New("the answer has no sections (no Markdown heading), so it is no report")

// ErrNoContexts is returned by scorers that need retrieved contexts when
// the sample has none (metric.ErrNoContexts and judges.ErrNoContexts are
// this error). Test with errors.Is.
var ErrNoContexts = errors.New("sample has no contexts or sources")

// ErrNoReference is returned by scorers that need a reference answer when
// the sample has none (metric.ErrNoReference and judges.ErrNoReference are
// this error). Test with errors.Is.
var ErrNoReference = errors.New("sample has no reference answer")
