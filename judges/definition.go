package judges

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/prompts"
)

// Definition is a judge a user defines in a judges file (ReadDefinitions),
// as DeepEval's G-Eval, RAGAS's aspect critics and rubric scores, and
// promptfoo's llm-rubric are defined: a criterion in plain words, the
// evaluation steps a judge follows (generated once from the criterion when
// not given), a scale with an optional rubric line per grade, the fields
// of a sample it reads and a pass threshold. Entry makes it a metric.
type Definition struct {
	// Name is its metric name (--metric, gates, results).
	Name string
	// Criterion says what it judges, in plain words.
	Criterion string
	// Steps are the evaluation steps; nil has the model write them from
	// the criterion, once per run (see Defined).
	Steps []string
	Scale Scale
	// Rubric says what each grade means, for the grades it names, in
	// the scale's order.
	Rubric []prompts.RubricLine
	// Fields are the fields of a sample it reads (question, answer,
	// contexts, reference, metadata.PATH), in the order the prompt shows
	// them.
	Fields []string
	// Threshold is the grade at or above which a sample passes, on the
	// scale; of pass/fail, the chance of a pass (0.5).
	Threshold float64
	// Examples are samples people graded, shown to the judge before the
	// sample it grades (few-shot); nil shows none.
	Examples []Example

	// File and Line say where it is defined; index is its place in the
	// file's list and fieldLines the line of each of Fields, for the
	// errors of a dataset that lacks one.
	File       string
	Line       int
	index      int
	fieldLines []int

	// kept are the steps the model wrote for the run (KeepSteps), when
	// Steps is nil.
	kept []string
}

