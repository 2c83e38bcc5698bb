// Package daily holds seed 003's five scorers of a generated daily report,
// judged against the data it was written from: faithfulness to the ground
// truth, completeness, reasoning quality, compliance with the report's
// format, and the quality of service of the run that produced it.
//
// The domain is data: a [Profile] names the metrics and the words that name
// them, the interpretation bands, the sections, the word lists and the
// thresholds, per language. The built-in profile ([Default]) is the seed's
// Thai stock report, with English patterns for reports of the same shape.
// Scoring is deterministic: no clock, no network, no model.
package daily

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/yamlpath"
)

//go:embed daily.yaml
var defaultYAML []byte

// Words are a list of words or phrases per language ("th", "en").
type Words map[string][]string

// all returns every language's words, longest first.
func (w Words) all() []string {
	var out []string
	for _, l := range w {
		out = append(out, l...)
	}
	slices.SortFunc(out, func(a, b string) int {
		if d := len(b) - len(a); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return slices.Compact(out)
}

// Metric is a value of the ground truth a report may claim a number for.
type Metric struct {
	Name  string `yaml:"name"`
	Label string `yaml:"label"`
	// TolerancePct is the relative tolerance of a claim, in percent of
	// the true value.
	TolerancePct float64 `yaml:"tolerance_pct"`
	// Unit is "%" (written with a percent sign), "" (without one) or
	// "any".
	Unit string `yaml:"unit"`
	// Required marks the market-condition metrics every report carries.
	Required bool `yaml:"required"`
	// Dimension is the analysis dimension it belongs to (volatility,
	// sentiment, volume, technical, fundamental, positioning, state).
	Dimension string `yaml:"dimension"`
	// Signed: the value has a direction (a price above or below VWAP).
	// Its number takes the sign written ("-7.3%", "−7.3%") or the
	// direction word beside it ("7.3% below VWAP" is -7.3); a number with
	// neither states a distance and is checked against the true value's
	// magnitude.
	Signed bool  `yaml:"signed"`
	Names  Words `yaml:"names"`
}

// Band is one interpretation band of a metric, bounded below by GE
// (value >= GE) or GT (value > GT) and above by LT (value < LT) or LE
// (value <= LE); an open end is left out. Min and Max, of earlier
// profiles, are GE and LT.
type Band struct {
	Label string   `yaml:"label"`
	GE    *float64 `yaml:"ge"`
	GT    *float64 `yaml:"gt"`
	LT    *float64 `yaml:"lt"`
	LE    *float64 `yaml:"le"`
	Min   *float64 `yaml:"min"`
	Max   *float64 `yaml:"max"`
	// Words name the band outright ("strong buying pressure").
	Words Words `yaml:"words"`
	// Strengthens names another band of the metric whose word, with one
	// of Qualifiers beside it in either order, names this band
	// ("buying pressure stays strong" is strong buying).
	Strengthens string `yaml:"strengthens"`
	Qualifiers  Words  `yaml:"qualifiers"`
}

// Holds reports whether v falls in the band.
func (b Band) Holds(v float64) bool {
	lo, hi := b.lower(), b.upper()
	return (lo.at == nil || v > *lo.at || lo.closed && v == *lo.at) && (hi.at == nil || v < *hi.at || hi.closed && v == *hi.at)
}

// bound is one end of a band: its value (nil: open) and whether the band
// holds it.
type bound struct {
	at     *float64
	closed bool
}

func (b Band) lower() bound {
	switch {
	case b.GT != nil:
		return bound{b.GT, false}
	case b.GE != nil:
		return bound{b.GE, true}
	}
	return bound{b.Min, true}
}

func (b Band) upper() bound {
	switch {
	case b.LE != nil:
		return bound{b.LE, true}
	case b.LT != nil:
		return bound{b.LT, false}
	}
	return bound{b.Max, false}
}

// BandSet is the bands of one metric.
type BandSet struct {
	Metric string `yaml:"metric"`
	Bands  []Band `yaml:"bands"`
}

// Section is one of the report's required sections.
type Section struct {
	Key    string `yaml:"key"`
	Label  string `yaml:"label"`
	Marker string `yaml:"marker"`
	Names  Words  `yaml:"names"`
	// Sentences and Paragraphs bound the section's length, [min, max].
	Sentences  []int `yaml:"sentences"`
	Paragraphs []int `yaml:"paragraphs"`
	// RequiredMetrics: the section carries every required metric.
	RequiredMetrics bool `yaml:"required_metrics"`
	// WarnsWithMetrics: the section names at least one required metric
	// with a number (the seed's risk section "warns about risks using the
	// market condition metrics").
	WarnsWithMetrics bool `yaml:"warns_with_metrics"`
}

// Length bounds the whole report.
type Length struct {
	MaxLines     int   `yaml:"max_lines"`
	MinWords     int   `yaml:"min_words"`
	MaxWords     int   `yaml:"max_words"`
	OptimalWords []int `yaml:"optimal_words"`
	// MaxSentenceWords is the longest clear sentence, per language, in
	// words as textseg.WordCount counts them (which counts about two
	// words for each Thai word: one per two letters).
	MaxSentenceWords map[string]int `yaml:"max_sentence_words"`
}

// Recommendation is one action a report may recommend: a phrase of
// Words ("take profit", "ถือต่อ"), one of Verbs after one of the profile's
// recommendation modals ("we would sell", "ควรขาย"), a verb opening a
// sentence of the recommendation section ("Hold, because ..."), or the
// label itself written in capitals ("HOLD").
type Recommendation struct {
	Label string `yaml:"label"`
	Words Words  `yaml:"words"`
	Verbs Words  `yaml:"verbs"`
}

// Directions are the words that give a signed metric's number its
// direction: "7.3% below VWAP", "ต่ำกว่า VWAP 7.3%".
type Directions struct {
	Above Words `yaml:"above"`
	Below Words `yaml:"below"`
}

// Cues are the words that change how the words around them read.
type Cues struct {
	// Negation: a band word or a recommendation shortly after one, in
	// the same clause, is not said ("not high", "ไม่มีแรงขาย", "we
	// would not sell").
	Negation Words `yaml:"negation"`
	// Condition: a recommendation after one in its sentence, or before
	// one in its clause, is a plan, not the report's action ("sell if it
	// breaks 190", "หากหลุด 190 ควรขาย").
	Condition Words `yaml:"condition"`
	// Modals introduce a recommendation's verb ("would", "should",
	// "recommend", "ควร", "แนะนำให้").
	Modals Words `yaml:"modals"`
	// NotRecommendations are phrases that hold a recommendation's word
	// without recommending ("selling pressure", "profit-taking",
	// "การขายทำกำไร").
	NotRecommendations Words `yaml:"not_recommendations"`
	// Hypothetical: with the condition words, they open what a report
	// supposes rather than states ("wait for RSI to cool below 70",
	// "จนกว่าปริมาณจะสูงกว่า 1.2 เท่า"). A number, percentile or band word
	// after one in its clause, or anywhere in a sentence that opens with
	// one, is not a claim about today's value and is not checked.
	Hypothetical Words `yaml:"hypothetical"`
	// HypotheticalOpeners suppose only when they open a sentence, as in
	// an inversion ("Should RSI climb past 75, ...").
	HypotheticalOpeners Words `yaml:"hypothetical_openers"`
	// NotHypothetical are phrases holding a hypothetical word without
	// supposing anything ("เมื่อวาน", yesterday; "until now"); they are
	// read first.
	NotHypothetical Words `yaml:"not_hypothetical"`
	// ChangeVerbs and ChangeUnits mark the day's move: a number right
	// after a change verb and followed by a change unit ("fell 4 points",
	// "ลดลง 3.2 จุด") is how far the metric moved, not its value, and is
	// not a claim; the level that follows ("to 58") is.
	ChangeVerbs Words `yaml:"change_verbs"`
	ChangeUnits Words `yaml:"change_units"`
}

// WordLists are the scorers' word lists.
type WordLists struct {
	Vague       Words `yaml:"vague"`
	CauseEffect Words `yaml:"cause_effect"`
	Generic     Words `yaml:"generic"`
	Filler      Words `yaml:"filler"`
	Comparison  Words `yaml:"comparison"`
	Trend       Words `yaml:"trend"`
	Timeframe   Words `yaml:"timeframe"`
	Risk        Words `yaml:"risk"`
	LowRisk     Words `yaml:"low_risk"`
	HighRisk    Words `yaml:"high_risk"`
	Technical   Words `yaml:"technical"`
	Fundamental Words `yaml:"fundamental"`
	Strategies  Words `yaml:"strategies"`
}

// Weights of overall_quality.
type Weights struct {
	Faithfulness float64 `yaml:"faithfulness"`
	Completeness float64 `yaml:"completeness"`
	Reasoning    float64 `yaml:"reasoning"`
	Compliance   float64 `yaml:"compliance"`
}

// named are the four numbers of w with their keys, in the file's order.
func (w Weights) named() []struct {
	key string
	v   float64
} {
	return []struct {
		key string
		v   float64
	}{{"faithfulness", w.Faithfulness}, {"completeness", w.Completeness}, {"reasoning", w.Reasoning}, {"compliance", w.Compliance}}
}

// Step is one step of a QoS threshold table: values below Max, or at or
// below LE (one of the two), score Score; the last step, with neither,
// takes any value. Seed 003's "10-20s (acceptable), >20s (poor)" holds
// 20 s in the acceptable step: le: 20.
type Step struct {
	Max   *float64 `yaml:"max"`
	LE    *float64 `yaml:"le"`
	Score float64  `yaml:"score"`
	Label string   `yaml:"label"`
}

// bound is the step's bound, max or le, and whether a value equal to it
// is held (le); nil on the last step.
func (s Step) bound() (at *float64, key string, inclusive bool) {
	if s.LE != nil {
		return s.LE, "le", true
	}
	return s.Max, "max", false
}

// holds reports whether v falls in the step (its bound is not passed).
func (s Step) holds(v float64) bool {
	at, _, inclusive := s.bound()
	return at == nil || v < *at || inclusive && v == *at
}

// QoSRules are the QoS scorer's thresholds and penalties.
type QoSRules struct {
	LatencyS               []Step  `yaml:"latency_s"`
	CostUSD                []Step  `yaml:"cost_usd"`
	ReliabilityErrorScore  float64 `yaml:"reliability_error_score"`
	VeryHighLatencyS       float64 `yaml:"very_high_latency_s"`
	VeryHighLatencyPenalty float64 `yaml:"very_high_latency_penalty"`
	DBQueries              struct {
		Some        int     `yaml:"some"`
		Many        int     `yaml:"many"`
		SomePenalty float64 `yaml:"some_penalty"`
		ManyPenalty float64 `yaml:"many_penalty"`
	} `yaml:"db_queries"`
	LLMCalls struct {
		Max     int     `yaml:"max"`
		Penalty float64 `yaml:"penalty"`
	} `yaml:"llm_calls"`
	Trend struct {
		DegradingRatio   float64 `yaml:"degrading_ratio"`
		SevereRatio      float64 `yaml:"severe_ratio"`
		DegradingPenalty float64 `yaml:"degrading_penalty"`
		SeverePenalty    float64 `yaml:"severe_penalty"`
	} `yaml:"trend"`
}

// Profile is a daily report's domain: what it claims, how it is laid out
// and how it is judged. Build one with [ParseProfile] (or [Default]); a
// Profile is read-only once built and safe for concurrent use.
type Profile struct {
	Name string `yaml:"name"`
	// Kind is "daily": it tells a daily profile file from the other
	// profiles of assay score.
	Kind                string           `yaml:"kind"`
	Description         string           `yaml:"description"`
	Languages           []string         `yaml:"languages"`
	Metrics             []Metric         `yaml:"metrics"`
	LinkWords           Words            `yaml:"link_words"`
	DirectionWords      Directions       `yaml:"direction_words"`
	Cues                Cues             `yaml:"cues"`
	PercentileWords     Words            `yaml:"percentile_words"`
	PercentileTolerance float64          `yaml:"percentile_tolerance"`
	Bands               []BandSet        `yaml:"bands"`
	Sections            []Section        `yaml:"sections"`
	Length              Length           `yaml:"length"`
	Recommendations     []Recommendation `yaml:"recommendations"`
	Words               WordLists        `yaml:"words"`
	Overall             Weights          `yaml:"overall"`
	Gate                Weights          `yaml:"gate"`
	QoSRules            QoSRules         `yaml:"qos"`
	// NotChecked names the checks the seed asks for that no
	// deterministic rule makes; every card lists them.
	NotChecked []string `yaml:"not_checked"`

	m *matcher // compiled word look-ups
}

// Default returns the built-in daily profile (seed 003's Thai report, read
// in Thai or English), parsed on its first call, not when the program
// starts (see DefaultGate).
func Default() *Profile { return defaultProfile() }

// defaultProfile is Default, built on its first call.
var defaultProfile = sync.OnceValue(func() *Profile {
	p, err := ParseProfile("daily.yaml", defaultYAML)
	if err != nil {
		panic("daily: built-in profile: " + err.Error())
	}
	return p
})

// DefaultGate returns the built-in profile's gate, Default().Gate, read
// from its file alone: the metric registry takes the daily thresholds from
// it whenever the program starts, and parsing the whole profile for them
// (about 8,700 allocations, a millisecond and more) would slow every
// command, --help included. The whole profile is parsed when it is first
// needed (Default).
func DefaultGate() Weights { return defaultGate() }

// defaultGate is DefaultGate, built on its first call.
var defaultGate = sync.OnceValue(func() Weights {
	g, err := gateOf(defaultYAML)
	if err != nil {
		panic("daily: built-in profile: " + err.Error())
	}
	return g
})

// gateOf reads the gate of a profile's file, and nothing else of it.
func gateOf(data []byte) (Weights, error) {
	var v struct {
		Gate Weights `yaml:"gate"`
	}
	if err := yaml.Unmarshal(topLevel(data, "gate"), &v); err != nil {
		return Weights{}, fmt.Errorf("gate: %w", err)
	}
	if v.Gate == (Weights{}) {
		return Weights{}, errors.New("no gate")
	}
	return v.Gate, nil
}

// topLevel is the entry of a top-level key of a YAML mapping: its line,
// and the indented, blank and comment lines that follow it; nil when data
// has none.
func topLevel(data []byte, key string) []byte {
	start := -1
	off := 0
	for line := range bytes.Lines(data) {
		top := len(line) > 0 && line[0] != ' ' && line[0] != '\t' && line[0] != '#' && line[0] != '\n' && line[0] != '\r'
		switch {
		case start >= 0 && top:
			return data[start:off]
		case start < 0 && bytes.HasPrefix(line, []byte(key+":")):
			start = off
		}
		off += len(line)
	}
	if start < 0 {
		return nil
	}
	return data[start:]
}

// DefaultYAML returns the built-in profile's file, to copy and edit.
func DefaultYAML() []byte { return slices.Clone(defaultYAML) }

// Metric returns the profile's metric of that name.
func (p *Profile) Metric(name string) (Metric, bool) {
	i := slices.IndexFunc(p.Metrics, func(m Metric) bool { return m.Name == name })
	if i < 0 {
		return Metric{}, false
	}
	return p.Metrics[i], true
}

// MetricNames returns the names of the profile's metrics, in order.
func (p *Profile) MetricNames() []string {
	out := make([]string, len(p.Metrics))
	for i, m := range p.Metrics {
		out[i] = m.Name
	}
	return out
}

// ParseProfile decodes and checks a daily profile. Errors are
// *eval.InputError naming the file, the line and the field.
func ParseProfile(name string, data []byte) (*Profile, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &eval.InputError{File: name, Msg: strings.TrimPrefix(err.Error(), "yaml: ") + "; fix the YAML syntax"}
	}
	if len(root.Content) == 0 {
		return nil, &eval.InputError{File: name, Msg: "empty profile: copy the built-in one (assay score --profile daily) and edit it"}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var p Profile
	if err := dec.Decode(&p); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			return nil, yamlpath.DecodeError(name, root.Content[0], te.Errors[0])
		}
		return nil, &eval.InputError{File: name, Msg: err.Error()}
	}
	if line, found := yamlpath.ExtraDocument(dec); found {
		return nil, &eval.InputError{File: name, Line: line,
			Msg: "a second YAML document (after ---): only the first is read, so keep the whole profile in one"}
	}
	if err := yamlpath.Fraction(name, root.Content[0], &p); err != nil {
		return nil, err // the decoder truncated it: max_lines 15.5 would be 15
	}
	if err := p.check(); err != nil {
		var ie *eval.InputError
		if errors.As(err, &ie) {
			ie.File = name
			ie.Line = yamlpath.Line(root.Content[0], ie.Field)
		}
		return nil, err
	}
	p.m = compile(&p)
	return &p, nil
}

