package eval

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Scorer measures one aspect of a Sample.
//
// A Scorer returns an error only when it cannot produce a Score at all
// (a cancelled context, input it cannot read). A model that fails is not such
// an error: the judge returns a Score with Defaulted set, so the failure is
// counted and shown rather than lost. Nor is a sample with nothing to judge
// (an empty answer): the Score has Skipped set, with the reason.
type Scorer interface {
	Score(ctx context.Context, s Sample) (Score, error)
}

// Score is one measurement of a Sample.
type Score struct {
	// Metric names what was measured ("grounding", "faithfulness").
	Metric string `json:"metric"`
	// Value is the normalised score in [0, 1].
	Value float64 `json:"value"`
	// Points out of Max is the score on its native scale.
	Points float64 `json:"points"`
	Max    float64 `json:"max"`
	// Reason says in one sentence why the score is what it is.
	Reason string `json:"reason,omitempty"`
	// Method names how the score was computed ("heuristic",
	// "offline (approximate)", "llm:gpt-4o-mini").
	Method   string   `json:"method,omitempty"`
	Evidence Evidence `json:"evidence,omitzero"`
	Usage    Usage    `json:"usage,omitzero"`
	// Defaulted is true when the scorer failed and the neutral default was
	// used instead; Err then holds the failure.
	Defaulted bool `json:"defaulted,omitempty"`
	// Skipped is true when the scorer had nothing to judge (no answer, an
	// answer with no claim to check): the sample is not scored. Value and
	// Points are 0 and mean nothing; Reason says why and Err holds the
	// cause (ErrNoAnswer, ErrNoClaims, ErrNoSections). A skipped score is counted apart,
	// like a default, never averaged in and never passing a gate.
	Skipped bool `json:"skipped,omitempty"`
	// Pass, when not nil, is the verdict of the card this score totals
	// (a research card's status is pass), which its value against a
	// threshold cannot tell: summaries count it in place of the value's.
	Pass *bool `json:"pass,omitempty"`
	Err  error `json:"-"`
}

// Counted reports whether the score is a measurement that may enter means
// and pass gates: neither a neutral default nor skipped.
func (s Score) Counted() bool { return !s.Defaulted && !s.Skipped }

// Evidence is what a Score rests on, so that a reader can check it.
type Evidence struct {
	// Claims are the claims examined, each with its verdict.
	Claims []Claim `json:"claims,omitempty" yaml:"claims,omitempty"`
	// Sources are the sources examined, each with its rating.
	Sources []SourceRating `json:"sources,omitempty" yaml:"sources,omitempty"`
	// Gaps are aspects of the query the answer does not cover.
	Gaps []string `json:"gaps,omitempty" yaml:"gaps,omitempty"`
	// Issues are problems found (structure, readability, repetition).
	Issues []string `json:"issues,omitempty" yaml:"issues,omitempty"`
	// Notes are remarks on the input that do not change the score: fields
	// that were missing, or values outside the usual range, and how the
	// scorer read them ("context.text is missing: ...").
	Notes []string `json:"notes,omitempty" yaml:"notes,omitempty"`
	// Counts are named measurements behind the score
	// ("total_claims", "unique_domains").
	Counts map[string]float64 `json:"counts,omitempty" yaml:"counts,omitempty"`
}

// Verdicts a claim can receive.
const (
	VerdictCited   = "cited"
	VerdictUncited = "uncited"
	// VerdictCitedNoQuote is a claim whose only citations are links without
	// the quote of seed 000's [text](url "quote"); a profile decides
	// whether it counts as cited.
	VerdictCitedNoQuote = "cited_without_quote"
	VerdictSupported    = "supported"
	VerdictUnsupported  = "unsupported"
	// VerdictUnjudged is a claim a model judge gave no verdict for, even
	// when asked again; it counts as not supported.
	VerdictUnjudged = "unjudged"
)

