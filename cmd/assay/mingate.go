package main

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// minGate is the judge command's --min: one floor for every metric
// ("0.7"), floors by metric ("faithfulness=0.8,answer_relevancy=0.7"), or
// both ("0.5,faithfulness=0.8": 0.8 for faithfulness, 0.5 for the rest).
// It implements pflag.Value.
type minGate struct {
	all   float64
	by    map[string]float64
	text  string
	below map[string]int // scores under the floor, by metric
	// skipped counts, by metric, the results among below that were
	// skipped (nothing to judge) rather than scored low.
	skipped map[string]int
}

func (g *minGate) String() string { return g.text }

func (g *minGate) Type() string { return "floor" }

func (g *minGate) Set(s string) error {
	g.all, g.by, g.text = 0, map[string]float64{}, s
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		metric, value, named := strings.Cut(part, "=")
		if !named {
			metric, value = "", part
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || !(v >= 0 && v <= 1) { // NaN too
			return fmt.Errorf("%q: want a value from 0 to 1, or METRIC=VALUE", part)
		}
		if metric = strings.TrimSpace(metric); metric == "" {
			g.all = v
		} else {
			g.by[metric] = v
		}
	}
	return nil
}

// check reports an error when a floor names a metric the run does not
// judge: a typo would otherwise gate nothing.
func (g *minGate) check(metrics []string) error {
	for _, m := range slices.Sorted(maps.Keys(g.by)) {
		if !slices.Contains(metrics, m) {
			return fmt.Errorf("--min %s=%g: %s is not among the judged metrics (%s)", m, g.by[m], m, strings.Join(metrics, ", "))
		}
	}
	return nil
}

// floor returns the gate of a metric; 0 means none.
func (g *minGate) floor(metric string) float64 {
	if v, ok := g.by[metric]; ok {
		return v
	}
	return g.all
}

// count records a result; a neutral default cannot pass a gate, nor can a
// result skipped because there was nothing to judge.
func (g *minGate) count(r judgeResult) {
	f := g.floor(r.Metric)
	if f <= 0 || (r.Value >= f && !r.Defaulted && !r.Skipped) {
		return
	}
	if g.below == nil {
		g.below, g.skipped = map[string]int{}, map[string]int{}
	}
	g.below[r.Metric]++
	if r.Skipped {
		g.skipped[r.Metric]++
	}
}

// err is the exit-1 error when any result was under its floor.
func (g *minGate) err() error {
	if len(g.below) == 0 {
		return nil
	}
	var parts []string
	n := 0
	for _, m := range slices.Sorted(maps.Keys(g.below)) {
		n += g.below[m]
		part := fmt.Sprintf("%s %d under %g", m, g.below[m], g.floor(m))
		if k := g.skipped[m]; k > 0 {
			part += fmt.Sprintf(" (%d of them skipped: nothing to judge)", k)
		}
		parts = append(parts, part)
	}
	return &exitError{code: exitFailed, err: fmt.Errorf("%d score(s) below --min (%s)", n, strings.Join(parts, ", "))}
}
