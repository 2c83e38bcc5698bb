package bench

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/assaylabs/assay/stats"
)

// MaxFell is how many of the samples that fell most a MetricComparison
// lists.
const MaxFell = 5

// MaxFlipped is how many of the samples that flipped pass/fail a
// MetricComparison lists: those now failing first, the largest change
// first.
const MaxFlipped = 100

// RunFolder is a run folder read back: its config, its results and, when the
// run got that far, its summary.
type RunFolder struct {
	Dir     string
	Config  RunConfig
	Results *ResultFile
	// Summary is nil when the folder has no summary.json. Its metrics
	// are in the order of Config's (see InConfigOrder).
	Summary *Summary
}

// ReadRunFolder reads the run folder dir. A folder without config.json is not a
// run folder: the error says so.
func ReadRunFolder(dir string) (*RunFolder, error) {
	b, err := os.ReadFile(filepath.Join(dir, FileConfig))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a run folder (no %s): give a folder written by assay bench --out", dir, FileConfig)
	}
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	run := &RunFolder{Dir: dir}
	if err := json.Unmarshal(b, &run.Config); err != nil {
		return nil, fmt.Errorf("run %s: %s does not parse (%w): is it a file written by assay bench?", dir, FileConfig, err)
	}
	if run.Results, err = ReadResults(filepath.Join(dir, FileResults)); err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	b, err = os.ReadFile(filepath.Join(dir, FileSummary))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("run %s: %w", dir, err)
	default:
		run.Summary = &Summary{}
		if err := json.Unmarshal(b, run.Summary); err != nil {
			return nil, fmt.Errorf("run %s: %s does not parse (%w): is it a file written by assay bench?", dir, FileSummary, err)
		}
		run.Summary.Metrics = InConfigOrder(run.Summary.Metrics, run.Config.Metrics)
	}
	return run, nil
}

// Compare compares the current run (its results and summary) with the
// baseline run in baseDir, metric by metric over the current summary's
// metrics: the baseline's and the current mean and their delta, the
// Wilcoxon signed-rank test over the samples both runs scored (see
// stats.Wilcoxon), and the samples that fell most. It returns seed 002's alerts
// too (see MeanAlerts), metric by metric: any alert is a regression.
//
// Means are over scored values only, never defaults; the baseline's come
// from its summary.json, or from its results when it has none.
//
// cfg, when not nil, is the current run's configuration: the comparison
// then says how the baseline was judged otherwise (JudgedOtherwise).
func Compare(baseDir string, cur *ResultFile, curSummary Summary, cfg *RunConfig) (*Comparison, []QualityAlert, error) {
	base, err := ReadRunFolder(baseDir)
	if err != nil {
		return nil, nil, fmt.Errorf("baseline: %w", err)
	}
	baseValues := countedValues(base.Results)
	curValues := countedValues(cur)
	baseVerdicts, curVerdicts := verdicts(base.Results), verdicts(cur)
	c := &Comparison{BaselineRunID: base.Config.RunID, BaselineDir: baseDir, Metrics: []MetricComparison{}}
	if cfg != nil {
		c.Judged = JudgedOtherwise(base.Config, *cfg)
	}
	alerts := []QualityAlert{}
	for _, m := range curSummary.Metrics {
		mc := MetricComparison{Metric: m.Metric, BaselineMean: baselineMean(base, baseValues, m.Metric), CurrentMean: m.Mean}
		mc.Delta = mc.CurrentMean - mc.BaselineMean
		var diffs []float64
		for id, v := range curValues[m.Metric] {
			b, ok := baseValues[m.Metric][id]
			if !ok {
				continue
			}
			diffs = append(diffs, v-b)
			if v < b {
				mc.Fell = append(mc.Fell, SampleChange{ID: id, Baseline: b, Current: v})
			}
			k := Key{ID: id, Metric: m.Metric}
			was, now := passed(verdictOf(baseVerdicts, k), b, m.Threshold), passed(verdictOf(curVerdicts, k), v, m.Threshold)
			switch {
			case was && !now:
				mc.NowFailing++
				mc.Flipped = append(mc.Flipped, SampleChange{ID: id, Baseline: b, Current: v, Flip: FlipFails})
			case !was && now:
				mc.NowPassing++
				mc.Flipped = append(mc.Flipped, SampleChange{ID: id, Baseline: b, Current: v, Flip: FlipPasses})
			}
		}
		mc.Paired = len(diffs)
		mc.P = Num(math.NaN())
		if mc.Paired > 0 {
			w := stats.Wilcoxon(diffs)
			mc.Test, mc.P = w.Name(), Num(w.P)
		}
		slices.SortFunc(mc.Fell, func(a, b SampleChange) int {
			return cmp.Or(cmp.Compare(a.Current-a.Baseline, b.Current-b.Baseline), cmp.Compare(a.ID, b.ID))
		})
		if len(mc.Fell) > MaxFell {
			mc.Fell = mc.Fell[:MaxFell]
		}
		slices.SortFunc(mc.Flipped, func(a, b SampleChange) int {
			return cmp.Or(cmp.Compare(a.Flip, b.Flip), // "fails" first
				cmp.Compare(math.Abs(b.Current-b.Baseline), math.Abs(a.Current-a.Baseline)), SampleOrder(a.ID, b.ID))
		})
		if len(mc.Flipped) > MaxFlipped {
			mc.Flipped = mc.Flipped[:MaxFlipped]
		}
		c.Metrics = append(c.Metrics, mc)
		alerts = append(alerts, MeanAlerts(m.Metric, float64(mc.CurrentMean), float64(mc.BaselineMean))...)
	}
	return c, alerts, nil
}