// Claim is a verifiable statement found in an answer.
type Claim struct {
	Text string `json:"text" yaml:"text"`
	// Line is the 1-based line of the answer where the claim starts.
	Line int `json:"line,omitempty" yaml:"line,omitempty"`
	// Section is the heading the claim sits under.
	Section   string     `json:"section,omitempty" yaml:"section,omitempty"`
	Verdict   string     `json:"verdict" yaml:"verdict"`
	Citations []Citation `json:"citations,omitempty" yaml:"citations,omitempty"`
	// SourceID names the context that supports the claim, when one does.
	SourceID string `json:"source_id,omitempty" yaml:"source_id,omitempty"`
	// Check, for a claim a fact-checking model verified (--checker),
	// says which model and how sure it was.
	Check *ClaimCheck `json:"check,omitempty" yaml:"check,omitempty"`
}

// How a fact checker's probability of support was measured.
const (
	// CheckLogprobs: from the log-probabilities of its Yes and No tokens.
	CheckLogprobs = "logprobs"
	// CheckSampled: from its sampled answer alone (1 for Yes, 0 for No),
	// the server having served no log-probabilities.
	CheckSampled = "sampled"
)

// ClaimCheck is a fact-checking model's verdict on one claim: the
// document was split into Chunks, checked in order until one supported
// the claim (Chunk, 1-based; 0 when none did).
type ClaimCheck struct {
	// Checker names the model ("openai:bespoke-minicheck").
	Checker string `json:"checker" yaml:"checker"`
	// Probability is the probability of support of the chunk that
	// supported the claim, or the highest of all when none did.
	Probability float64 `json:"probability" yaml:"probability"`
	// From is CheckLogprobs or CheckSampled.
	From   string `json:"from" yaml:"from"`
	Chunk  int    `json:"chunk,omitempty" yaml:"chunk,omitempty"`
	Chunks int    `json:"chunks" yaml:"chunks"`
}

// Citation kinds.
const (
	CiteInline   = "inline"   // [text](url "quote"), seed 000's format
	CiteLink     = "link"     // [text](url)
	CiteNumbered = "numbered" // [1] resolved through a Sources list
	CiteFootnote = "footnote" // [^1]
)

// Citation is one reference from a claim to a source.
type Citation struct {
	Kind string `json:"kind" yaml:"kind"`
	// Ref is the label of a numbered or footnote citation ("1").
	Ref  string `json:"ref,omitempty" yaml:"ref,omitempty"`
	Text string `json:"text,omitempty" yaml:"text,omitempty"`
	URL  string `json:"url,omitempty" yaml:"url,omitempty"`
	// Quote is the quoted source text (the link title in seed 000's format).
	Quote string `json:"quote,omitempty" yaml:"quote,omitempty"`
}

// SourceRating is a rating given to one source.
type SourceRating struct {
	URL    string  `json:"url" yaml:"url"`
	Domain string  `json:"domain,omitempty" yaml:"domain,omitempty"`
	Rating float64 `json:"rating" yaml:"rating"`
	// Basis explains the rating ("tier gov 10, -1 no author").
	Basis string `json:"basis,omitempty" yaml:"basis,omitempty"`
}

