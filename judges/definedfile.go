package judges

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/encode"
	"github.com/assaylabs/assay/internal/yamlpath"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/prompts"
)

// judgesFile is a judges file as written: a list of judges.
type judgesFile struct {
	Judges []Spec `yaml:"judges"`
}

// Spec is one judge as a judges file, or a profile's judges: list, writes
// it (see docs/judging.md, "Judges you define"). Decode it strictly (unknown
// keys refused), then check it with Definitions.
type Spec struct {
	Name      string            `yaml:"name"`
	Criterion string            `yaml:"criterion"`
	Steps     []string          `yaml:"steps,omitempty"`
	Scale     string            `yaml:"scale"`
	Rubric    map[string]string `yaml:"rubric,omitempty"`
	Fields    []string          `yaml:"fields,omitempty"`
	Threshold *float64          `yaml:"threshold,omitempty"`
	// Examples are samples people graded, shown to the judge (few-shot):
	// each the text of every field the judge reads, and its grade.
	Examples []Example `yaml:"examples,omitempty"`
}

// Spec is d as a judges file writes it: ReadDefinitions reads it back
// to a definition that asks the same (the same Version).
func (d *Definition) Spec() Spec {
	s := Spec{Name: d.Name, Criterion: d.Criterion, Steps: d.Steps, Scale: d.Scale.String(), Fields: d.Fields, Examples: d.Examples}
	if len(d.Rubric) > 0 {
		s.Rubric = map[string]string{}
		for _, l := range d.Rubric {
			s.Rubric[l.Grade] = l.Text
		}
	}
	if !d.Scale.PassFail {
		t := d.Threshold
		s.Threshold = &t
	}
	return s
}

// WriteDefinitions writes defs as a judges file (a judges: list) that
// ReadDefinitions reads back.
func WriteDefinitions(w io.Writer, defs []*Definition) error {
	f := judgesFile{}
	for _, d := range defs {
		f.Judges = append(f.Judges, d.Spec())
	}
	if err := encode.YAML(w, f); err != nil {
		return fmt.Errorf("write judges: %w", err)
	}
	return nil
}

// MaxFile is the largest judges file read (10 MB), as a report or a side
// file: far more than any judge's criterion, steps and examples need,
// and a bound on what a wrong file can take.
const MaxFile = 10 << 20

// ReadFile reads the judges file at path, of at most MaxFile bytes; an
// error is an *eval.InputError naming the file.
func ReadFile(path string) ([]byte, error) {
	return eval.ReadFile(path, "a judges file", MaxFile)
}

// Extend returns a copy of reg with the judges of the judges file at path
// added (ReadDefinitions), each a metric --metric takes; reg itself is
// not changed; a nil reg is an empty one (agent.Builtins() is the
// built-in metrics). Errors are *eval.InputError naming the file, the
// line and the key.
func Extend(reg *metric.Registry, path string) (*metric.Registry, error) {
	if reg == nil {
		reg = &metric.Registry{}
	}
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	defs, err := ReadDefinitions(path, data, reg)
	if err != nil {
		return nil, err
	}
	out := reg.Clone()
	for _, d := range defs {
		if err := out.Add(d.Entry()); err != nil {
			return nil, &eval.InputError{File: path, Line: d.Line, Field: "name", Msg: err.Error()}
		}
	}
	return out, nil
}

// ReadDefinitions decodes and checks a judges file (name is how errors
// name it): a "judges" list, each judge with a name, a criterion, a scale
// and optionally steps, a rubric, fields and a threshold. A key it does
// not know, a judge without a name or criterion, a scale it cannot read,
// a rubric grade off the scale, a field it cannot read, a threshold off
// the scale, or a name taken by a metric of reg (or twice in the file) is
// an *eval.InputError naming the file, the line and the key. A nil reg
// takes no name.
func ReadDefinitions(name string, data []byte, reg *metric.Registry) ([]*Definition, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &eval.InputError{File: name, Msg: strings.TrimPrefix(err.Error(), "yaml: ") + "; fix the YAML syntax"}
	}
	if len(root.Content) == 0 {
		return nil, &eval.InputError{File: name, Msg: "empty judges file: give a judges: list (see examples/judges.yaml)"}
	}
	doc := root.Content[0]
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f judgesFile
	if err := dec.Decode(&f); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			return nil, yamlpath.DecodeError(name, doc, te.Errors[0])
		}
		return nil, &eval.InputError{File: name, Msg: err.Error()}
	}
	// A second document would be read by no one: its judges, silently
	// left out, would be missed only when --metric asks for one.
	if line, found := yamlpath.ExtraDocument(dec); found {
		return nil, &eval.InputError{File: name, Line: line,
			Msg: "a second YAML document (after ---): only the first is read, so put every judge in its one judges: list"}
	}
	if len(f.Judges) == 0 {
		return nil, &eval.InputError{File: name, Line: yamlpath.Line(doc, "judges"), Field: "judges",
			Msg: "no judge: give a judges: list, each with a name, a criterion and a scale"}
	}
	return Definitions(name, doc, f.Judges, reg)
}