// count is the number of non-nil bounds.
func count(bs ...*float64) int {
	n := 0
	for _, b := range bs {
		if b != nil {
			n++
		}
	}
	return n
}

// overlap returns a value two bands both hold, if any: one of their ends,
// or a point just inside one.
func overlap(a, b Band) (float64, bool) {
	var probes []float64
	for _, x := range []bound{a.lower(), a.upper(), b.lower(), b.upper()} {
		if x.at != nil {
			probes = append(probes, *x.at, *x.at-1e-9, *x.at+1e-9)
		}
	}
	probes = append(probes, -1e300, 1e300)
	for _, v := range probes {
		if a.Holds(v) && b.Holds(v) {
			return v, true
		}
	}
	return 0, false
}

func (p *Profile) check() error {
	if p.Name == "" {
		return badField("name", "missing: give the profile a name")
	}
	if p.Kind != "daily" {
		return badField("kind", `must be "daily" in a daily profile, got %q`, p.Kind)
	}
	if len(p.Metrics) == 0 {
		return badField("metrics", "at least one metric is needed")
	}
	seen := map[string]bool{}
	for i, m := range p.Metrics {
		if err := m.check(fmt.Sprintf("metrics[%d]", i), seen); err != nil {
			return err
		}
		seen[m.Name] = true
	}
	for i, bs := range p.Bands {
		if err := bs.check(fmt.Sprintf("bands[%d]", i), seen); err != nil {
			return err
		}
	}
	if len(p.Sections) == 0 {
		return badField("sections", "at least one section is needed")
	}
	for i, s := range p.Sections {
		if err := s.check(fmt.Sprintf("sections[%d]", i)); err != nil {
			return err
		}
	}
	if r := p.Length.OptimalWords; len(r) != 0 && (len(r) != 2 || r[0] > r[1]) {
		return badField("length.optimal_words", "must be [min, max], got %v", r)
	}
	if !(p.PercentileTolerance >= 0) {
		return badField("percentile_tolerance", "must be a number >= 0, got %v", p.PercentileTolerance)
	}
	w := p.Overall
	for _, x := range w.named() {
		if !(x.v >= 0 && x.v <= 1) { // NaN too
			return badField("overall."+x.key, "must be a number from 0 to 1, got %v", x.v)
		}
	}
	// A gate below 0 publishes every report, one above 100 none.
	for _, x := range p.Gate.named() {
		if !(x.v >= 0 && x.v <= 100) { // NaN too
			return badField("gate."+x.key, "must be a score from 0 to 100, got %v", x.v)
		}
	}
	if sum := w.Faithfulness + w.Completeness + w.Reasoning + w.Compliance; math.Abs(sum-1) > 1e-9 {
		return badField("overall", "the four weights must add up to 1, got %v", sum)
	}
	return p.QoSRules.check()
}

