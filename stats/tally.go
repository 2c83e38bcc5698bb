package stats

import (
	"cmp"
	"math"
	"slices"
)

// Tally is paired values (x[i], y[i]) kept as their distinct pairs, for the
// statistics of many resamples of them: a bootstrap's. A resample, items
// drawn by index with repeats ([Tally.Draw]), is how many times it drew
// each distinct pair, and each statistic of a Tally reads those counts in
// time linear in the distinct pairs, where the same statistic of the
// resample's values ([Spearman], [KendallTauB], [WeightedKappa], ...) sorts
// them or allocates per item. With grades, a handful of distinct pairs
// stand for any number of items; with a judge's values, about as many as
// items, still without a sort per resample.
//
// Each statistic equals the function of the same name on the values the
// resample drew (tested to 1e-12), NaN where that one is: a resample of
// fewer than two items, a constant side, or a Tally of inputs that differ
// in length or hold a NaN. A Tally is not safe for concurrent use: Draw
// sets its counts.
type Tally struct {
	code   []int     // code[i]: the distinct pair of item i
	px, py []int     // each distinct pair's x and y, as positions in xv and yv
	xv, yv []float64 // the distinct values of x and of y, ascending
	x, y   []float64 // each distinct pair's values
	w      []float64 // the current resample's count of each distinct pair
	rx, ry []float64 // scratch: each distinct pair's ranks
	bad    bool      // lengths differ, or a NaN
}

// NewTally returns the tally of x and y, its counts those of every item
// once. It keeps neither slice.
func NewTally(x, y []float64) *Tally {
	t := &Tally{}
	if len(x) != len(y) || hasNaN(x) || hasNaN(y) {
		t.bad = true
		return t
	}
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(x[a], x[b]); c != 0 {
			return c
		}
		return cmp.Compare(y[a], y[b])
	})
	t.xv, t.yv = distinct(x), distinct(y)
	t.code = make([]int, len(x))
	for k, i := range order {
		if k == 0 || x[i] != x[order[k-1]] || y[i] != y[order[k-1]] {
			ix, _ := slices.BinarySearch(t.xv, x[i])
			iy, _ := slices.BinarySearch(t.yv, y[i])
			t.px, t.py = append(t.px, ix), append(t.py, iy)
			t.x, t.y = append(t.x, x[i]), append(t.y, y[i])
		}
		t.code[i] = len(t.px) - 1
	}
	t.w = make([]float64, len(t.px))
	t.rx, t.ry = make([]float64, len(t.px)), make([]float64, len(t.px))
	for _, c := range t.code {
		t.w[c]++
	}
	return t
}

// distinct returns v's distinct values, ascending.
func distinct(v []float64) []float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return slices.Compact(s)
}

// Draw sets the counts to those of the resample that drew items idx (each
// an index of x and y, repeats allowed), as [Bootstrap] hands its stat.
func (t *Tally) Draw(idx []int) {
	if t.bad {
		return
	}
	clear(t.w)
	for _, i := range idx {
		t.w[t.code[i]]++
	}
}

// total is the number of items the counts stand for.
func (t *Tally) total() float64 {
	var n float64
	for _, w := range t.w {
		n += w
	}
	return n
}

// Pearson is [Pearson] of the items drawn.
func (t *Tally) Pearson() float64 {
	if t.bad {
		return math.NaN()
	}
	return t.pearson(t.x, t.y)
}

