package run

import (
	"fmt"
	"maps"
	"math"
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
// (every metric) or as METRIC=VALUE. A floor given twice (two values
// alone, or one metric twice) is an error rather than the last one
// silently winning, and so is an empty floor between commas ("$FLOOR,
// faithfulness=0.8" with $FLOOR unset), rather than a floor left out in
// silence; s blank sets none. It forgets earlier floors and counts.
func (g *MinGate) Set(s string) error {
	*g = MinGate{by: map[string]float64{}, text: s}
	if strings.TrimSpace(s) == "" {
		return nil
	}
	all := false // the floor for every metric is set
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return fmt.Errorf("%q: an empty floor between commas: want VALUE or METRIC=VALUE in each place, as 0.7,faithfulness=0.8", s)
		}
		metric, value, named := strings.Cut(part, "=")
		if !named {
			metric, value = "", part
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || !(v >= 0 && v <= 1) { // NaN too
			return fmt.Errorf("%q: want a value from 0 to 1, or METRIC=VALUE", part)
		}
		metric = strings.TrimSpace(metric)
		switch {
		case named && metric == "":
			return fmt.Errorf("%q: no metric before =: want METRIC=VALUE, or the value alone for every metric", part)
		case !named && all:
			return fmt.Errorf("%q: a floor for every metric is given twice; give one", s)
		case !named:
			g.all, all = v, true
		default:
			if _, twice := g.by[metric]; twice {
				return fmt.Errorf("%q: %s is given twice; give it one floor", s, metric)
			}
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

// The statistics a Gate may test, as MetricStats names them in
// summary.json.
var gateStats = []string{"mean", "min", "max", "median", "p10", "pass_rate", "defaulted", "defaulted_rate", "weak_passes"}

// The comparisons a Gate may make, longest first so that ">=" is not read
// as ">".
var gateOps = []string{">=", "<=", ">", "<"}

// Gate is one `--gate 'METRIC.STAT OP NUMBER'`: a statistic of a metric
// over a run, compared with a number (seed 002's CI tests are
// 'context_quality.mean>=0.65' and 'context_quality.min>=0.3').
type Gate struct {
	// Expr is the expression as given.
	Expr   string
	Metric string
	// Stat is one of mean, min, max, median, p10, pass_rate, defaulted
	// (a count), defaulted_rate and weak_passes (a count: the sampled
	// judgements that passed in some draws and failed in others).
	Stat string
	// Op is one of >=, >, <=, <.
	Op   string
	Want float64
}

// ParseGate parses 'METRIC.STAT OP NUMBER'; spaces around the parts are
// allowed. An expression that does not parse is an error naming the part
// that is wrong and what is allowed there.
func ParseGate(expr string) (Gate, error) {
	g := Gate{Expr: strings.TrimSpace(expr)}
	i, op := -1, ""
	for _, o := range gateOps {
		if j := strings.Index(g.Expr, o); j >= 0 && (i < 0 || j < i) {
			i, op = j, o
		}
	}
	if i < 0 {
		return Gate{}, fmt.Errorf("gate %q: no comparison: want METRIC.STAT OP NUMBER with OP one of %s, e.g. 'context_quality.mean>=0.65'", expr, strings.Join(gateOps, " "))
	}
	left, right := strings.TrimSpace(g.Expr[:i]), strings.TrimSpace(g.Expr[i+len(op):])
	g.Op = op
	dot := strings.LastIndexByte(left, '.')
	if dot < 0 {
		return Gate{}, fmt.Errorf("gate %q: %q is not METRIC.STAT: want a metric, a dot and one of %s", expr, left, strings.Join(gateStats, ", "))
	}
	g.Metric, g.Stat = strings.TrimSpace(left[:dot]), strings.TrimSpace(left[dot+1:])
	if g.Metric == "" || strings.ContainsAny(g.Metric, " \t") {
		return Gate{}, fmt.Errorf("gate %q: metric %q: want a metric name such as faithfulness or context_quality", expr, g.Metric)
	}
	if !slices.Contains(gateStats, g.Stat) {
		return Gate{}, fmt.Errorf("gate %q: statistic %q: want one of %s", expr, g.Stat, strings.Join(gateStats, ", "))
	}
	v, err := strconv.ParseFloat(right, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Gate{}, fmt.Errorf("gate %q: %q after %s is not a number: want a finite number such as 0.65", expr, right, op)
	}
	// A number the statistic can never reach makes a gate that always
	// fails or always holds: 65 meant 65% (0.65), or points meant a value.
	switch {
	case g.Stat == "defaulted" || g.Stat == "weak_passes":
		if v < 0 {
			return Gate{}, fmt.Errorf("gate %q: %s is a count, 0 or more; got %g", expr, g.Stat, v)
		}
	case v < 0 || v > 1:
		return Gate{}, fmt.Errorf("gate %q: %s is a value from 0 to 1 (0.65 for 65%%); got %g", expr, g.Stat, v)
	}
	g.Want = v
	return g, nil
}

// String is the gate in its canonical form, "metric.stat>=0.65".
func (g Gate) String() string {
	return g.Metric + "." + g.Stat + g.Op + strconv.FormatFloat(g.Want, 'g', -1, 64)
}

// value is the gate's statistic of m; NaN when undefined.
func (g Gate) value(m MetricStats) float64 {
	switch g.Stat {
	case "mean":
		return float64(m.Mean)
	case "min":
		return float64(m.Min)
	case "max":
		return float64(m.Max)
	case "median":
		return float64(m.Median)
	case "p10":
		return float64(m.P10)
	case "pass_rate":
		return float64(m.PassRate)
	case "defaulted":
		return float64(m.Defaulted)
	case "weak_passes":
		return float64(m.WeakPasses)
	case "defaulted_rate":
		if m.N == 0 {
			return math.NaN()
		}
		return m.DefaultedRate
	}
	return math.NaN()
}

// holds reports whether got OP want; an undefined got never holds.
func (g Gate) holds(got float64) bool {
	switch g.Op {
	case ">=":
		return got >= g.Want
	case ">":
		return got > g.Want
	case "<=":
		return got <= g.Want
	case "<":
		return got < g.Want
	}
	return false
}

// CheckGates checks each gate against the run's summary, in order. A gate
// on a metric the run does not have fails, and so does one whose statistic
// is undefined (a mean with nothing scored): a gate passes only on a
// measurement that meets it. Reason says why a gate failed.
func CheckGates(gates []Gate, s Summary) []GateResult {
	out := make([]GateResult, 0, len(gates))
	for _, g := range gates {
		r := GateResult{Gate: g.Expr, Metric: g.Metric, Stat: g.Stat, Op: g.Op, Want: g.Want, Got: Num(math.NaN())}
		if r.Gate == "" {
			r.Gate = g.String()
		}
		i := slices.IndexFunc(s.Metrics, func(m MetricStats) bool { return m.Metric == g.Metric })
		if i < 0 {
			names := make([]string, len(s.Metrics))
			for j, m := range s.Metrics {
				names[j] = m.Metric
			}
			r.Reason = fmt.Sprintf("the run has no metric %s (it has %s)", g.Metric, strings.Join(names, ", "))
			out = append(out, r)
			continue
		}
		m := s.Metrics[i]
		got := g.value(m)
		r.Got = Num(got)
		switch {
		case math.IsNaN(got):
			r.Reason = fmt.Sprintf("%s.%s is undefined: %d of %d results scored (%d defaulted, %d skipped)", g.Metric, g.Stat, m.Scored, m.N, m.Defaulted, m.Skipped)
		case g.holds(got):
			r.Passed = true
		default:
			r.Reason = fmt.Sprintf("%s.%s is %s, want %s %s", g.Metric, g.Stat, r.GotText('g', 6), g.Op, strconv.FormatFloat(g.Want, 'g', -1, 64))
		}
		out = append(out, r)
	}
	return out
}

// GotText is the measured value as strconv.FormatFloat writes it with
// format and prec, given more digits where those would round it onto or
// across the gate's number: 0.58908999 failing >= 0.58909 is not written
// 0.5891, which would read as meeting it. A value whose rounding keeps
// the gate's outcome keeps its short form.
func (r GateResult) GotText(format byte, prec int) string {
	v := float64(r.Got)
	g := Gate{Op: r.Op, Want: r.Want}
	for p := prec; p <= 17; p++ {
		s := strconv.FormatFloat(v, format, p, 64)
		if shown, err := strconv.ParseFloat(s, 64); err == nil && g.holds(shown) == g.holds(v) {
			return s
		}
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Round is a value as judge prints it and floors compare it: four
// decimals.
func Round(v float64) float64 { return float64(int64(v*10000+0.5)) / 10000 }
