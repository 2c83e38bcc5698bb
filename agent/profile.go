package agent

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/heuristics/daily"
	"github.com/assaylabs/assay/internal/yamlpath"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/metric"
)

//go:embed profiles/*.yaml
var builtin embed.FS

// Profile kinds: what a profile judges.
const (
	KindReport  = "report"  // a Markdown research report
	KindContext = "context" // a retrieval: query, ranked chunks, assembled context
	// KindDaily is a daily report judged against its ground truth (seed
	// 003); its profile is a heuristics/daily profile, not this file's.
	KindDaily = "daily"
)

// Profile names the scorers of a card, their point tables, the pass rule
// and the fixes to suggest. Built-in profiles are embedded YAML files of
// the same form users write (see profiles/research.yaml).
type Profile struct {
	Name        string       `yaml:"name"`
	Kind        string       `yaml:"kind"`
	Description string       `yaml:"description"`
	Pass        PassRule     `yaml:"pass"`
	Specs       []ScorerSpec `yaml:"scorers"`
	Fixes       []FixSpec    `yaml:"fixes"`
	// Gate is the relevance gate of a research run that uses the profile
	// (kind report only).
	Gate GateSpec `yaml:"gate"`
	// Judges are judges the profile defines, written as in a judges file
	// (judges.Spec): each is a metric of the runs that read the profile,
	// which its scorers may weigh like any other (its value times the
	// scorer's max).
	Judges []judges.Spec `yaml:"judges"`
	// Daily is the profile of a KindDaily profile: seed 003's scorers,
	// weights and gate (heuristics/daily), read from the same kind of file.
	Daily *daily.Profile `yaml:"-"`

	// metrics is the registry the profile was read with, and its judges:
	// its scorers' entries. Nil (a Profile not read by Profiles) is the
	// built-in one.
	metrics *metric.Registry
}

// Metrics returns the registry the profile's scorers come from.
func (p *Profile) Metrics() *metric.Registry { return or(p.metrics) }

// PassRule decides a card's status from its scores.
type PassRule struct {
	// Threshold: a total at or above it passes.
	Threshold float64 `yaml:"threshold"`
	// RequireFull names metrics that fail the card when below their maximum.
	RequireFull []string `yaml:"require_full"`
	// FailAtOrBelow, when set, fails a card whose total is at or below it.
	FailAtOrBelow *float64 `yaml:"fail_at_or_below"`
}

// ScorerSpec configures one scorer of a profile. Fields that do not apply
// to the metric must be left out.
type ScorerSpec struct {
	Metric string  `yaml:"metric"`
	Max    float64 `yaml:"max"`
	// grounding
	Bands []heuristics.Band `yaml:"bands"`
	// RequireQuote: a link cites a claim only with its quote, as seed 000
	// counts ([text](url "quote")); false counts [text](url) as cited too.
	// Either way such claims are counted apart. Unset is true.
	RequireQuote *bool `yaml:"require_quote"`
	// source_quality
	Steps []heuristics.PointStep `yaml:"steps"`
	// source_diversity
	MinUnique int `yaml:"min_unique"`
	// clarity
	MaxAvgSentenceWords float64 `yaml:"max_avg_sentence_words"`
	MaxSentenceWords    int     `yaml:"max_sentence_words"`
	NearDuplicate       float64 `yaml:"near_duplicate"`
	// context_quality
	Weights *heuristics.ContextWeights `yaml:"weights"`
}

// GateSpec configures the relevance gate of a research run (seed 004).
type GateSpec struct {
	// RelevanceCutoff is the least relevance grade (1-5) a source needs to
	// be kept; nil (the key missing, or null) leaves the mode's (3, seed
	// 004's default). A pointer, so that a written 0 is refused, not read
	// as missing.
	RelevanceCutoff *int `yaml:"relevance_cutoff"`
}

// Cutoff is the gate's relevance cutoff, 0 when the profile sets none.
func (g GateSpec) Cutoff() int {
	if g.RelevanceCutoff == nil {
		return 0
	}
	return *g.RelevanceCutoff
}

