package run

import (
	"cmp"
	"errors"
	"math"
	"os"
	"slices"
	"time"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/stats"
)

// MaxMoved is how many of the samples whose value moved most (either
// way) a MetricComparison lists.
const MaxMoved = 10

// Verdicts of a cell: no counted result, or one that passed or failed by
// its card (a result without a card's verdict passes by its value).
const (
	cellEmpty int8 = iota
	cellByValue
	cellPass
	cellFail
)

// cells are one metric's results in one run, by sample index: what a
// comparison needs of each, nothing more.
type cells struct {
	value   []float64 // meaningful where state is not cellEmpty
	state   []int8
	latency []float32 // milliseconds
}

// set records sample i's result, the last line of a pair winning.
func (c *cells) set(i int32, r Result) {
	for int(i) >= len(c.state) {
		c.value, c.state, c.latency = append(c.value, 0), append(c.state, cellEmpty), append(c.latency, 0)
	}
	if !r.Counted() {
		c.state[i] = cellEmpty
		return
	}
	c.value[i], c.latency[i] = r.Value, float32(float64(r.Usage.Latency)/float64(time.Millisecond))
	switch {
	case r.Pass == nil:
		c.state[i] = cellByValue
	case *r.Pass:
		c.state[i] = cellPass
	default:
		c.state[i] = cellFail
	}
}

// at is sample i's counted value, false when it has none.
func (c *cells) at(i int32) (float64, bool) {
	if c == nil || int(i) >= len(c.state) || c.state[i] == cellEmpty {
		return 0, false
	}
	return c.value[i], true
}

// passes reports whether sample i's counted result passes: its card's
// verdict, else its value against threshold (see passed).
func (c *cells) passes(i int32, threshold float64) bool {
	switch c.state[i] {
	case cellPass:
		return true
	case cellFail:
		return false
	}
	return c.value[i] >= threshold
}

// runValues is what a comparison keeps of one run's results.jsonl.
type runValues struct {
	// has marks the samples with a result line, of any metric.
	has     []bool
	metrics map[string]*cells
}

// Pairing is two runs' results read for a comparison, their samples
// indexed alike.
type Pairing struct {
	ids   map[string]int32
	names []string
	// order is every sample index in SampleOrder of its id: the fixed
	// order sums and resamples go in.
	order     []int32
	base, cur *runValues
	// shared counts the samples both runs have; onlyBase and onlyCur
	// those one has and the other lacks.
	shared, onlyBase, onlyCur int
}

// pairRuns reads the two results.jsonl line by line. A file that does
// not exist holds no results.
func pairRuns(basePath, curPath string) (*Pairing, error) {
	p := &Pairing{ids: map[string]int32{}}
	var err error
	if p.base, err = p.read(basePath); err != nil {
		return nil, err
	}
	if p.cur, err = p.read(curPath); err != nil {
		return nil, err
	}
	p.order = make([]int32, len(p.names))
	for i := range p.order {
		p.order[i] = int32(i)
	}
	slices.SortFunc(p.order, func(a, b int32) int { return SampleOrder(p.names[a], p.names[b]) })
	for i := range p.names {
		inBase, inCur := p.base.hasSample(int32(i)), p.cur.hasSample(int32(i))
		switch {
		case inBase && inCur:
			p.shared++
		case inBase:
			p.onlyBase++
		case inCur:
			p.onlyCur++
		}
	}
	return p, nil
}

func (v *runValues) hasSample(i int32) bool { return int(i) < len(v.has) && v.has[i] }

// read reads one run's results.jsonl into values indexed by p's ids.
func (p *Pairing) read(path string) (*runValues, error) {
	v := &runValues{metrics: map[string]*cells{}}
	err := scanFile(path, nil, func(_ int, r Result) {
		i, ok := p.ids[r.ID]
		if !ok {
			i = int32(len(p.names))
			p.ids[r.ID] = i
			p.names = append(p.names, r.ID)
		}
		for int(i) >= len(v.has) {
			v.has = append(v.has, false)
		}
		v.has[i] = true
		c := v.metrics[r.Metric]
		if c == nil {
			c = &cells{}
			v.metrics[r.Metric] = c
		}
		c.set(i, r)
	})
	if errors.Is(err, os.ErrNotExist) {
		// Every run folder bench makes has one from its start: without
		// it, the run's scores are gone, and comparing with nothing
		// would raise no alert and pass.
		return nil, &eval.InputError{File: path, Msg: "missing: the run's results are gone, so it cannot be compared (its summary alone pairs no sample)", Err: err}
	}
	return v, err
}

// restricted reports whether a run has samples the other lacks: the
// comparison is then over the samples both have.
func (p *Pairing) restricted() bool { return p.onlyBase+p.onlyCur > 0 }

// counts reports whether sample i enters the comparison's means.
func (p *Pairing) counts(i int32) bool {
	return !p.restricted() || (p.base.hasSample(i) && p.cur.hasSample(i))
}