// check checks the QoS rules, the profile's field qos: each step list
// ends with a step without max and rises, so that each step is reached;
// scores and penalties are 0 to 100, limits and ratios 0 or more (0 is
// off). A NaN would make the card fail to print, and a number out of
// range would be held to 0-100 without a word.
func (r QoSRules) check() error {
	score := func(f string, v float64) error {
		if !(v >= 0 && v <= 100) { // NaN too
			return badField(f, "must be a score from 0 to 100, got %v", v)
		}
		return nil
	}
	for _, q := range []struct {
		name  string
		steps []Step
	}{{"qos.latency_s", r.LatencyS}, {"qos.cost_usd", r.CostUSD}} {
		if err := checkSteps(q.name, q.steps, score); err != nil {
			return err
		}
	}
	for _, x := range []struct {
		key     string
		v       float64
		isScore bool
	}{
		{"reliability_error_score", r.ReliabilityErrorScore, true}, {"very_high_latency_penalty", r.VeryHighLatencyPenalty, true},
		{"db_queries.some_penalty", r.DBQueries.SomePenalty, true}, {"db_queries.many_penalty", r.DBQueries.ManyPenalty, true},
		{"llm_calls.penalty", r.LLMCalls.Penalty, true}, {"trend.degrading_penalty", r.Trend.DegradingPenalty, true},
		{"trend.severe_penalty", r.Trend.SeverePenalty, true},
		{"very_high_latency_s", r.VeryHighLatencyS, false}, {"trend.degrading_ratio", r.Trend.DegradingRatio, false},
		{"trend.severe_ratio", r.Trend.SevereRatio, false},
	} {
		if x.isScore {
			if err := score("qos."+x.key, x.v); err != nil {
				return err
			}
		} else if !(x.v >= 0) || math.IsInf(x.v, 1) {
			return badField("qos."+x.key, "must be a number of 0 or more, got %v", x.v)
		}
	}
	for _, x := range []struct {
		key string
		v   int
	}{{"db_queries.some", r.DBQueries.Some}, {"db_queries.many", r.DBQueries.Many}, {"llm_calls.max", r.LLMCalls.Max}} {
		if x.v < 0 {
			return badField("qos."+x.key, "must be 0 (off) or more, got %d", x.v)
		}
	}
	return nil
}

