package run

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/assaylabs/assay/eval"
)

// MaxFell is how many of the samples that fell most a MetricComparison
// lists.
const MaxFell = 5

// MaxFlipped is how many of the samples that flipped pass/fail each way
// a MetricComparison lists: those now failing first, the largest change
// first.
const MaxFlipped = 100

// Folder is a run folder read back: its config, its results and, when the
// run got that far, its summary.
type Folder struct {
	Dir     string
	Config  Config
	Results *ResultFile
	// Summary is nil when the folder has no summary.json. Its metrics
	// are in the order of Config's (see InConfigOrder).
	Summary *Summary
}

// ReadFolder reads the run folder dir. A folder without config.json is not a
// run folder: the error says so.
func ReadFolder(dir string) (*Folder, error) {
	run, err := ReadHead(dir)
	if err != nil {
		return nil, err
	}
	if run.Results, err = ReadResults(filepath.Join(dir, FileResults)); err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	return run, nil
}

// ReadHead reads the run folder dir but for its results: its config
// and, when it has one, its summary. An empty dir is the working
// directory.
func ReadHead(dir string) (*Folder, error) {
	b, err := os.ReadFile(filepath.Join(dir, FileConfig))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a run folder (no %s): give a folder written by assay bench --out", cmp.Or(dir, "."), FileConfig)
	}
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	run := &Folder{Dir: dir}
	if err := json.Unmarshal(b, &run.Config); err != nil {
		return nil, fileJSONError(filepath.Join(dir, FileConfig), b, err)
	}
	b, err = os.ReadFile(filepath.Join(dir, FileSummary))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("run %s: %w", dir, err)
	default:
		run.Summary = &Summary{}
		if err := json.Unmarshal(b, run.Summary); err != nil {
			return nil, fileJSONError(filepath.Join(dir, FileSummary), b, err)
		}
		run.Summary.Metrics = InConfigOrder(run.Summary.Metrics, run.Config.Metrics)
	}
	return run, nil
}

// fileJSONError is the error of a run's JSON file at path, whose bytes
// data did not decode (err): the line of the fault and, for a value of
// the wrong kind, its field, as the file spells it.
func fileJSONError(path string, data []byte, err error) *eval.InputError {
	lineAt := func(off int64) int {
		off = min(max(off, 0), int64(len(data)))
		return 1 + bytes.Count(data[:off], []byte("\n"))
	}
	const hint = ": is it a file written by assay bench?"
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return &eval.InputError{File: path, Line: lineAt(se.Offset), Msg: "not JSON: " + se.Error() + hint, Err: err}
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		// The offset of an error a value's own UnmarshalJSON returned
		// (Num's) counts from that value: the line is found by the field.
		return &eval.InputError{File: path, Line: fieldLine(data, te.Field, te.Value), Field: te.Field,
			Msg: fmt.Sprintf("want %s, got %s%s", eval.JSONType(te.Type), te.Value, hint), Err: err}
	}
	return &eval.InputError{File: path, Msg: "does not parse: " + err.Error() + hint, Err: err}
}

// fieldLine is the line in data of the first value at field (keys
// joined by dots, as json.UnmarshalTypeError names it: array indices
// passed over) of the JSON kind got ("string", "number", ...); 0 when
// there is none.
func fieldLine(data []byte, field, got string) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var keys []string   // the key of each open object, "" before its first
	var inObject []bool // whether each open container is an object
	expectKey := false  // the next token of an object is a key
	for {
		tok, err := dec.Token()
		if err != nil {
			return 0
		}
		line := 1 + bytes.Count(data[:dec.InputOffset()], []byte("\n"))
		if expectKey {
			if k, ok := tok.(string); ok {
				keys[len(keys)-1], expectKey = k, false
				continue
			}
		}
		var kind string
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				kind = map[json.Delim]string{'{': "object", '[': "array"}[t]
				if strings.Join(objectKeys(keys, inObject), ".") == field && strings.HasPrefix(got, kind) {
					return line
				}
				inObject = append(inObject, t == '{')
				keys = append(keys, "")
				expectKey = t == '{'
				continue
			default: // a container closes
				inObject, keys = inObject[:len(inObject)-1], keys[:len(keys)-1]
				expectKey = len(inObject) > 0 && inObject[len(inObject)-1]
				continue
			}
		case string:
			kind = "string"
		case json.Number:
			kind = "number"
		case bool:
			kind = "bool"
		case nil:
			kind = "null"
		}
		if strings.Join(objectKeys(keys, inObject), ".") == field && strings.HasPrefix(got, kind) {
			return line
		}
		expectKey = len(inObject) > 0 && inObject[len(inObject)-1]
	}
}

// objectKeys are the keys of the open objects, outermost first.
func objectKeys(keys []string, inObject []bool) []string {
	var out []string
	for i, k := range keys {
		if inObject[i] {
			out = append(out, k)
		}
	}
	return out
}