// mean is run v's mean of metric over the samples that count, NaN when
// it scored none of them.
func (p *Pairing) mean(v *runValues, metric string) Num {
	c := v.metrics[metric]
	sum, n := 0.0, 0
	for _, i := range p.order {
		if x, ok := c.at(i); ok && p.counts(i) {
			sum += x
			n++
		}
	}
	if n == 0 {
		return Num(math.NaN())
	}
	return Num(sum / float64(n))
}

// AB is seed 002's A/B analysis of metric (AnalyzeABTest): the baseline
// the control, the current run the treatment, over the samples that
// count.
func (p *Pairing) AB(metric string) ABTestAnalysis {
	var control, treatment abMeans
	for _, side := range []struct {
		v *runValues
		m *abMeans
	}{{p.base, &control}, {p.cur, &treatment}} {
		c := side.v.metrics[metric]
		for _, i := range p.order {
			if x, ok := c.at(i); ok && p.counts(i) {
				side.m.n++
				side.m.qualitySum += x
				side.m.latencySum += float64(c.latency[i])
			}
		}
	}
	return abAnalysis(control, treatment)
}

// compareMetric compares metric over the samples both runs scored; the
// means are those of the samples that count (see Compare).
func (p *Pairing) compareMetric(metric string, threshold float64) MetricComparison {
	bc, cc := p.base.metrics[metric], p.cur.metrics[metric]
	mc := MetricComparison{Metric: metric, BaselineMean: p.mean(p.base, metric), CurrentMean: p.mean(p.cur, metric),
		P: Num(math.NaN()), FlipP: Num(math.NaN()), FlipMidP: Num(math.NaN()),
		MeanDiff: Num(math.NaN()), DiffLow: Num(math.NaN()), DiffHigh: Num(math.NaN())}
	var pairs []int32
	var before, after []float64
	var fails, passes []int32
	for _, i := range p.order {
		b, okb := bc.at(i)
		v, okc := cc.at(i)
		if !okb || !okc {
			continue
		}
		pairs = append(pairs, i)
		before, after = append(before, b), append(after, v)
		was, now := bc.passes(i, threshold), cc.passes(i, threshold)
		switch {
		case was && !now:
			fails = append(fails, i)
		case !was && now:
			passes = append(passes, i)
		}
	}
	mc.Paired = len(pairs)
	if mc.Paired == 0 {
		return mc
	}
	change := func(i int32) SampleChange {
		b, _ := bc.at(i)
		v, _ := cc.at(i)
		return SampleChange{ID: p.names[i], Baseline: b, Current: v}
	}
	delta := func(i int32) float64 { c := change(i); return c.Current - c.Baseline }
	diffs := make([]float64, len(before))
	for k := range before {
		diffs[k] = after[k] - before[k]
	}
	w := stats.Wilcoxon(diffs)
	mc.Test, mc.P = w.Name(), Num(w.P)
	d := stats.PairedMeanDiff(before, after, BootstrapResamples, BootstrapSeed)
	mc.MeanDiff, mc.DiffLow, mc.DiffHigh = Num(d.Mean), Num(d.Lo), Num(d.Hi)

	mc.NowFailing, mc.NowPassing = len(fails), len(passes)
	if mn := stats.McNemar(mc.NowFailing, mc.NowPassing); mn.Discordant() > 0 {
		mc.FlipTest, mc.FlipP, mc.FlipMidP = "mcnemar exact", Num(mn.P), Num(mn.MidP)
	}
	// Moves compare rounded to 1e-9, as Wilcoxon ranks them, so that
	// moves equal but for floating-point noise tie, in SampleOrder.
	move := func(i int32) float64 { return math.Round(math.Abs(delta(i)) * 1e9) }
	byMove := func(a, b int32) int {
		return cmp.Or(cmp.Compare(move(b), move(a)), SampleOrder(p.names[a], p.names[b]))
	}
	for _, way := range []struct {
		ids  []int32
		flip string
	}{{fails, FlipFails}, {passes, FlipPasses}} {
		slices.SortFunc(way.ids, byMove)
		for _, i := range way.ids[:min(len(way.ids), MaxFlipped)] {
			c := change(i)
			c.Flip = way.flip
			mc.Flipped = append(mc.Flipped, c)
		}
	}

	fell := slices.DeleteFunc(slices.Clone(pairs), func(i int32) bool { return delta(i) >= 0 })
	// Falls tie as moves do (rounded to 1e-9) and ties go in SampleOrder,
	// so that the page lists the samples the terminal and Markdown do.
	slices.SortFunc(fell, func(a, b int32) int {
		return cmp.Or(cmp.Compare(move(b), move(a)), SampleOrder(p.names[a], p.names[b]))
	})
	for _, i := range fell[:min(len(fell), MaxFell)] {
		mc.Fell = append(mc.Fell, change(i))
	}
	moved := slices.DeleteFunc(pairs, func(i int32) bool { return move(i) == 0 })
	slices.SortFunc(moved, byMove)
	for _, i := range moved[:min(len(moved), MaxMoved)] {
		mc.Moved = append(mc.Moved, change(i))
	}
	return mc
}
