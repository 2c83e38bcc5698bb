package heuristics

// CRAGRouter classifies an overall context quality with configurable
// thresholds; its zero value uses seed 002's (0.7 and 0.3). Profiles set
// them from their pass rule, so the card's status and the CRAG decision
// always agree.
type CRAGRouter struct {
	// Correct: an overall at or above it is correct (0 means 0.7).
	Correct float64
	// Incorrect: an overall at or below it is incorrect (0 means 0.3).
	Incorrect float64
}

// Classify returns the classification and action for an overall quality.
func (r CRAGRouter) Classify(query string, overall float64) CRAGClassification {
	correct, incorrect := orDefault(r.Correct, DefaultCRAGCorrect), orDefault(r.Incorrect, DefaultCRAGIncorrect)
	switch {
	case overall >= correct:
		return CRAGClassification{Classification: CRAGCorrect, Confidence: overall, Action: CRAGAction{Type: ActionUseRetrieved}}
	case overall <= incorrect:
		return CRAGClassification{Classification: CRAGIncorrect, Confidence: 1 - overall,
			Action: CRAGAction{Type: ActionSupplementalSearch, SearchQuery: reformulateQuery(query)}}
	}
	return CRAGClassification{Classification: CRAGAmbiguous, Confidence: overall,
		Action: CRAGAction{Type: ActionDecompose, SubQueries: decomposeQuery(query)}}
}
