package bench

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/assaylabs/assay/eval"
)

// MinGate is the floor gate, the command line's --min: every score of a
// run must reach its metric's floor. The floors are one for every metric
// ("0.7"), floors by metric ("faithfulness=0.8,answer_relevancy=0.7"), or
// both ("0.5,faithfulness=0.8": 0.8 for faithfulness, 0.5 for the rest).
// A neutral default never passes a floor, nor does a result skipped for
// having nothing to judge.
//
// The zero value gates nothing. Set parses the floors (MinGate is a
// flag.Value), Check validates them against the metrics of a run, Add
// counts each score and Err gives the verdict. It is not safe for
// concurrent use.
type MinGate struct {
	all  float64
	by   map[string]float64
	text string
	// below counts, by metric, the scores under the floor; skipped those
	// of them skipped (nothing to judge) rather than scored low.
	below, skipped map[string]int
}

// ParseMinGate parses floors as Set does.
func ParseMinGate(s string) (*MinGate, error) {
	g := &MinGate{}
	if err := g.Set(s); err != nil {
		return nil, err
	}
	return g, nil
}

// String is the floors as given to Set.
func (g *MinGate) String() string { return g.text }

// Set parses the floors, comma separated; each a value from 0 to 1, alone
// (every metric) or as METRIC=VALUE. It forgets earlier floors and counts.
func (g *MinGate) Set(s string) error {
	*g = MinGate{by: map[string]float64{}, text: s}
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

// Check reports an error when a floor names a metric the run does not
// judge: a typo would otherwise gate nothing.
func (g *MinGate) Check(metrics []string) error {
	for _, m := range slices.Sorted(maps.Keys(g.by)) {
		if !slices.Contains(metrics, m) {
			return fmt.Errorf("--min %s=%g: %s is not among the judged metrics (%s)", m, g.by[m], m, strings.Join(metrics, ", "))
		}
	}
	return nil
}

// Floor is the floor of metric; 0 means none.
func (g *MinGate) Floor(metric string) float64 {
	if v, ok := g.by[metric]; ok {
		return v
	}
	return g.all
}

// Add counts one score against its metric's floor, comparing its Value as
// given (the command line gives the value it prints, rounded to four
// places).
func (g *MinGate) Add(sc eval.Score) {
	f := g.Floor(sc.Metric)
	if f <= 0 || (sc.Value >= f && !sc.Defaulted && !sc.Skipped) {
		return
	}
	if g.below == nil {
		g.below, g.skipped = map[string]int{}, map[string]int{}
	}
	g.below[sc.Metric]++
	if sc.Skipped {
		g.skipped[sc.Metric]++
	}
}

// Err is a *BelowFloorError when any score counted was under its floor,
// else nil.
func (g *MinGate) Err() error {
	if len(g.below) == 0 {
		return nil
	}
	e := &BelowFloorError{}
	for _, m := range slices.Sorted(maps.Keys(g.below)) {
		e.Metrics = append(e.Metrics, FloorMiss{Metric: m, Floor: g.Floor(m), Below: g.below[m], Skipped: g.skipped[m]})
	}
	return e
}

// BelowFloorError is the verdict of a MinGate that scores failed: the
// command line maps it to exit 1.
type BelowFloorError struct {
	// Metrics are the metrics with scores under their floor, by name.
	Metrics []FloorMiss
}

// FloorMiss counts the scores of one metric under its floor.
type FloorMiss struct {
	Metric string
	Floor  float64
	// Below is the number of scores under the floor; Skipped of them were
	// skipped (nothing to judge) rather than scored low.
	Below, Skipped int
}

func (e *BelowFloorError) Error() string {
	n := 0
	parts := make([]string, 0, len(e.Metrics))
	for _, m := range e.Metrics {
		n += m.Below
		part := fmt.Sprintf("%s %d under %g", m.Metric, m.Below, m.Floor)
		if m.Skipped > 0 {
			part += fmt.Sprintf(" (%d of them skipped: nothing to judge)", m.Skipped)
		}
		parts = append(parts, part)
	}
	return fmt.Sprintf("%d score(s) below --min (%s)", n, strings.Join(parts, ", "))
}