// Definitions checks judges as a file (name, whose YAML document is doc)
// writes them under its judges: key (a judges file, or a profile) and
// returns their definitions: each judge with a name, a criterion and a
// scale and optionally steps, a rubric, fields and a threshold. A judge
// without a name or criterion, a scale it cannot read, a rubric grade off
// the scale, a field it cannot read, a threshold off the scale, or a name
// taken by a metric of reg (or twice in the list) is an *eval.InputError
// naming the file, the line and the key. A nil reg takes no name.
func Definitions(name string, doc *yaml.Node, specs []Spec, reg *metric.Registry) ([]*Definition, error) {
	if reg == nil {
		reg = &metric.Registry{} // takes no name
	}
	defs, err := judgesFile{Judges: specs}.check(reg)
	if err != nil {
		var ie *eval.InputError
		if errors.As(err, &ie) {
			ie.File = name
			ie.Line = yamlpath.Line(doc, ie.Field)
		}
		return nil, err
	}
	for i, d := range defs {
		d.File, d.index = name, i
		d.Line = yamlpath.Line(doc, fmt.Sprintf("judges[%d]", i))
		for j := range d.Fields {
			d.fieldLines = append(d.fieldLines, yamlpath.Line(doc, fmt.Sprintf("judges[%d].fields[%d]", i, j)))
		}
	}
	return defs, nil
}

