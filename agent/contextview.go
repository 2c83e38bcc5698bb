package agent

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/internal/encode"
	"github.com/assaylabs/assay/internal/mdtext"
	"github.com/assaylabs/assay/metric"
)

func contextScorer(s ScorerSpec) eval.Scorer {
	q := heuristics.ContextQuality{}
	if s.Weights != nil {
		q.Weights = *s.Weights
	}
	return q
}

// ContextView is the context card in seed 002's shape: the composite score,
// its four sub-scores, the warning and the CRAG decision. JSON and YAML
// carry the same keys (MarshalYAML).
type ContextView struct {
	Profile               string  `json:"profile" yaml:"profile"`
	Status                string  `json:"status" yaml:"status"`
	Reason                string  `json:"reason" yaml:"reason"`
	Overall               float64 `json:"overall" yaml:"overall"`
	RetrievalConfidence   float64 `json:"retrievalConfidence" yaml:"retrievalConfidence"`
	ContextSufficiency    float64 `json:"contextSufficiency" yaml:"contextSufficiency"`
	DiversityScore        float64 `json:"diversityScore" yaml:"diversityScore"`
	EstimatedFaithfulness float64 `json:"estimatedFaithfulness" yaml:"estimatedFaithfulness"`
	Warning               string  `json:"warning,omitempty" yaml:"warning,omitempty"`
	// Notes say what the input lacked or held outside the usual range
	// (context.text missing, negative rerank scores) and how it was read.
	Notes []string `json:"notes,omitempty" yaml:"notes,omitempty"`
	// Scores are the card's scores besides context_quality (judges the
	// profile defines), in profile order; none in seed 002's card.
	Scores []ScoreRow         `json:"scores,omitempty" yaml:"scores,omitempty"`
	CRAG   CRAGClassification `json:"crag" yaml:"-"`
	// reg names the sub-scores' rows (metric.Entry.Title) in Markdown.
	reg *metric.Registry
}

// ScoreRow is one score of a card besides its own dimensions: its points
// of its maximum on the card, and why.
type ScoreRow struct {
	Metric    string  `json:"metric" yaml:"metric"`
	Points    float64 `json:"points" yaml:"points"`
	Max       float64 `json:"max" yaml:"max"`
	Reason    string  `json:"reason" yaml:"reason"`
	Defaulted bool    `json:"defaulted,omitempty" yaml:"defaulted,omitempty"`
}

// MarshalYAML implements yaml.Marshaler: the card with the keys of its
// JSON, the CRAG action included, which is the seed's tagged union there
// (only the field of its type, kept even when empty).
func (v ContextView) MarshalYAML() (any, error) {
	type action struct {
		Type        CRAGActionType `yaml:"type"`
		SubQueries  *[]string      `yaml:"subQueries,omitempty"`
		SearchQuery *string        `yaml:"searchQuery,omitempty"`
	}
	type crag struct {
		Classification CRAGClass `yaml:"classification"`
		Confidence     float64   `yaml:"confidence"`
		Action         action    `yaml:"action"`
	}
	type plain ContextView // drops this method
	type card struct {
		plain `yaml:",inline"`
		CRAG  crag `yaml:"crag"`
	}
	a := v.CRAG.Action
	act := action{Type: a.Type}
	switch sub, q := a.SubQueries, a.SearchQuery; a.Type {
	case ActionDecompose:
		if sub == nil {
			sub = []string{}
		}
		act.SubQueries = &sub
	case ActionSupplementalSearch:
		act.SearchQuery = &q
	default:
		if len(sub) > 0 {
			act.SubQueries = &sub
		}
		if q != "" {
			act.SearchQuery = &q
		}
	}
	return card{plain: plain(v), CRAG: crag{v.CRAG.Classification, v.CRAG.Confidence, act}}, nil
}