// pearson is the correlation of fx and fy, values of the distinct pairs,
// each pair counted its number of times. A side whose values drawn are
// all one value is NaN, as Pearson's: its mean, a sum of counts times
// that value over their total, can round off it (seven of 0.3), and the
// deviations left would make a correlation of about 0 out of none.
func (t *Tally) pearson(fx, fy []float64) float64 {
	n := t.total()
	if n < 2 || t.constant(fx) || t.constant(fy) {
		return math.NaN()
	}
	var sx, sy float64
	for p, w := range t.w {
		sx += w * fx[p]
		sy += w * fy[p]
	}
	mx, my := sx/n, sy/n
	var sxy, sxx, syy float64
	for p, w := range t.w {
		if w == 0 {
			continue
		}
		dx, dy := fx[p]-mx, fy[p]-my
		sxy += w * dx * dy
		sxx += w * dx * dx
		syy += w * dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// constant reports whether the distinct pairs drawn all have one value
// of f.
func (t *Tally) constant(f []float64) bool {
	first := -1
	for p, w := range t.w {
		if w == 0 {
			continue
		}
		if first < 0 {
			first = p
		} else if f[p] != f[first] {
			return false
		}
	}
	return true
}

// Spearman is [Spearman] of the items drawn: the correlation of their
// ranks, ties sharing the average of theirs.
func (t *Tally) Spearman() float64 {
	if t.bad {
		return math.NaN()
	}
	rx, ry := t.ranks(t.px, len(t.xv)), t.ranks(t.py, len(t.yv))
	for p := range t.w {
		t.rx[p], t.ry[p] = rx[t.px[p]], ry[t.py[p]]
	}
	return t.pearson(t.rx, t.ry)
}

// ranks returns the average rank (from 1) of each of k values among the
// items drawn, level[p] being distinct pair p's value.
func (t *Tally) ranks(level []int, k int) []float64 {
	counts := t.levelCounts(level, k)
	r := make([]float64, k)
	var before float64
	for v, c := range counts {
		r[v] = before + (c+1)/2
		before += c
	}
	return r
}

// levelCounts returns how many items drawn have each of k values, level[p]
// being distinct pair p's.
func (t *Tally) levelCounts(level []int, k int) []float64 {
	counts := make([]float64, k)
	for p, w := range t.w {
		counts[level[p]] += w
	}
	return counts
}

// KendallTauB is [KendallTauB] of the items drawn: the distinct pairs are
// in (x, y) order already, so the discordant pairs are counted with a
// Fenwick tree over y's values, in O(m log k) for m distinct pairs and k
// values of y.
func (t *Tally) KendallTauB() float64 {
	if t.bad {
		return math.NaN()
	}
	n := t.total()
	if n < 2 {
		return math.NaN()
	}
	pairs := func(c float64) float64 { return c * (c - 1) / 2 }
	var xtie, ytie, ntie float64
	for _, c := range t.levelCounts(t.px, len(t.xv)) {
		xtie += pairs(c)
	}
	for _, c := range t.levelCounts(t.py, len(t.yv)) {
		ytie += pairs(c)
	}
	// Earlier distinct pairs have a smaller x, or the same x and a smaller
	// y: those with a greater y are discordant with this one.
	tree := make([]float64, len(t.yv)+1)
	var dis, seen float64
	for p, w := range t.w {
		if w == 0 {
			continue
		}
		ntie += pairs(w)
		var upTo float64 // drawn so far with y at most this one's
		for i := t.py[p] + 1; i > 0; i -= i & -i {
			upTo += tree[i]
		}
		dis += w * (seen - upTo)
		for i := t.py[p] + 1; i < len(tree); i += i & -i {
			tree[i] += w
		}
		seen += w
	}
	tot := pairs(n)
	if xtie == tot || ytie == tot {
		return math.NaN()
	}
	return (tot - xtie - ytie + ntie - 2*dis) / math.Sqrt(tot-xtie) / math.Sqrt(tot-ytie)
}

// MAE is [MAE] of the items drawn.
func (t *Tally) MAE() float64 {
	n := t.total()
	if t.bad || n == 0 {
		return math.NaN()
	}
	var sum float64
	for p, w := range t.w {
		sum += w * math.Abs(t.x[p]-t.y[p])
	}
	return sum / n
}

// WeightedKappa is [WeightedKappa] of the items drawn, x rating a and y
// rating b; nil grades are the values drawn.
func (t *Tally) WeightedKappa(grades []float64, w Weight) float64 {
	if t.bad || hasNaN(grades) {
		return math.NaN()
	}
	set, posX, posY, ok := t.onGrades(grades)
	if !ok {
		return math.NaN()
	}
	k := len(set)
	table, weights := square(k), square(k)
	for p, c := range t.w {
		if c > 0 {
			table[posX[t.px[p]]][posY[t.py[p]]] += c
		}
	}
	for i := range k {
		for j := range k {
			weights[i][j] = w.disagreement(i, j)
		}
	}
	return kappaFromTable(table, weights)
}

// KrippendorffAlpha is [KrippendorffAlpha] of the items drawn as units of
// two values each, x's and y's.
func (t *Tally) KrippendorffAlpha(level Level) float64 {
	if t.bad || (level != Nominal && level != Ordinal && level != Interval) {
		return math.NaN()
	}
	values, posX, posY, _ := t.onGrades(nil)
	if len(values) == 0 {
		return math.NaN()
	}
	o := square(len(values))
	for p, c := range t.w {
		if c > 0 {
			i, j := posX[t.px[p]], posY[t.py[p]]
			o[i][j] += c // a unit of two values pairs each with the other, once
			o[j][i] += c
		}
	}
	return alphaFromCoincidences(o, values, level)
}

// onGrades returns the grades (nil: the values drawn, of x and y), sorted
// and distinct, with the position among them of each of x's and y's values
// (-1 for one not among them); ok is false when a value drawn is not.
func (t *Tally) onGrades(grades []float64) (set []float64, posX, posY []int, ok bool) {
	drawnX, drawnY := t.levelCounts(t.px, len(t.xv)), t.levelCounts(t.py, len(t.yv))
	if grades == nil {
		for v, c := range drawnX {
			if c > 0 {
				set = append(set, t.xv[v])
			}
		}
		for v, c := range drawnY {
			if c > 0 {
				set = append(set, t.yv[v])
			}
		}
	} else {
		set = slices.Clone(grades)
	}
	slices.Sort(set)
	set = slices.Compact(set)
	ok = true
	position := func(values, drawn []float64) []int {
		pos := make([]int, len(values))
		for v, x := range values {
			i, found := slices.BinarySearch(set, x)
			if !found {
				i = -1
				ok = ok && drawn[v] == 0
			}
			pos[v] = i
		}
		return pos
	}
	return set, position(t.xv, drawnX), position(t.yv, drawnY), ok
}

// square returns a k x k matrix of zeros.
func square(k int) [][]float64 {
	m := make([][]float64, k)
	for i := range m {
		m[i] = make([]float64, k)
	}
	return m
}