// Version is a hash of what the judge asks (criterion, steps, scale,
// rubric, fields), its metric.Entry's Version: a run records it, and it is
// part of every prompt's cache key, so a changed definition never reuses
// the replies of the old one nor passes for the same judge.
func (d *Definition) Version() string {
	b, _ := json.Marshal(struct {
		Criterion string               `json:"criterion"`
		Steps     []string             `json:"steps"`
		Scale     string               `json:"scale"`
		Rubric    []prompts.RubricLine `json:"rubric"`
		Fields    []string             `json:"fields"`
		Examples  []Example            `json:"examples,omitempty"`
	}{d.Criterion, d.Steps, d.Scale.String(), d.Rubric, d.Fields, d.Examples})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// Entry is the judge's metric: a judge --metric takes, with no offline
// counterpart (ModelOnly), its threshold on the 0..1 value, its dry-run
// stand-in and its Version.
func (d *Definition) Entry() metric.Entry {
	needs := metric.Needs(0)
	for _, f := range d.Fields {
		switch f {
		case FieldAnswer:
			needs |= metric.NeedsAnswer
		case FieldContexts:
			needs |= metric.NeedsContexts
		case FieldReference:
			needs |= metric.NeedsReference
		}
	}
	t := d.Scale.Value(d.Threshold)
	return metric.Entry{
		Name: d.Name, Kind: metric.KindJudge, Dataset: true, Needs: needs,
		Threshold: metric.Threshold{Offline: t, Model: t},
		Build:     func(m Model) eval.Scorer { return Defined{Def: d, Model: m, memo: &stepMemo{}} },
		DryRun:    DefinedStandIn,
		Version:   d.Version(),
		ModelOnly: true,
	}
}

// Example is a sample a person graded, shown to a judge (few-shot): the
// text of each field the judge reads, by field name, and the grade as
// the scale writes it ("pass", "4").
type Example struct {
	Fields map[string]string `json:"fields" yaml:"fields"`
	Grade  string            `json:"grade" yaml:"grade"`
}

// ExampleOf is s as an example of d graded grade: the text of each
// field d reads. ok is false when s lacks one, or grade is not one of
// d's scale.
func (d *Definition) ExampleOf(s eval.Sample, grade string) (ex Example, ok bool) {
	if _, ok := d.Scale.Grade(grade); !ok {
		return Example{}, false
	}
	ex = Example{Fields: map[string]string{}, Grade: grade}
	for _, f := range d.Fields {
		text, ok := fieldText(s, f)
		if !ok {
			return Example{}, false
		}
		ex.Fields[f] = text
	}
	return ex, true
}

// Shown is ex as a prompt shows it, its fields in d's order.
func (d *Definition) Shown(ex Example) prompts.GradedExample {
	g := prompts.GradedExample{Grade: ex.Grade}
	for _, f := range d.Fields {
		g.Fields = append(g.Fields, prompts.Field{Name: f, Label: blockLabel(f), Text: ex.Fields[f]})
	}
	return g
}

// promptExamples are d's examples as the prompt shows them.
func (d *Definition) promptExamples() []prompts.GradedExample {
	var out []prompts.GradedExample
	for _, ex := range d.Examples {
		out = append(out, d.Shown(ex))
	}
	return out
}

// The fields a judge reads, besides metadata.PATH.
const (
	FieldQuestion  = "question"
	FieldAnswer    = "answer"
	FieldContexts  = "contexts"
	FieldReference = "reference"
)

// metaPath reports the path into a sample's metadata of a field
// "metadata.PATH" (or "meta.PATH"), and whether the field is one.
func metaPath(field string) ([]string, bool) {
	root, rest, ok := strings.Cut(field, ".")
	if !ok || (root != "metadata" && root != "meta") {
		return nil, false
	}
	return strings.Split(rest, "."), true
}

// checkField reports whether a judge can read field, with what to write
// when it cannot.
func checkField(field string) error {
	switch field {
	case FieldQuestion, FieldAnswer, FieldContexts, FieldReference:
		return nil
	}
	if path, ok := metaPath(field); ok && !slices.Contains(path, "") {
		return nil
	}
	return fmt.Errorf("cannot read field %q: write question, answer, contexts, reference or metadata.NAME (dots go into nested objects: metadata.policy.id)", field)
}

// fieldText is the text of field in s, and whether s has it.
func fieldText(s eval.Sample, field string) (string, bool) {
	switch field {
	case FieldQuestion:
		return s.Query, strings.TrimSpace(s.Query) != ""
	case FieldAnswer:
		return s.Answer, !blank(s.Answer)
	case FieldReference:
		return s.Reference, strings.TrimSpace(s.Reference) != ""
	case FieldContexts:
		ps := passages(s)
		if len(ps) == 0 {
			return "", false
		}
		b, _ := json.MarshalIndent(ps, "", " ")
		return string(b), true
	}
	path, _ := metaPath(field)
	var cur any = s.Metadata
	for _, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", false
		}
		if cur, ok = m[k]; !ok {
			return "", false
		}
	}
	switch v := cur.(type) {
	case nil:
		return "", false
	case string:
		return v, strings.TrimSpace(v) != ""
	default:
		b, err := json.Marshal(v)
		return string(b), err == nil
	}
}

// blockLabel is the label of a field's data block: its name for the
// four fields, "field" for a metadata field (a label is lower-case
// letters; the prompt names the field above its block).
func blockLabel(field string) string {
	if _, ok := metaPath(field); ok {
		return "field"
	}
	return field
}

// Scale is a judge's scale: pass/fail, or whole grades from Lo to Hi
// (1-5, 0-10).
type Scale struct {
	PassFail bool
	Lo, Hi   int
}

// Grades a pass/fail scale's reply writes.
const (
	GradePass = "pass"
	GradeFail = "fail"
)