// JudgedOtherwise lists how the run was judged (cfg) otherwise than
// the baseline (base): another model, or other versions of the prompts
// both use. A comparison, a diff or a trend across such runs measures the
// judge as well as the system, and says so.
func JudgedOtherwise(base, cfg RunConfig) []string {
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

// countedValues maps metric to sample id to value, for the results that
// count (neither defaulted nor skipped).
func countedValues(f *ResultFile) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	if f == nil {
		return out
	}
	for r := range f.All() {
		if !r.Counted() {
			continue
		}
		if out[r.Metric] == nil {
			out[r.Metric] = map[string]float64{}
		}
		out[r.Metric][r.ID] = r.Value
	}
	return out
}

// verdicts are the card verdicts (Result.Pass) of the counted results of
// f that have one: most metrics have none, and pass by their value.
func verdicts(f *ResultFile) map[Key]bool {
	out := map[Key]bool{}
	if f == nil {
		return out
	}
	for r := range f.All() {
		if r.Counted() && r.Pass != nil {
			out[r.Key()] = *r.Pass
		}
	}
	return out
}

// verdictOf is k's card verdict, nil when it has none.
func verdictOf(verdicts map[Key]bool, k Key) *bool {
	if p, ok := verdicts[k]; ok {
		return &p
	}
	return nil
}

// passed reports whether a counted result of value v passes: its card's
// verdict (pass) when it has one, else v >= threshold, as a summary's
// pass rate counts it.
func passed(pass *bool, v, threshold float64) bool {
	if pass != nil {
		return *pass
	}
	return v >= threshold
}

// baselineMean is the baseline run's mean of metric: its summary's, else
// the mean of its scored values; NaN when it scored none.
func baselineMean(base *RunFolder, values map[string]map[string]float64, metric string) Num {
	if base.Summary != nil {
		for _, m := range base.Summary.Metrics {
			if m.Metric == metric {
				return m.Mean
			}
		}
	}
	vs := values[metric]
	if len(vs) == 0 {
		return Num(math.NaN())
	}
	sum := 0.0
	for _, id := range slices.Sorted(maps.Keys(vs)) { // a fixed order: the same sum every time
		sum += vs[id]
	}
	return Num(sum / float64(len(vs)))
}
