package prompts

// The typed data each template takes. Every string field is untrusted and
// reaches the prompt only inside a nonce-tagged block.

// Passage is one retrieved context or source.
type Passage struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	Text  string `json:"text"`
}

// ExtractClaims feeds faithfulness.claims.
type ExtractClaims struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// VerifyClaims feeds faithfulness.verify and context_recall.
type VerifyClaims struct {
	Claims   []string  `json:"claims"`
	Contexts []Passage `json:"contexts"`
}

// ClassifyStatements feeds correctness.classify: the statements of an
// answer and of its reference, to be marked against each other.
type ClassifyStatements struct {
	Question  string   `json:"question"`
	Answer    []string `json:"answer"`
	Reference []string `json:"reference"`
}

// QA feeds the templates that judge an answer to a question.
type QA struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// GenerateQuestions feeds relevancy.questions.
type GenerateQuestions struct {
	Answer string `json:"answer"`
	N      int    `json:"n"`
}

// RankedContexts feeds context_precision: the contexts in retrieval order
// and what a useful context would help to say.
type RankedContexts struct {
	Question  string    `json:"question"`
	Reference string    `json:"reference"`
	Contexts  []Passage `json:"contexts"`
}

// SourceQuery feeds source_relevance.
type SourceQuery struct {
	Question string  `json:"question"`
	Source   Passage `json:"source"`
}

// Synthesis feeds research.synthesize.
type Synthesis struct {
	Question string    `json:"question"`
	Sources  []Passage `json:"sources"`
	// Tidy asks for the clarity fix's restructuring.
	Tidy bool `json:"tidy"`
}

// Explanation feeds research.explain: what a run searched and dropped.
type Explanation struct {
	Question string   `json:"question"`
	Mode     string   `json:"mode"`
	Needed   int      `json:"needed"`
	Searches []string `json:"searches"`
	Dropped  []string `json:"dropped"`
}