// scaleRange reads a range of whole grades, "1-5".
var scaleRange = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)\s*-\s*(\d+)$`) })

// ParseScale reads a scale as a judges file writes it: "pass/fail", or a
// range of whole grades from 0 to 10 ("1-5", "0-10", "1-10", "0-3"), each
// grade one token for the log-probabilities.
func ParseScale(s string) (Scale, error) {
	s = strings.TrimSpace(s)
	if s == "pass/fail" {
		return Scale{PassFail: true, Lo: 0, Hi: 1}, nil
	}
	m := scaleRange().FindStringSubmatch(s)
	if m == nil {
		return Scale{}, fmt.Errorf("cannot read scale %q: write pass/fail, or a range of whole grades such as 1-5 or 0-10", s)
	}
	lo, _ := strconv.Atoi(m[1])
	hi, _ := strconv.Atoi(m[2])
	if lo >= hi || hi > 10 {
		return Scale{}, fmt.Errorf("cannot use scale %q: want whole grades LO-HI with LO below HI, from 0 to 10 (1-5, 0-10)", s)
	}
	// A grade is written one way, as a reply must write it (see Grade):
	// a scale of "01-05" would have the file write grades the replies
	// may not.
	if strconv.Itoa(lo) != m[1] || strconv.Itoa(hi) != m[2] {
		return Scale{}, fmt.Errorf("cannot use scale %q: write its grades without leading zeros (%d-%d), as a reply and the rubric write them", s, lo, hi)
	}
	return Scale{Lo: lo, Hi: hi}, nil
}

// String is the scale as a judges file writes it.
func (sc Scale) String() string {
	if sc.PassFail {
		return "pass/fail"
	}
	return fmt.Sprintf("%d-%d", sc.Lo, sc.Hi)
}

// Grades are the grades a reply may write, lowest first.
func (sc Scale) Grades() []string {
	if sc.PassFail {
		return []string{GradeFail, GradePass}
	}
	var out []string
	for g := sc.Lo; g <= sc.Hi; g++ {
		out = append(out, strconv.Itoa(g))
	}
	return out
}

// Grade is the number of a grade a reply writes (pass 1, fail 0), and
// whether it is one of the scale's, written as Grades writes it.
func (sc Scale) Grade(text string) (float64, bool) {
	if sc.PassFail {
		switch text {
		case GradePass:
			return 1, true
		case GradeFail:
			return 0, true
		}
		return 0, false
	}
	// A grade is written one way: "03" or "+3" would be a second rubric
	// line for grade 3, of which the prompt would show one.
	g, err := strconv.Atoi(text)
	if err != nil || g < sc.Lo || g > sc.Hi || strconv.Itoa(g) != text {
		return 0, false
	}
	return float64(g), true
}

// ThresholdGrade is the grade of the judge a metric's entry defines
// (Definition.Entry) that the pass threshold t, a value in 0..1, stands
// for, as a summary shows it beside t: "grade 4 of 1-5" for 0.75, or
// "grade 4.2 of 1-5" for a --min floor of 0.8 between two grades. It is
// "" for a metric no judges file defines and for a pass/fail judge,
// whose threshold no file writes.
func ThresholdGrade(e metric.Entry, t float64) string {
	d, ok := DefinitionOf(e)
	if !ok || d.Scale.PassFail {
		return ""
	}
	g := float64(d.Scale.Lo) + t*float64(d.Scale.Hi-d.Scale.Lo)
	return "grade " + strconv.FormatFloat(math.Round(g*100)/100, 'f', -1, 64) + " of " + d.Scale.String()
}

// Value maps a grade (or a weighted mean of grades) to 0..1.
func (sc Scale) Value(g float64) float64 {
	return (g - float64(sc.Lo)) / float64(sc.Hi-sc.Lo)
}

// Max is the scale's top grade, a score's Max (1 for pass/fail).
func (sc Scale) Max() float64 { return float64(sc.Hi) }

// middle is the default threshold: the middle grade, rounded up (3 of
// 1-5, 5 of 0-10); of pass/fail, one half (a pass more likely than not).
func (sc Scale) middle() float64 {
	if sc.PassFail {
		return 0.5
	}
	return float64(sc.Lo + (sc.Hi-sc.Lo+1)/2)
}

// replyGrades is how the prompt tells the model to write a grade.
func (sc Scale) replyGrades() string {
	if sc.PassFail {
		return `"pass" or "fail"`
	}
	return sc.String()
}

// schema is the reply's JSON schema: a reason, then the grade, held to
// the scale (an integer in range, or "pass" or "fail").
func (sc Scale) schema() *llm.Schema {
	grade := map[string]any{"type": "integer", "minimum": sc.Lo, "maximum": sc.Hi}
	if sc.PassFail {
		grade = map[string]any{"type": "string", "enum": []string{GradePass, GradeFail}}
	}
	b, _ := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"reason": map[string]any{"type": "string"},
			"grade":  grade,
		},
		"required":             []string{"reason", "grade"},
		"additionalProperties": false,
	})
	return &llm.Schema{Name: definedGradeSchema, JSON: b}
}