// Usage is what model calls cost: one call's, a Score's (Recorded) or a
// whole run's (their Add). Its JSON and YAML keys are those results.jsonl,
// cards and the reply cache were written with; a zero field is left out.
type Usage struct {
	Calls     int           `json:"calls,omitempty" yaml:"calls,omitempty"`
	TokensIn  int           `json:"tokens_in,omitempty" yaml:"tokens_in,omitempty"`
	TokensOut int           `json:"tokens_out,omitempty" yaml:"tokens_out,omitempty"`
	Latency   time.Duration `json:"latency_ns,omitempty,format:nano" yaml:"latency,omitempty"` // YAML: a duration, "1.2s"; JSON: nanoseconds (format:nano says so to encoding/json/v2)
	CostUSD   float64       `json:"cost_usd,omitempty" yaml:"cost_usd,omitempty"`
	// CostUnknown is true when a call went to a model the price table
	// lacks: CostUSD then counts only the priced calls, and is shown as
	// unknown, never as $0.
	CostUnknown bool `json:"cost_unknown,omitempty" yaml:"cost_unknown,omitempty"`
	// CacheHits counts the replies served from the response cache, and
	// CachedTokensIn and CachedTokensOut their tokens: not paid for, so
	// Calls, TokensIn, TokensOut and CostUSD leave them out (a cache hit
	// counts no call, no token and no cost).
	CacheHits       int `json:"cache_hits,omitempty" yaml:"cache_hits,omitempty"`
	CachedTokensIn  int `json:"cached_tokens_in,omitempty" yaml:"cached_tokens_in,omitempty"`
	CachedTokensOut int `json:"cached_tokens_out,omitempty" yaml:"cached_tokens_out,omitempty"`
	// Fingerprints are the distinct system fingerprints of the model
	// builds that answered (OpenAI's system_fingerprint), and Seeds the
	// distinct seeds the requests asked for; each a set as MergeSet keeps
	// it (sorted, space-separated), empty when there was none. A change
	// of fingerprint between two runs is a change of the judge.
	Fingerprints string `json:"fingerprints,omitempty" yaml:"fingerprints,omitempty"`
	Seeds        string `json:"seeds,omitempty" yaml:"seeds,omitempty"`

	// The rest is how the model client got its replies, which a run's
	// report counts and a Score does not record (Recorded).

	// Estimated is true when a token count came from our tokenizer because
	// the server reported none.
	Estimated bool `json:"estimated,omitempty" yaml:"estimated,omitempty"`
	// Retries counts the attempts after each call's first.
	Retries int `json:"retries,omitempty" yaml:"retries,omitempty"`
	// Hedges counts the second requests sent for attempts that outlived
	// their deadline; Calls counts them too.
	Hedges int `json:"hedges,omitempty" yaml:"hedges,omitempty"`
	// BatchCalls counts the calls answered by a batch, at the batch
	// price; Calls counts them too.
	BatchCalls int `json:"batch_calls,omitempty" yaml:"batch_calls,omitempty"`
	// CacheErrors counts the cache's failed reads and writes (the calls
	// went on without it).
	CacheErrors int `json:"cache_errors,omitempty" yaml:"cache_errors,omitempty"`
}

// Recorded is u as a Score or an event records it: what the calls cost
// (calls, tokens, latency, cost, the cache's share, fingerprints, seeds),
// without how the client got its replies (estimated tokens, retries,
// hedges, batch calls, cache errors).
func (u Usage) Recorded() Usage {
	u.Estimated, u.Retries, u.Hedges, u.BatchCalls, u.CacheErrors = false, 0, 0, 0, 0
	return u
}

// MergeSet is the union of two sets as Usage keeps them: distinct words,
// sorted, joined by single spaces ("" is the empty set).
func MergeSet(a, b string) string {
	if b == "" || a == b {
		return a
	}
	if a == "" {
		return b
	}
	words := append(strings.Fields(a), strings.Fields(b)...)
	slices.Sort(words)
	return strings.Join(slices.Compact(words), " ")
}

// Cost is the cost as shown: "$0.0123", or "unknown" when a call went to
// a model with no price.
func (u Usage) Cost() string {
	if u.CostUnknown {
		return "unknown"
	}
	return fmt.Sprintf("$%.4f", u.CostUSD)
}

// Add returns the sum of two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		Calls:       u.Calls + v.Calls,
		TokensIn:    u.TokensIn + v.TokensIn,
		TokensOut:   u.TokensOut + v.TokensOut,
		Estimated:   u.Estimated || v.Estimated,
		Retries:     u.Retries + v.Retries,
		Hedges:      u.Hedges + v.Hedges,
		BatchCalls:  u.BatchCalls + v.BatchCalls,
		CacheErrors: u.CacheErrors + v.CacheErrors,
		Latency:     u.Latency + v.Latency,
		CostUSD:     u.CostUSD + v.CostUSD,
		CostUnknown: u.CostUnknown || v.CostUnknown,

		CacheHits:       u.CacheHits + v.CacheHits,
		CachedTokensIn:  u.CachedTokensIn + v.CachedTokensIn,
		CachedTokensOut: u.CachedTokensOut + v.CachedTokensOut,
		Fingerprints:    MergeSet(u.Fingerprints, v.Fingerprints),
		Seeds:           MergeSet(u.Seeds, v.Seeds),
	}
}
