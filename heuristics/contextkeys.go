package heuristics

// Evidence count keys of ContextQuality's score: seed 002's four
// sub-scores and the overall. Code that reads them uses these names.
const (
	KeyRetrievalConfidence   = "retrieval_confidence"
	KeyContextSufficiency    = "context_sufficiency"
	KeyDiversityScore        = "diversity_score"
	KeyEstimatedFaithfulness = "estimated_faithfulness"
	KeyOverall               = "overall"
)
