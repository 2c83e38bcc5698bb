package agree

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
)

// Grade reads rec's graded human label named label (a grade: 1-5, 0-3):
// a number, or a string holding one. The second result is false when the
// label is absent, null or anything else.
func Grade(rec dataset.Record, label string) (float64, bool) {
	return number(rec.Human[label])
}

// number reads a decoded JSON value as a finite number: a number, a
// string holding one, or a boolean (1 or 0).
func number(v any) (float64, bool) {
	var f float64
	switch v := v.(type) {
	case float64:
		f = v
	case int:
		f = float64(v)
	case bool:
		if v {
			return 1, true
		}
		return 0, true
	case string:
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return 0, false
		}
		f = x
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// Field reads a dotted path into rec: "id", "human.NAME" (the labels),
// "meta.NAME" or "metadata.NAME" (the record's metadata), each further
// dot going into a nested object ("meta.judge.grade"). The second result
// is false when the path leads nowhere.
func Field(rec dataset.Record, path string) (any, bool) {
	root, rest, _ := strings.Cut(path, ".")
	var cur any
	switch root {
	case "id":
		if rest != "" {
			return nil, false
		}
		return rec.ID, true
	case "human":
		cur = rec.Human
	case "meta", "metadata":
		cur = rec.Sample.Metadata
	default:
		return nil, false
	}
	if rest == "" {
		return nil, false
	}
	for key := range strings.SplitSeq(rest, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[key]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// CheckFieldPath reports whether path is one Field reads, with an
// error saying what to write when it is not.
func CheckFieldPath(path string) error {
	root, rest, _ := strings.Cut(path, ".")
	switch {
	case root == "id" && rest == "":
		return nil
	case (root == "human" || root == "meta" || root == "metadata") && rest != "" && !slices.Contains(strings.Split(rest, "."), ""):
		return nil
	}
	return fmt.Errorf("%q is not a field path: write id, human.NAME or meta.NAME (dots go into nested objects, e.g. meta.judge.grade)", path)
}

// ScoreField returns the value function of Values that reads a
// precomputed judge value, or a second rater's grade, from each record's
// field at path (Field): a number, a numeric string or a boolean.
// A record without it, or with anything else there, gets an error naming
// the path.
func ScoreField(path string) func(dataset.Record) eval.Score {
	return func(rec dataset.Record) eval.Score {
		v, ok := Field(rec, path)
		if !ok || v == nil {
			hint := ""
			if rec.Sample.Metadata == nil {
				hint = metadataHint(path, "the record has no metadata")
			}
			return eval.Score{Metric: path, Err: fmt.Errorf("%s: no value%s (give every labelled record one, or drop the record)", path, hint)}
		}
		f, ok := number(v)
		if !ok {
			return eval.Score{Metric: path, Err: fmt.Errorf("%s: want a number, got %v", path, v)}
		}
		return eval.Score{Metric: path, Value: f, Method: "field " + path}
	}
}

// StoredScores returns the value function of Values that looks each
// record up by id among a stored run's results for metric: its value,
// points, default and error as the run recorded them. A record the run
// has no result for gets an error saying so.
func StoredScores(results *run.ResultFile, metric string) func(dataset.Record) eval.Score {
	by := map[string]run.Result{}
	for _, r := range results.Results {
		if r.Metric == metric {
			by[r.ID] = r
		}
	}
	return func(rec dataset.Record) eval.Score {
		r, ok := by[rec.ID]
		if !ok {
			return eval.Score{Metric: metric, Err: fmt.Errorf("the run has no %s result for this record (an unfinished run: resume it with assay bench --resume)", metric)}
		}
		sc := eval.Score{Metric: metric, Value: r.Value, Points: r.Points, Max: r.Max, Method: r.Method, Defaulted: r.Defaulted, Skipped: r.Skipped, Reason: r.Reason}
		if r.Error != "" {
			sc.Err = errors.New(r.Error)
		}
		if r.Skipped && sc.Reason == "" {
			sc.Reason = "skipped by the run"
		}
		return sc
	}
}

// LabelScan tells a binary label from a graded one over a dataset's
// records (Add each; a first pass of dataset.Open, say).
type LabelScan struct {
	// Label is the label's name, as Options.Label.
	Label string
	// Binary counts records whose label reads as binary (dataset.Record.Label),
	// Numeric those whose label is a number.
	Binary, Numeric int
	// first is the line of the first record with each grade.
	first map[float64]int
	// notBinary and notNumber are the first record whose label is there
	// (not null or blank) but does not read as binary, or as a number.
	notBinary, notNumber unusable
}

// unusable is a record's label that does not read: its line and value.
type unusable struct {
	line  int
	value any
}

// Add counts rec's label.
func (s *LabelScan) Add(rec dataset.Record) {
	name := strings.TrimSpace(strings.TrimPrefix(s.Label, "!"))
	v, present := rec.Human[name]
	// A blank label is none, as an empty CSV cell is.
	if text, ok := v.(string); ok && strings.TrimSpace(text) == "" {
		present = false
	}
	present = present && v != nil
	if _, ok := rec.Label(s.Label); ok {
		s.Binary++
	} else if present && s.notBinary.line == 0 {
		s.notBinary = unusable{rec.Line, v}
	}
	if _, ok := Grade(rec, name); !ok && present && s.notNumber.line == 0 {
		s.notNumber = unusable{rec.Line, v}
	}
	if strings.HasPrefix(s.Label, "!") {
		return
	}
	if _, isBool := rec.Human[s.Label].(bool); isBool {
		return
	}
	if g, ok := Grade(rec, s.Label); ok {
		if s.first == nil {
			s.first = map[float64]int{}
		}
		if _, seen := s.first[g]; !seen {
			s.first[g] = rec.Line
		}
		s.Numeric++
	}
}

// Graded reports whether the label is graded: numbers with more than two
// distinct values, or any number other than 0 and 1.
func (s *LabelScan) Graded() bool {
	if len(s.first) > 2 {
		return true
	}
	for g := range s.first {
		if g != 0 && g != 1 {
			return true
		}
	}
	return false
}

// Unusable is the line of the first record whose label is there but does
// not read as a graded label (a number) or a binary one (graded false),
// with the label's value as JSON shows it; 0 when every label reads.
func (s *LabelScan) Unusable(graded bool) (line int, value string) {
	u := s.notBinary
	if graded {
		u = s.notNumber
	}
	if u.line == 0 {
		return 0, ""
	}
	b, _ := json.Marshal(u.value) // decoded JSON always marshals
	return u.line, string(b)
}

// Grades are the distinct numeric labels seen, ascending.
func (s *LabelScan) Grades() []float64 { return slices.Sorted(maps.Keys(s.first)) }

// Outside are the grades seen that are not among grades, ascending; nil
// when there are none.
func (s *LabelScan) Outside(grades []float64) []float64 {
	var out []float64
	for _, g := range s.Grades() {
		if !slices.Contains(grades, g) {
			out = append(out, g)
		}
	}
	return out
}

// FirstLine is the line of the first record whose label is grade g; 0 when
// none is.
func (s *LabelScan) FirstLine(g float64) int { return s.first[g] }

// gradeText is a grade as the user writes it: 3, 0.5.
func gradeText(g float64) string { return strconv.FormatFloat(g, 'g', -1, 64) }

// gradeList is grades as the user writes them: 1, 2, 3.
func gradeList(gs []float64) string {
	parts := make([]string, len(gs))
	for i, g := range gs {
		parts[i] = gradeText(g)
	}
	return strings.Join(parts, ", ")
}