// checkSteps checks the QoS steps of the profile's field name: each
// bounded by max or le, not both, the last by neither, the bounds rising
// (steps are read in order: a bound at or below the one before leaves
// its step unused), the scores by score.
func checkSteps(name string, steps []Step, score func(f string, v float64) error) error {
	if last := len(steps) - 1; last < 0 || steps[last].Max != nil || steps[last].LE != nil {
		return badField(name, "needs steps, the last one without max or le")
	}
	var prev *float64
	for j, st := range steps {
		f := fmt.Sprintf("%s[%d]", name, j)
		if err := score(f+".score", st.Score); err != nil {
			return err
		}
		if st.Max != nil && st.LE != nil {
			return badField(f, "give one bound, max (a value under it) or le (a value at or under it), not both")
		}
		at, key, _ := st.bound()
		if at == nil {
			continue
		}
		if !(*at >= 0) || math.IsInf(*at, 1) {
			return badField(f+"."+key, "must be a number of 0 or more, got %v", *at)
		}
		if prev != nil && *at <= *prev {
			return badField(f+"."+key, "must be above the bound before it (%v): steps are read in order", *prev)
		}
		prev = at
	}
	return nil
}

// badField is the InputError of a profile's field.
func badField(field, format string, a ...any) error {
	return &eval.InputError{Field: field, Msg: fmt.Sprintf(format, a...)}
}

