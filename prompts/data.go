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

// DefinedSteps feeds defined.steps: the evaluation steps of a judge a user
// defined without them. Its fields are the judge's definition, written by
// whoever runs it (Fields names the fields it reads, comma separated).
type DefinedSteps struct {
	Criterion string `json:"criterion"`
	Scale     string `json:"scale"`
	Fields    string `json:"fields"`
}

// DefinedGrade feeds defined.grade: one sample graded by a judge a user
// defined in a judges file. Everything but the fields' Text is the judge's
// definition, instructions written by whoever runs it; each field's Text is
// the sample's, untrusted, and reaches the prompt only inside a block.
type DefinedGrade struct {
	// Version is the definition's hash, so the cache key changes with it.
	Version   string       `json:"version"`
	Criterion string       `json:"criterion"`
	Steps     []string     `json:"steps"`
	Scale     string       `json:"scale"`
	Rubric    []RubricLine `json:"rubric,omitempty"`
	// Grades is how the reply writes a grade: "1-5", "\"pass\" or \"fail\"".
	Grades string  `json:"grades"`
	Fields []Field `json:"fields"`
	// Examples are samples people graded, shown before the sample (a
	// judges file's examples: few-shot); their text is untrusted too.
	Examples []GradedExample `json:"examples,omitempty"`
}

// GradedExample is one sample a person graded, shown to a judge: its
// fields, as the judge reads them, and the grade.
type GradedExample struct {
	Fields []Field `json:"fields"`
	Grade  string  `json:"grade"`
}

// AlignCriterion feeds align.criterion: a judge's criterion and samples
// where the judge and people disagreed, to be reworded.
type AlignCriterion struct {
	Criterion string `json:"criterion"`
	Scale     string `json:"scale"`
	// Misses are the samples the judge graded otherwise than people, each
	// with the people's grade.
	Misses []GradedExample `json:"misses"`
	// N is how many rewrites to propose.
	N int `json:"n"`
}

// AlignRubric feeds align.rubric: a judge's criterion and graded scale,
// to write an anchor for each grade.
type AlignRubric struct {
	Criterion string `json:"criterion"`
	Scale     string `json:"scale"`
	// Grades are the scale's grades, lowest first.
	Grades   []string        `json:"grades"`
	Examples []GradedExample `json:"examples"`
}

// RubricLine says what one grade of a scale means.
type RubricLine struct {
	Grade string `json:"grade"`
	Text  string `json:"text"`
}

// Field is one field of a sample a judge reads: its name as the judges
// file writes it ("question", "metadata.policy"), the label of its block
// (lower-case letters) and its text.
type Field struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	Text  string `json:"text"`
}
