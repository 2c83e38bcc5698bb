package eval

// Statuses of a Card.
const (
	StatusPass     = "pass"
	StatusIterate  = "iterate"
	StatusFail     = "fail"
	StatusRejected = "rejected"
)

// Card is the verdict of a profile on a Sample: every score, the total, the
// status, why, and the ordered fixes.
type Card struct {
	Profile string  `json:"profile"`
	Status  string  `json:"status"`
	Reason  string  `json:"reason"`
	Scores  []Score `json:"scores"`
	// Total is the sum of the weighted points; Max the most it can be.
	Total float64 `json:"total"`
	Max   float64 `json:"max"`
	// PassThreshold is the total at or above which the card can pass.
	PassThreshold float64 `json:"pass_threshold"`
	Fixes         []Fix   `json:"fixes"`
	// Defaulted counts the scores that fell back to a neutral default.
	Defaulted int `json:"defaulted"`
	// Judge names what judged the model-based dimensions: "llm:openai:gpt-4o"
	// or "offline (approximate)" when no model was configured.
	Judge string `json:"judge,omitempty"`
	Usage Usage  `json:"usage,omitzero"`
}

// Fix is one repair suggested for a card that did not pass, in the order of
// seed 001's priority queue.
type Fix struct {
	Priority  int    `json:"priority"`
	Dimension string `json:"dimension"`
	Action    string `json:"action"`
	// RerunStages are the research-workflow stages the fix re-runs
	// (1 search ... 6 score).
	RerunStages []int `json:"rerun_stages"`
}

// Get returns the score of the named metric and whether the card has it.
func (c Card) Get(metric string) (Score, bool) {
	for _, s := range c.Scores {
		if s.Metric == metric {
			return s, true
		}
	}
	return Score{}, false
}