// Compare compares the current run (its results.jsonl at curResults and
// its summary) with the baseline run in baseDir, metric by metric over
// the current summary's metrics: the baseline's and the current mean and
// their delta; over the samples both runs scored, the Wilcoxon
// signed-rank test (stats.Wilcoxon), the mean difference with its paired
// bootstrap 95% interval (stats.PairedMeanDiff), the samples that
// flipped pass/fail each way with McNemar's exact test on them
// (stats.McNemar), and the samples that moved most. It returns seed
// 002's alerts too (see MeanAlerts), metric by metric: any alert is a
// regression.
//
// Both results.jsonl are read line by line, keeping a value, a verdict
// and a latency per (sample, metric): memory is in the number of
// results, never in the size of their evidence.
//
// Means are over scored values only, never defaults; the baseline's come
// from its summary.json, or from its results when it has none. When a
// run has samples the other lacks (runs of different datasets, or one
// stopped early), the runs are compared on the samples both have, means
// included, and Comparison says how many each has alone.
//
// cfg, when not nil, is the current run's configuration: the comparison
// then says how the baseline was judged otherwise (JudgedOtherwise).
func Compare(baseDir, curResults string, curSummary Summary, cfg *Config) (*Comparison, []QualityAlert, error) {
	c, alerts, _, err := ComparePaired(baseDir, curResults, curSummary, cfg)
	return c, alerts, err
}

// ComparePaired is Compare, returning the pairing it read as well.
func ComparePaired(baseDir, curResults string, curSummary Summary, cfg *Config) (*Comparison, []QualityAlert, *Pairing, error) {
	base, err := ReadHead(baseDir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("baseline: %w", err)
	}
	p, err := pairRuns(filepath.Join(baseDir, FileResults), curResults)
	if err != nil {
		return nil, nil, nil, err
	}
	c := &Comparison{BaselineRunID: base.Config.RunID, BaselineDir: baseDir, Metrics: []MetricComparison{},
		Shared: p.shared, OnlyBaseline: p.onlyBase, OnlyCurrent: p.onlyCur}
	if cfg != nil {
		c.Judged = JudgedOtherwise(base.Config, *cfg)
	}
	alerts := []QualityAlert{}
	for _, m := range curSummary.Metrics {
		mc := p.compareMetric(m.Metric, m.Threshold)
		if !p.restricted() {
			mc.BaselineMean, mc.CurrentMean = baselineMean(base, p, m.Metric), m.Mean
		}
		mc.Delta = mc.CurrentMean - mc.BaselineMean
		mc.NotInBaseline = p.base.metrics[m.Metric] == nil && !inSummary(base.Summary, m.Metric)
		c.Metrics = append(c.Metrics, mc)
		alerts = append(alerts, MeanAlerts(m.Metric, float64(mc.CurrentMean), float64(mc.BaselineMean))...)
	}
	c.BaselineOnlyMetrics = baselineOnly(base, curSummary)
	return c, alerts, p, nil
}

// baselineOnly are the metrics of the baseline run base (its config's,
// and its summary's) that the current summary has no figures of.
func baselineOnly(base *Folder, cur Summary) []string {
	var out []string
	names := slices.Clone(base.Config.Metrics)
	if base.Summary != nil {
		for _, m := range base.Summary.Metrics {
			names = append(names, m.Metric)
		}
	}
	for _, name := range names {
		if !inSummary(&cur, name) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// BaselineOnlyNote says which metrics the baseline judged and the run
// compared with it did not (Comparison.BaselineOnlyMetrics); "" when
// none.
func BaselineOnlyNote(c *Comparison) string {
	if len(c.BaselineOnlyMetrics) == 0 {
		return ""
	}
	return "the baseline judged " + strings.Join(c.BaselineOnlyMetrics, ", ") + ", which this run did not: not compared"
}

// inSummary reports whether s (nil: none) has figures of metric.
func inSummary(s *Summary, metric string) bool {
	return s != nil && slices.ContainsFunc(s.Metrics, func(m MetricStats) bool { return m.Metric == metric })
}

// NotInBaselineNote says why m has no baseline figures when the baseline
// never judged its metric (MetricComparison.NotInBaseline); "" otherwise.
func NotInBaselineNote(m MetricComparison) string {
	if !m.NotInBaseline {
		return ""
	}
	return "the baseline has no results for " + m.Metric + ": nothing to compare"
}

// JudgedOtherwise lists how the run was judged (cfg) otherwise than
// the baseline (base): another model, or other versions of the prompts
// both use. A comparison, a diff or a trend across such runs measures the
// judge as well as the system, and says so.
func JudgedOtherwise(base, cfg Config) []string {
	var out []string
	if base.Model != cfg.Model {
		out = append(out, fmt.Sprintf("model %s, now %s", quoteOrNone(base.Model), quoteOrNone(cfg.Model)))
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Prompts)) {
		if was, ok := base.Prompts[name]; ok && was != cfg.Prompts[name] {
			out = append(out, fmt.Sprintf("prompt %s version %s, now %s", name, was, cfg.Prompts[name]))
		}
	}
	return out
}

// Passes reports whether a counted result of value v passes: its card's
// verdict (pass) when it has one, else v (rounded to four decimals, as
// judge prints it and a --min floor compares it) >= threshold, as a
// summary's pass rate counts it.
func Passes(pass *bool, v, threshold float64) bool {
	if pass != nil {
		return *pass
	}
	return Round(v) >= threshold
}

// baselineMean is the baseline run's mean of metric: its summary's, else
// the mean of its scored values; NaN when it scored none.
func baselineMean(base *Folder, p *Pairing, metric string) Num {
	if base.Summary != nil {
		for _, m := range base.Summary.Metrics {
			if m.Metric == metric {
				return m.Mean
			}
		}
	}
	return p.mean(p.base, metric)
}