// metricName is the form of a judge's name: a metric name that gates
// (METRIC.STAT) and flags can carry.
var metricName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_]*$`) })

// check checks the file's judges against reg and returns their
// definitions; errors name the key (Field), not yet the file and line.
func (f judgesFile) check(reg *metric.Registry) ([]*Definition, error) {
	bad := func(field, format string, a ...any) error {
		return &eval.InputError{Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	var out []*Definition
	for i, j := range f.Judges {
		key := func(k string) string { return fmt.Sprintf("judges[%d].%s", i, k) }
		switch {
		case j.Name == "":
			return nil, bad(key("name"), "missing: give the judge a name, its metric name")
		case !metricName().MatchString(j.Name):
			return nil, bad(key("name"), "%q: a name is lower-case letters, digits and _, starting with a letter (polite_answer)", j.Name)
		case slices.ContainsFunc(out, func(d *Definition) bool { return d.Name == j.Name }):
			return nil, bad(key("name"), "%q names two judges of the list", j.Name)
		}
		if taken := takenBy(reg, j.Name); taken != "" {
			return nil, bad(key("name"), "%q is the name of %s: give the judge another", j.Name, taken)
		}
		if strings.TrimSpace(j.Criterion) == "" {
			return nil, bad(key("criterion"), "missing: say in plain words what the judge judges")
		}
		if j.Scale == "" {
			return nil, bad(key("scale"), "missing: write pass/fail, or a range of whole grades such as 1-5 or 0-10")
		}
		sc, err := ParseScale(j.Scale)
		if err != nil {
			return nil, bad(key("scale"), "%v", err)
		}
		d := &Definition{Name: j.Name, Criterion: strings.TrimSpace(j.Criterion), Scale: sc, Fields: j.Fields, Threshold: sc.middle()}
		for k, st := range j.Steps {
			if strings.TrimSpace(st) == "" {
				return nil, bad(fmt.Sprintf("%s[%d]", key("steps"), k), "an empty step: write it or remove it")
			}
			d.Steps = append(d.Steps, strings.TrimSpace(st))
		}
		if j.Steps != nil && len(d.Steps) == 0 {
			return nil, bad(key("steps"), "an empty list: give steps, or leave steps out to have the model write them")
		}
		if d.Rubric, err = rubric(sc, j.Rubric, key("rubric")); err != nil {
			return nil, err
		}
		if len(d.Fields) == 0 {
			d.Fields = []string{FieldQuestion, FieldAnswer}
		}
		for k, fl := range d.Fields {
			fk := fmt.Sprintf("%s[%d]", key("fields"), k)
			if err := checkField(fl); err != nil {
				return nil, bad(fk, "%v", err)
			}
			if slices.Contains(d.Fields[:k], fl) {
				return nil, bad(fk, "%q is named twice", fl)
			}
		}
		if t := j.Threshold; t != nil {
			switch {
			case sc.PassFail:
				return nil, bad(key("threshold"), "a pass/fail judge passes a sample graded pass: leave threshold out")
			case math.IsNaN(*t) || *t < float64(sc.Lo) || *t > float64(sc.Hi):
				return nil, bad(key("threshold"), "want a grade from %d to %d (the scale %s), got %v", sc.Lo, sc.Hi, sc, *t)
			}
			d.Threshold = *t
		}
		for k, ex := range j.Examples {
			ek := fmt.Sprintf("%s[%d]", key("examples"), k)
			if err := d.checkExample(ex); err != nil {
				return nil, bad(ek, "%v", err)
			}
			d.Examples = append(d.Examples, ex)
		}
		out = append(out, d)
	}
	return out, nil
}

// checkExample reports whether ex is an example of d: a grade of its
// scale, and text for each field it reads, and no other.
func (d *Definition) checkExample(ex Example) error {
	if _, ok := d.Scale.Grade(ex.Grade); !ok {
		return fmt.Errorf("grade %q is not a grade of the scale %s (%s)", ex.Grade, d.Scale, strings.Join(d.Scale.Grades(), ", "))
	}
	for _, f := range d.Fields {
		if strings.TrimSpace(ex.Fields[f]) == "" {
			return fmt.Errorf("no text for the field %s, which the judge reads: give fields: {%s: ...}", f, f)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(ex.Fields)) {
		if !slices.Contains(d.Fields, f) {
			return fmt.Errorf("field %s is not one the judge reads (%s)", f, strings.Join(d.Fields, ", "))
		}
	}
	return nil
}

// rubric reads a rubric (grade to line) on sc, in the scale's order;
// field is its key, for errors.
func rubric(sc Scale, lines map[string]string, field string) ([]prompts.RubricLine, error) {
	for _, g := range slices.Sorted(maps.Keys(lines)) {
		text := lines[g]
		if _, ok := sc.Grade(g); !ok {
			return nil, &eval.InputError{Field: field + "." + g, Msg: fmt.Sprintf("%q is not a grade of the scale %s (%s)", g, sc, strings.Join(sc.Grades(), ", "))}
		}
		if strings.TrimSpace(text) == "" {
			return nil, &eval.InputError{Field: field + "." + g, Msg: "an empty rubric line: say what the grade means, or remove it"}
		}
	}
	var out []prompts.RubricLine
	for _, g := range sc.Grades() {
		if text, ok := lines[g]; ok {
			out = append(out, prompts.RubricLine{Grade: g, Text: strings.TrimSpace(text)})
		}
	}
	if sc.PassFail {
		// Pass first, as a reader expects.
		slices.Reverse(out)
	}
	return out, nil
}

// fieldError is the error of a sample that lacks field i of d: it names
// the judge, the field and where the judges file asks for it.
func (d *Definition) fieldError(i int, cause error) error {
	where := d.File
	if i < len(d.fieldLines) && d.fieldLines[i] > 0 {
		where += ":" + strconv.Itoa(d.fieldLines[i])
	}
	err := fmt.Errorf("judge %s reads %s (%s: judges[%d].fields[%d]), which this record lacks: give every record one, or leave it out of the judge's fields", d.Name, d.Fields[i], where, d.index, i)
	if cause != nil {
		err = fmt.Errorf("%w: %w", err, cause)
	}
	return err
}

// takenBy says what in reg holds name already ("a built-in metric", "a
// judge already defined ..."), "" when nothing does.
func takenBy(reg *metric.Registry, name string) string {
	e, taken := reg.Lookup(name)
	switch {
	case !taken:
		return ""
	case e.Version != "": // a judge a judges file defined
		return "a judge already defined (by a judges file read before)"
	}
	return "a built-in metric"
}
