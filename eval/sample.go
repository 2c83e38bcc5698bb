package eval

import "time"

// Sample is the thing judged: a research report or a RAG answer, with the
// query that asked for it and the sources or retrieved contexts behind it.
//
// Every field is optional for the type; each scorer documents which fields it
// reads and what it does when they are empty.
type Sample struct {
	// ID names the sample in datasets and run files.
	ID string `json:"id,omitempty"`
	// Query is the question or research query.
	Query string `json:"query,omitempty"`
	// Answer is the text judged: a Markdown report or a RAG answer.
	Answer string `json:"answer,omitempty"`
	// Sources are the retrieved contexts or fetched sources, in rank order.
	Sources []Source `json:"sources,omitempty"`
	// Context is the assembled context handed to the generator, when known
	// (seed 002's AssembledContext).
	Context *Context `json:"context,omitempty"`
	// Reference is a reference (gold) answer, when the dataset has one.
	Reference string `json:"reference,omitempty"`
	// GroundTruth holds known true values (numbers, percentiles) by name.
	GroundTruth map[string]float64 `json:"ground_truth,omitempty"`
	// Metadata is carried through untouched.
	Metadata map[string]any `json:"metadata,omitempty"`

	// Messages is the conversation judged, when the sample is one (an
	// agent's or a chat assistant's): OpenAI chat messages, with the
	// tools the assistant called and their results.
	Messages []Message `json:"messages,omitempty"`
	// ExpectedToolCalls are the tool calls the conversation should make;
	// Ordered says their order matters.
	ExpectedToolCalls []ExpectedToolCall `json:"expected_tool_calls,omitempty"`
	Ordered           bool               `json:"ordered,omitempty"`
	// NotEvaluable, when set, says why the conversation cannot be judged
	// (spans that carry no message content): its scores are skipped as
	// ErrNotEvaluable.
	NotEvaluable string `json:"not_evaluable,omitempty"`
}

// Context is the context assembled from the retrieved chunks.
type Context struct {
	Text       string `json:"text"`
	TokenCount int    `json:"tokenCount"`
	// TextMissing is set when the input gave no text (the field missing or
	// null), as opposed to an empty one; Text is then "". Scorers report
	// it rather than score it differently.
	TextMissing bool `json:"textMissing,omitempty"`
}

// Source is one retrieved context or fetched source.
//
// Metadata that may be unknown is a pointer or a zero value documented as
// "unknown", so that scorers apply adjustments only where the fact is known.
type Source struct {
	// ID identifies the source (a document ID for retrieval chunks).
	ID    string `json:"id,omitempty"`
	URL   string `json:"url,omitempty"`
	Title string `json:"title,omitempty"`
	// Text is the source's content (a chunk, or the extracted page).
	Text string `json:"text,omitempty"`
	// Score is the retrieval score; RerankScore the reranker's, when run.
	Score       float64  `json:"score,omitempty"`
	RerankScore *float64 `json:"rerank_score,omitempty"`
	// Published is the publication time; the zero Time means unknown.
	Published time.Time `json:"published,omitzero"`
	// Author is the byline; "" means unknown unless AuthorKnown is set,
	// in which case the source is known to carry no author.
	Author      string `json:"author,omitempty"`
	AuthorKnown bool   `json:"author_known,omitempty"`
	// AuthorVerified is true when the author's credentials were checked.
	AuthorVerified *bool `json:"author_verified,omitempty"`
	// References is how many references the source itself cites; nil means
	// unknown.
	References *int `json:"references,omitempty"`
	// Credibility, when set, is a credibility score 1..10 given by the user
	// (seed 000's validated_citations); it takes precedence over the tiers.
	Credibility *float64 `json:"credibility,omitempty"`
	// Metadata is carried through untouched (seed 002 reads sectionTitle).
	Metadata map[string]any `json:"metadata,omitempty"`
}