// check checks metric m, the profile's field f, given the names of the
// metrics before it (seen).
func (m Metric) check(f string, seen map[string]bool) error {
	switch {
	case m.Name == "":
		return badField(f+".name", "missing")
	case seen[m.Name]:
		return badField(f+".name", "%q listed twice", m.Name)
	case !(m.TolerancePct >= 0 && m.TolerancePct <= 100):
		return badField(f+".tolerance_pct", "must be between 0 and 100, got %v", m.TolerancePct)
	case m.Unit != "" && m.Unit != "%" && m.Unit != "any":
		return badField(f+".unit", `must be "%%", "" or "any", got %q`, m.Unit)
	case len(m.Names.all()) == 0:
		return badField(f+".names", "at least one name (per language) is needed to find the metric in a report")
	}
	return nil
}

// check checks band set bs, the profile's field f: it names one of the
// metrics (seen), and each band has a label, holds values, overlaps no
// band before it and strengthens only a band of the set.
func (bs BandSet) check(f string, seen map[string]bool) error {
	if !seen[bs.Metric] {
		return badField(f+".metric", "names %q, which is not among the metrics", bs.Metric)
	}
	for j, b := range bs.Bands {
		fb := fmt.Sprintf("%s.bands[%d]", f, j)
		if err := b.checkBounds(fb); err != nil {
			return err
		}
		if b.Label == "" {
			return badField(fb+".label", "missing")
		}
		if b.Strengthens != "" && !slices.ContainsFunc(bs.Bands, func(o Band) bool { return o.Label == b.Strengthens }) {
			return badField(fb+".strengthens", "names %q, which is not a band of %s", b.Strengthens, bs.Metric)
		}
		for k, o := range bs.Bands[:j] {
			if v, ok := overlap(o, b); ok {
				return badField(fb, "overlaps bands[%d] (%s): %v is in both; an edge belongs to one band", k, o.Label, v)
			}
		}
	}
	return nil
}