// NewContextView arranges a context card with its CRAG classification of
// the card's overall (ClassifyCRAG, seed 002's thresholds, which the
// built-in context profile's pass rule repeats).
func NewContextView(p *Profile, c eval.Card, s eval.Sample) ContextView {
	v := ContextView{Profile: c.Profile, Status: c.Status, Reason: c.Reason}
	if p != nil {
		v.reg = p.Metrics()
	}
	if sc, ok := c.Get(MetricContextQuality); ok {
		n := sc.Evidence.Counts
		v.Overall = n[heuristics.KeyOverall]
		v.RetrievalConfidence, v.ContextSufficiency = n[heuristics.KeyRetrievalConfidence], n[heuristics.KeyContextSufficiency]
		v.DiversityScore, v.EstimatedFaithfulness = n[heuristics.KeyDiversityScore], n[heuristics.KeyEstimatedFaithfulness]
		// The warning is context_quality's one issue, never read from
		// its reason.
		if len(sc.Evidence.Issues) > 0 {
			v.Warning = sc.Evidence.Issues[0]
		}
		v.Notes = sc.Evidence.Notes
	}
	for _, sc := range c.Scores {
		if sc.Metric != MetricContextQuality {
			v.Scores = append(v.Scores, ScoreRow{Metric: sc.Metric, Points: sc.Points, Max: sc.Max, Reason: sc.Reason, Defaulted: sc.Defaulted})
		}
	}
	v.CRAG = ClassifyCRAG(s.Query, v.Overall)
	return v
}

// AppendJSON appends the card's JSON to b, the bytes encode.JSON writes
// for it (indented, with its final newline), in one pass without
// reflection: the service answers every /v1/context-score with it. A
// number JSON cannot hold (NaN, an infinity: a judge's points, say) is
// encode.JSON's error.
func (v ContextView) AppendJSON(b []byte) ([]byte, error) {
	if !v.finite() {
		var buf bytes.Buffer
		if err := encode.JSON(&buf, v); err != nil {
			return b, err
		}
		return append(b, buf.Bytes()...), nil
	}
	w := encode.Indented{B: b}
	w.Open('{')
	for _, f := range []struct{ k, v string }{{"profile", v.Profile}, {"status", v.Status}, {"reason", v.Reason}} {
		w.Key(f.k)
		w.B = encode.AppendString(w.B, f.v, false)
	}
	for _, f := range []struct {
		k string
		v float64
	}{{"overall", v.Overall}, {"retrievalConfidence", v.RetrievalConfidence}, {"contextSufficiency", v.ContextSufficiency},
		{"diversityScore", v.DiversityScore}, {"estimatedFaithfulness", v.EstimatedFaithfulness}} {
		w.Key(f.k)
		w.B = encode.AppendFloat(w.B, f.v)
	}
	if v.Warning != "" {
		w.Key("warning")
		w.B = encode.AppendString(w.B, v.Warning, false)
	}
	if len(v.Notes) > 0 {
		w.Key("notes")
		appendStrings(&w, v.Notes, false)
	}
	if len(v.Scores) > 0 {
		w.Key("scores")
		w.Open('[')
		for _, r := range v.Scores {
			w.Elem()
			r.appendJSON(&w)
		}
		w.Close(']')
	}
	w.Key("crag")
	v.CRAG.appendJSON(&w)
	w.Close('}')
	w.End()
	return w.B, nil
}

// finite reports whether every number of the card is one JSON can write.
func (v ContextView) finite() bool {
	ok := encode.Finite(v.Overall, v.RetrievalConfidence, v.ContextSufficiency, v.DiversityScore, v.EstimatedFaithfulness, v.CRAG.Confidence)
	for _, r := range v.Scores {
		ok = ok && encode.Finite(r.Points, r.Max)
	}
	return ok
}

func (r ScoreRow) appendJSON(w *encode.Indented) {
	w.Open('{')
	w.Key("metric")
	w.B = encode.AppendString(w.B, r.Metric, false)
	w.Key("points")
	w.B = encode.AppendFloat(w.B, r.Points)
	w.Key("max")
	w.B = encode.AppendFloat(w.B, r.Max)
	w.Key("reason")
	w.B = encode.AppendString(w.B, r.Reason, false)
	if r.Defaulted {
		w.Key("defaulted")
		w.B = append(w.B, "true"...)
	}
	w.Close('}')
}