// FixSpec is one entry of the fix priority queue.
type FixSpec struct {
	Priority    int    `yaml:"priority"`
	Metric      string `yaml:"metric"`
	Action      string `yaml:"action"`
	RerunStages []int  `yaml:"rerun_stages"`
}

// Builtin returns the names of the built-in profiles, sorted.
func Builtin() []string {
	ents, _ := fs.ReadDir(builtin, "profiles")
	names := []string{KindDaily} // seed 003's, heuristics/daily's built-in profile
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// ErrUnknownProfile is returned (wrapped) by LoadProfile for a name that is
// neither a built-in profile nor a readable file. Test with errors.Is.
var ErrUnknownProfile = errors.New("unknown profile")

// Profiles loads and parses profiles whose scorers are metrics of Metrics.
// Its zero value uses the built-in metrics (Builtins); a profile that names
// metrics of your own is loaded with a registry that holds them. A profile
// keeps the registry it was read with, with the judges it defines added
// (a copy: Metrics is not changed), and builds its scorers from it.
type Profiles struct {
	Metrics *metric.Registry
}

// LoadProfile is Profiles{}.Load: a profile of the built-in metrics.
func LoadProfile(nameOrPath string) (*Profile, error) { return Profiles{}.Load(nameOrPath) }

// ParseProfile is Profiles{}.Parse: a profile of the built-in metrics.
func ParseProfile(name string, data []byte) (*Profile, error) { return Profiles{}.Parse(name, data) }

// IsProfileFile reports whether a profile's name is a file's path rather
// than a built-in profile's name: it contains a path separator, or ends
// in .yaml or .yml.
func IsProfileFile(name string) bool {
	return strings.ContainsRune(name, filepath.Separator) || strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// Load returns the built-in profile of that name, or reads the profile
// file at that path (a name containing a path separator or ending in .yaml
// or .yml is a path). "daily" is seed 003's built-in daily profile.
func (ps Profiles) Load(nameOrPath string) (*Profile, error) {
	if nameOrPath == KindDaily {
		return &Profile{Name: KindDaily, Kind: KindDaily, Daily: daily.Default(), metrics: ps.Metrics}, nil
	}
	if !IsProfileFile(nameOrPath) {
		data, err := builtin.ReadFile("profiles/" + nameOrPath + ".yaml")
		if err != nil {
			return nil, fmt.Errorf("%w %q: built-in profiles are %s, or pass a .yaml file", ErrUnknownProfile, nameOrPath, strings.Join(Builtin(), ", "))
		}
		return ps.Parse(nameOrPath+".yaml", data)
	}
	data, err := readProfile(nameOrPath)
	if err != nil {
		return nil, err
	}
	return ps.Parse(nameOrPath, data)
}

// readProfile reads the profile file at path, of at most MaxInput bytes,
// reading no further: a profile may define judges, whose steps and
// examples a wrong file can make as long as it likes.
func readProfile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	defer func() { _ = f.Close() }() // read only
	data, err := io.ReadAll(io.LimitReader(f, MaxInput+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("profile: %w", err)
	case len(data) > MaxInput:
		return nil, &eval.InputError{File: path, Msg: fmt.Sprintf("larger than the %d MB limit of a profile", MaxInput>>20)}
	}
	return data, nil
}

// Parse decodes and checks a profile file. Errors name the file, the line
// and the field. A file of kind daily is a daily profile
// (daily.ParseProfile), in the Profile's Daily.
func (ps Profiles) Parse(name string, data []byte) (*Profile, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &eval.InputError{File: name, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if len(root.Content) == 0 {
		return nil, &eval.InputError{File: name, Msg: "empty profile"}
	}
	var head struct {
		Kind string `yaml:"kind"`
	}
	if root.Content[0].Decode(&head) == nil && head.Kind == KindDaily {
		dp, err := daily.ParseProfile(name, data)
		if err != nil {
			return nil, err
		}
		return &Profile{Name: name, Kind: KindDaily, Daily: dp, metrics: ps.Metrics}, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var p Profile
	err := dec.Decode(&p)
	if err != nil {
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
		return nil, err // the decoder truncated it: min_unique 4.9 would ask for 4
	}
	p.metrics = or(ps.Metrics)
	if len(p.Judges) > 0 {
		if p.metrics, err = withJudges(name, root.Content[0], p.Kind, p.Judges, p.metrics); err != nil {
			return nil, err
		}
	}
	if err := p.check(p.metrics); err != nil {
		var ie *eval.InputError
		if errors.As(err, &ie) {
			ie.File = name
			ie.Line = yamlpath.Line(root.Content[0], ie.Field)
		}
		return nil, err
	}
	return &p, nil
}

// WithMetrics returns a copy of the profile whose scorers come from reg,
// which must hold every metric the profile names (its judges too): a
// model session's registry built from Metrics (judging.Session.Registry,
// whose faithfulness verifies claims with a fact checker).
func (p *Profile) WithMetrics(reg *metric.Registry) *Profile {
	out := *p
	out.metrics = reg
	return &out
}

// Names are the metrics of the profile's scorers, in profile order.
func (p *Profile) Names() []string {
	out := make([]string, len(p.Specs))
	for i, s := range p.Specs {
		out[i] = s.Metric
	}
	return out
}

// CheckSample returns the error of a sample some scorer of the profile
// cannot judge for want of a field it reads (a judge the profile defines
// that reads the contexts of a report given without its sources), or nil.
func (p *Profile) CheckSample(s eval.Sample) error {
	for _, sc := range p.Scorers(Options{}) {
		if c, ok := sc.(metric.Checker); ok {
			if err := c.Check(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// Judges returns a copy of reg with the judges the file at path defines
// (--judges): a judges file (judges.Extend), or a profile file, a YAML
// mapping with a kind, whose judges: list it takes, the whole profile
// checked as --profile checks it. A nil reg is the built-in metrics
// (Builtins). Errors are *eval.InputError naming the file, the line and
// the key.
func Judges(reg *metric.Registry, path string) (*metric.Registry, error) {
	reg = or(reg)
	data, err := judges.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !isProfile(data) {
		return judges.Extend(reg, path)
	}
	p, err := Profiles{Metrics: reg}.Parse(path, data)
	if err != nil {
		return nil, err
	}
	if len(p.Judges) == 0 {
		return nil, &eval.InputError{File: path, Field: "judges", Msg: "this profile defines no judges: give a judges: list, or a judges file (see examples/judges.yaml)"}
	}
	return p.Metrics(), nil
}

// JudgeDefinitions are the judges the file at path defines, read as
// Judges reads it: a judges file, or a profile file's judges: list, the
// whole profile checked as --profile checks it. `assay align` rewords
// one of them. A nil reg is the built-in metrics (Builtins). Errors are
// *eval.InputError naming the file, the line and the key.
func JudgeDefinitions(reg *metric.Registry, path string) ([]*judges.Definition, error) {
	reg = or(reg)
	data, err := judges.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !isProfile(data) {
		return judges.ReadDefinitions(path, data, reg)
	}
	p, err := Profiles{Metrics: reg}.Parse(path, data)
	if err != nil {
		return nil, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 {
		return nil, &eval.InputError{File: path, Msg: "cannot read the profile again"} // Parse read it
	}
	return judges.Definitions(path, root.Content[0], p.Judges, reg)
}

// isProfile reports whether data is a profile file: a YAML mapping with
// a kind (a judges file has none).
func isProfile(data []byte) bool {
	var head struct {
		Kind string `yaml:"kind"`
	}
	return yaml.Unmarshal(data, &head) == nil && head.Kind != ""
}

// withJudges returns a copy of reg with the judges a profile of kind
// defines (judges.Definitions), each a metric its scorers may name. A
// judge that reads a field the profile's input never has (a report's
// reference, a retrieval's answer) is refused, naming the line and key.
func withJudges(name string, doc *yaml.Node, kind string, specs []judges.Spec, reg *metric.Registry) (*metric.Registry, error) {
	defs, err := judges.Definitions(name, doc, specs, reg)
	if err != nil {
		return nil, err
	}
	// What each kind's input holds: a report with its question and its
	// sources, or a retrieval's question and chunks.
	has := map[string][]string{
		KindReport:  {judges.FieldQuestion, judges.FieldAnswer, judges.FieldContexts},
		KindContext: {judges.FieldQuestion, judges.FieldContexts},
	}
	out := reg.Clone()
	for i, d := range defs {
		if fields, ok := has[kind]; ok {
			for j, f := range d.Fields {
				if slices.Contains(fields, f) {
					continue
				}
				key := fmt.Sprintf("judges[%d].fields[%d]", i, j)
				if len(specs[i].Fields) == 0 {
					key = fmt.Sprintf("judges[%d]", i) // the default fields, question and answer
				}
				return nil, &eval.InputError{File: name, Line: yamlpath.Line(doc, key), Field: key,
					Msg: fmt.Sprintf("judge %s reads %s, which a profile of kind %s never has: its judges read %s (give fields:)", d.Name, f, kind, strings.Join(fields, ", "))}
			}
		}
		e := d.Entry()
		e.Profiles = []string{KindReport, KindContext}
		if err := out.Add(e); err != nil {
			return nil, &eval.InputError{File: name, Line: d.Line, Field: fmt.Sprintf("judges[%d].name", i), Msg: err.Error()}
		}
	}
	return out, nil
}

// build returns the scorer of the spec's metric from its entry in reg:
// its Spec builder, or its Build weighed to the spec's max (of a report
// profile, judging a report without a query as if its title were).
func (s ScorerSpec) build(reg *metric.Registry, opt Options, kind string) eval.Scorer {
	e, ok := reg.Lookup(s.Metric)
	if b, isSpec := e.Spec.(SpecBuilder); ok && isSpec {
		return b(s, opt)
	}
	if ok && e.Build != nil {
		return weigh(e.Build(opt.Model), s.Max, kind == KindReport)
	}
	// check() rejects unknown metrics, so this is a programming error.
	panic(fmt.Sprintf("agent: no scorer for metric %q", s.Metric))
}

func (p *Profile) check(reg *metric.Registry) error {
	if p.Name == "" {
		return badField("name", "missing")
	}
	switch p.Kind {
	case KindReport, KindContext:
	default:
		return badField("kind", "must be %q or %q, got %q", KindReport, KindContext, p.Kind)
	}
	if len(p.Specs) == 0 {
		return badField("scorers", "at least one scorer is needed")
	}
	if !finite(p.Pass.Threshold) {
		return badField("pass.threshold", "must be a finite number, got %v", p.Pass.Threshold)
	}
	if f := p.Pass.FailAtOrBelow; f != nil && !finite(*f) {
		return badField("pass.fail_at_or_below", "must be a finite number, got %v", *f)
	}
	seen := map[string]bool{}
	for i, s := range p.Specs {
		f := fmt.Sprintf("scorers[%d]", i)
		if e, ok := reg.Lookup(s.Metric); !ok || e.Build == nil || !slices.Contains(e.Profiles, p.Kind) {
			return badField(f+".metric", "unknown metric %q for kind %s (known: %s)", s.Metric, p.Kind, strings.Join(reg.InProfile(p.Kind), ", "))
		}
		if seen[s.Metric] {
			return badField(f+".metric", "%q listed twice", s.Metric)
		}
		seen[s.Metric] = true
		if err := s.check(f); err != nil {
			return err
		}
	}
	if c := p.Gate.RelevanceCutoff; c != nil {
		if p.Kind != KindReport {
			return badField("gate", "only a profile of kind %s has a relevance gate", KindReport)
		}
		if *c < 1 || *c > 5 {
			return badField("gate.relevance_cutoff", "must be a grade from 1 to 5, got %d", *c)
		}
	}
	if err := p.checkScorerNames(seen); err != nil {
		return err
	}
	total := 0.0
	for _, s := range p.Specs {
		total += s.Max
	}
	if !finite(total) {
		return badField("scorers", "the maxima add up to more than a number can hold: give smaller maxima")
	}
	// A missing threshold decodes as 0, which would pass every card.
	if !(p.Pass.Threshold > 0 && p.Pass.Threshold <= total) {
		return badField("pass.threshold", "must be above 0 and at most the scorers' total maximum %v, got %v", total, p.Pass.Threshold)
	}
	// A card at or below the fail line fails before the threshold is
	// looked at: a line at or above the threshold would fail cards that
	// reach it.
	if f := p.Pass.FailAtOrBelow; f != nil && *f >= p.Pass.Threshold {
		return badField("pass.fail_at_or_below", "must be below pass.threshold %v, got %v", p.Pass.Threshold, *f)
	}
	return nil
}

// badField is the InputError of a profile's field.
func badField(field, format string, a ...any) error {
	return &eval.InputError{Field: field, Msg: fmt.Sprintf(format, a...)}
}

// finite reports whether x is neither NaN nor infinite: both decode from
// YAML (.nan, .inf) and would make a profile that silently never or
// always passes.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// check checks the numbers of scorer spec s, the profile's field f: its
// max, bands, steps and weights.
func (s ScorerSpec) check(f string) error {
	if !(s.Max > 0) || !finite(s.Max) {
		return badField(f+".max", "must be a positive number, got %v", s.Max)
	}
	// context_quality's points are seed 002's overall, whatever the max.
	if s.Metric == MetricContextQuality && s.Max != 1 {
		return badField(f+".max", "context_quality is seed 002's overall, whose max is 1, got %v", s.Max)
	}
	if err := s.checkSettings(f); err != nil {
		return err
	}
	for j, b := range s.Bands {
		if !(b.Min >= 0 && b.Min <= 100 && b.From >= 0 && b.To >= b.From && b.To <= s.Max) { // NaN too
			return badField(fmt.Sprintf("%s.bands[%d]", f, j), "need 0 <= min <= 100 and 0 <= from <= to <= max, got min %v from %v to %v", b.Min, b.From, b.To)
		}
	}
	for j, st := range s.Steps {
		if !finite(st.Min) {
			return badField(fmt.Sprintf("%s.steps[%d].min", f, j), "must be a finite number, got %v", st.Min)
		}
		if !(st.Points >= 0 && st.Points <= s.Max) { // NaN too
			return badField(fmt.Sprintf("%s.steps[%d].points", f, j), "must be between 0 and max %v, got %v", s.Max, st.Points)
		}
	}
	if err := s.checkTables(f); err != nil {
		return err
	}
	if w := s.Weights; w != nil {
		for _, x := range []struct {
			key string
			v   float64
		}{{"retrieval_confidence", w.RetrievalConfidence}, {"context_sufficiency", w.ContextSufficiency},
			{"diversity_score", w.Diversity}, {"estimated_faithfulness", w.EstimatedFaithfulness}} {
			if !(x.v >= 0 && x.v <= 1) {
				return badField(f+".weights."+x.key, "must be between 0 and 1, got %v", x.v)
			}
		}
		// The overall is their weighted sum, not divided by it: weights
		// that add up to less than 1 (a key left out reads as 0) would
		// lower every overall, and all zero would read as seed 002's.
		if sum := w.RetrievalConfidence + w.ContextSufficiency + w.Diversity + w.EstimatedFaithfulness; math.Abs(sum-1) > 1e-9 {
			return badField(f+".weights", "the four weights must add up to 1 (seed 002's: retrieval_confidence 0.3, context_sufficiency 0.3, diversity_score 0.15, estimated_faithfulness 0.25; a key left out is 0), got %v", sum)
		}
	}
	return nil
}

// checkTables checks the points tables of scorer spec s, the profile's
// field f, each already in range (check): a table is read by the row
// with the highest min its figure reaches, so two rows at one min leave
// one unused, a step's min off the credibility scale (1 to 10) is never
// reached or always, and a best row that earns less than max makes the
// scorer's max, and a require_full on it, unreachable (the research
// profile copied, grounding raised to 10 and the seed's bands kept:
// every fully cited report failed).
func (s ScorerSpec) checkTables(f string) error {
	if len(s.Bands) > 0 {
		top := 0
		for j, b := range s.Bands {
			if slices.ContainsFunc(s.Bands[:j], func(o heuristics.Band) bool { return o.Min == b.Min }) {
				return badField(fmt.Sprintf("%s.bands[%d].min", f, j), "another band has min %v: only one of them would be used", b.Min)
			}
			if b.Min > s.Bands[top].Min {
				top = j
			}
		}
		if t := s.Bands[top]; t.From != s.Max {
			return badField(fmt.Sprintf("%s.bands[%d].from", f, top), "the top band (min %v) earns %v points, not the scorer's max %v, which no report could then reach: give it from: %v, or leave bands out to have seed 001's table scaled to max", t.Min, t.From, s.Max, s.Max)
		}
	}
	if len(s.Steps) == 0 {
		return nil
	}
	best := 0.0
	for j, st := range s.Steps {
		if st.Min < 1 || st.Min > 10 {
			return badField(fmt.Sprintf("%s.steps[%d].min", f, j), "an average credibility is 1 to 10, got %v", st.Min)
		}
		if slices.ContainsFunc(s.Steps[:j], func(o heuristics.PointStep) bool { return o.Min == st.Min }) {
			return badField(fmt.Sprintf("%s.steps[%d].min", f, j), "another step has min %v: only one of them would be used", st.Min)
		}
		best = max(best, st.Points)
	}
	if best != s.Max {
		return badField(f+".steps", "the best step earns %v points, not the scorer's max %v, which no report could then reach: give a step of points: %v, or leave steps out to have seed 001's table scaled to max", best, s.Max, s.Max)
	}
	return nil
}

// checkSettings checks that scorer spec s, the profile's field f, sets
// only the settings of its metric, and that those are in range. A setting
// of another metric would be ignored without a word.
func (s ScorerSpec) checkSettings(f string) error {
	for _, x := range []struct {
		key, metric string
		set         bool
	}{
		{"bands", MetricGrounding, len(s.Bands) > 0},
		{"require_quote", MetricGrounding, s.RequireQuote != nil},
		{"steps", MetricSourceQuality, len(s.Steps) > 0},
		{"min_unique", MetricSourceDiversity, s.MinUnique != 0},
		{"max_avg_sentence_words", MetricClarity, s.MaxAvgSentenceWords != 0},
		{"max_sentence_words", MetricClarity, s.MaxSentenceWords != 0},
		{"near_duplicate", MetricClarity, s.NearDuplicate != 0},
		{"weights", MetricContextQuality, s.Weights != nil},
	} {
		if x.set && x.metric != s.Metric {
			return badField(f+"."+x.key, "is a setting of %s, not of %s", x.metric, s.Metric)
		}
	}
	switch {
	case s.MinUnique < 0:
		return badField(f+".min_unique", "must be 0 (the default, 5) or more, got %d", s.MinUnique)
	case s.MaxSentenceWords < 0:
		return badField(f+".max_sentence_words", "must be 0 (the default, %d) or more, got %d", heuristics.DefaultMaxSentenceWords, s.MaxSentenceWords)
	case !(s.MaxAvgSentenceWords >= 0) || !finite(s.MaxAvgSentenceWords): // NaN too
		return badField(f+".max_avg_sentence_words", "must be 0 (the default, %v) or a positive number, got %v", heuristics.DefaultMaxAvgSentenceWords, s.MaxAvgSentenceWords)
	case !(s.NearDuplicate >= 0 && s.NearDuplicate <= 1):
		return badField(f+".near_duplicate", "must be a similarity from 0 (the default, %v) to 1, got %v", heuristics.DefaultNearDuplicate, s.NearDuplicate)
	}
	return nil
}

// checkScorerNames checks that pass.require_full and fixes name only
// metrics among the scorers (seen), and the fixes' stages.
func (p *Profile) checkScorerNames(seen map[string]bool) error {
	for _, m := range p.Pass.RequireFull {
		if !seen[m] {
			return badField("pass.require_full", "names %q, which is not among the scorers", m)
		}
	}
	for i, fx := range p.Fixes {
		if !seen[fx.Metric] {
			return badField(fmt.Sprintf("fixes[%d].metric", i), "names %q, which is not among the scorers", fx.Metric)
		}
		for _, st := range fx.RerunStages {
			if st < 1 || st > 6 {
				return badField(fmt.Sprintf("fixes[%d].rerun_stages", i), "stages are 1..6, got %d", st)
			}
		}
	}
	return nil
}
