package heuristics

// Evidence count keys (eval.Evidence.Counts) of the scorers here. Code
// that reads a count uses these names.
const (
	// ContextQuality: seed 002's four sub-scores and the overall.
	KeyRetrievalConfidence   = "retrieval_confidence"
	KeyContextSufficiency    = "context_sufficiency"
	KeyDiversityScore        = "diversity_score"
	KeyEstimatedFaithfulness = "estimated_faithfulness"
	KeyOverall               = "overall"

	// Grounding: the claims, those cited, and the share cited in percent.
	KeyTotalClaims         = "total_claims"
	KeyCitedClaims         = "cited_claims"
	KeyCitationCoveragePct = "citation_coverage_pct"
	// KeyCitedWithoutQuote counts the claims cited only by links without
	// their quote, whether or not the profile counts them as cited.
	KeyCitedWithoutQuote = "cited_without_quote"

	// SourceQuality: the sources' mean credibility (1-10).
	KeyAvgCredibility = "avg_credibility"

	// Diversity: distinct sources and domains.
	KeyUniqueSources = "unique_sources"
	KeyUniqueDomains = "unique_domains"
)