// appendJSON writes the classification as encoding/json does: its action
// by CRAGAction.MarshalJSON, whose json.Marshal escapes <, > and &.
func (c CRAGClassification) appendJSON(w *encode.Indented) {
	w.Open('{')
	w.Key("classification")
	w.B = encode.AppendString(w.B, string(c.Classification), false)
	w.Key("confidence")
	w.B = encode.AppendFloat(w.B, c.Confidence)
	w.Key("action")
	a := c.Action
	w.Open('{')
	w.Key("type")
	w.B = encode.AppendString(w.B, string(a.Type), true)
	switch a.Type {
	case ActionDecompose:
		w.Key("subQueries")
		appendStrings(w, a.SubQueries, true)
	case ActionSupplementalSearch:
		w.Key("searchQuery")
		w.B = encode.AppendString(w.B, a.SearchQuery, true)
	default:
		if len(a.SubQueries) > 0 {
			w.Key("subQueries")
			appendStrings(w, a.SubQueries, true)
		}
		if a.SearchQuery != "" {
			w.Key("searchQuery")
			w.B = encode.AppendString(w.B, a.SearchQuery, true)
		}
	}
	w.Close('}')
	w.Close('}')
}

// appendStrings writes an array of strings ([] when there are none).
func appendStrings(w *encode.Indented, ss []string, escapeHTML bool) {
	w.Open('[')
	for _, s := range ss {
		w.Elem()
		w.B = encode.AppendString(w.B, s, escapeHTML)
	}
	w.Close(']')
}

// Markdown renders the context card for people.
func (v ContextView) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Context quality: %s (CRAG: %s)\n\n%s\n\n", strings.ToUpper(v.Status), v.CRAG.Classification, v.Reason)
	b.WriteString("| Sub-score | Value |\n|---|---|\n")
	for _, r := range []struct {
		k string
		x float64
	}{
		{heuristics.KeyRetrievalConfidence, v.RetrievalConfidence},
		{heuristics.KeyContextSufficiency, v.ContextSufficiency},
		{heuristics.KeyDiversityScore, v.DiversityScore},
		{heuristics.KeyEstimatedFaithfulness, v.EstimatedFaithfulness},
	} {
		label := ""
		if v.reg != nil {
			label = rowTitle(v.reg, r.k)
		}
		if label == "" {
			label = rowTitle(Builtins(), r.k)
		}
		fmt.Fprintf(&b, "| %s | %.3f |\n", label, r.x)
	}
	fmt.Fprintf(&b, "| **Overall** | %.3f |\n", v.Overall)
	if len(v.Scores) > 0 {
		b.WriteString("\n| Score | Points | Reason |\n|---|---|---|\n")
		for _, r := range v.Scores {
			fmt.Fprintf(&b, "| %s | %s/%s | %s |\n", r.Metric, num2(r.Points), num2(r.Max), mdtext.Cell(r.Reason))
		}
	}
	if v.Warning != "" {
		fmt.Fprintf(&b, "\nWarning: %s\n", v.Warning)
	}
	for i, n := range v.Notes {
		if i == 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Note: %s\n", n)
	}
	fmt.Fprintf(&b, "\nCRAG action: %s", v.CRAG.Action.Type)
	// The queries come from the user's query: escaped, so that a line
	// break or a tag in it cannot start a heading or open HTML.
	if qs := v.CRAG.Action.SubQueries; len(qs) > 0 {
		shown := make([]string, len(qs))
		for i, q := range qs {
			shown[i] = mdtext.Text(q)
		}
		fmt.Fprintf(&b, " (sub-queries: %s)", strings.Join(shown, " | "))
	}
	if v.CRAG.Action.SearchQuery != "" {
		fmt.Fprintf(&b, " (search: %s)", mdtext.Text(v.CRAG.Action.SearchQuery))
	}
	b.WriteString("\n")
	return b.String()
}