// checkBounds checks that band b, the profile's field fb, has at most one
// bound each side and holds a value between them.
func (b Band) checkBounds(fb string) error {
	if n := count(b.GE, b.GT, b.Min); n > 1 {
		return badField(fb, "give one lower bound (ge, gt or min), not %d", n)
	}
	if n := count(b.LE, b.LT, b.Max); n > 1 {
		return badField(fb, "give one upper bound (le, lt or max), not %d", n)
	}
	if lo, hi := b.lower(), b.upper(); lo.at != nil && hi.at != nil && (*lo.at > *hi.at || *lo.at == *hi.at && !(lo.closed && hi.closed)) {
		return badField(fb, "holds no value: its lower bound %v is not below its upper bound %v", *lo.at, *hi.at)
	}
	return nil
}

// check checks section s, the profile's field f: a key, a marker or
// names, and its sentence and paragraph ranges.
func (s Section) check(f string) error {
	if s.Key == "" || (s.Marker == "" && len(s.Names.all()) == 0) {
		return badField(f, "a section needs a key and a marker or names")
	}
	for _, r := range []struct {
		key string
		r   []int
	}{{"sentences", s.Sentences}, {"paragraphs", s.Paragraphs}} {
		if len(r.r) != 0 && (len(r.r) != 2 || r.r[0] < 0 || r.r[0] > r.r[1]) {
			return badField(f+"."+r.key, "must be [min, max] with 0 <= min <= max, got %v", r.r)
		}
	}
	return nil
}
