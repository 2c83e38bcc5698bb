package annotation

import (
	"fmt"
	"math"

	"github.com/assaylabs/assay/internal/plural"
	"github.com/assaylabs/assay/stats"
)

// Counts are what a queue holds.
type Counts struct {
	// Items are every item; Labelled those with a label.
	Items    int `json:"items"`
	Labelled int `json:"labelled"`
	// Scored are the items the judge gave a value (Item.Scored, a finite
	// Value); Unscored the others
	// (Defaulted of them neutral defaults; the rest failed or skipped):
	// they are left out of the estimate, labelled or not.
	Scored    int `json:"scored"`
	Unscored  int `json:"unscored"`
	Defaulted int `json:"defaulted"`
	// LabelledScored are the labels of scored items: the estimate's.
	LabelledScored int `json:"labelled_scored"`
}

// Counts counts the queue's items.
func (q Queue) Counts() Counts {
	c := Counts{Items: len(q.Items)}
	for _, it := range q.Items {
		labelled := it.Label != nil
		if labelled {
			c.Labelled++
		}
		switch {
		case it.valued():
			c.Scored++
			if labelled {
				c.LabelledScored++
			}
		default:
			c.Unscored++
			if it.Defaulted {
				c.Defaulted++
			}
		}
	}
	return c
}

// Estimate is the PPI++ estimate of the mean label over the items the
// judge scored: the labels corrected by the judge's values on every
// scored item, as `assay agree --estimate` makes it from the queue's
// export: stats.PPIMean for labels taken in the draw (or in no order
// the estimate can rest on), stats.PPIWeightedMean, each label weighted
// by 1/its inclusion probability, for labels taken in the active order.
type Estimate struct {
	// PPI is the estimate, its interval and the labels-only and
	// judge-only figures; every figure is NaN while Note says why there
	// is none.
	PPI stats.PPI
	// HalfWidth is half the width of the interval (NaN with none).
	HalfWidth float64
	// Design is the order the labels of scored items follow from its
	// start: ByActive (the estimate weighted) or ByDraw; "" when they
	// follow neither (chosen by worth, say): the estimate may then be
	// biased. RandomDraw says Design is not "".
	Design     Order
	RandomDraw bool
	// Weights are, by item, the weights of the labels in the estimate
	// (1/inclusion probability) when Design is ByActive, 0 for the
	// others; nil otherwise. The export carries them.
	Weights []float64
	// Note says why there is no estimate: too few labels, or no scored
	// item left unlabelled.
	Note string
	// plugIn is the estimate before Note blanked it, for Project.
	plugIn stats.PPI
}

// Estimate estimates the mean label from the labels of scored items and
// the judge's values (OnScale) on every scored item; with fewer than
// minLabelled labels (agree.MinLabelled, say) it has none, as agree has
// none. Labels that are the first of the active order are weighted;
// when they are the first of both orders (too few to tell), the active
// one is taken.
func (q Queue) Estimate(minLabelled int) Estimate {
	e := Estimate{}
	pl := q.plan()
	switch {
	case pl.activeDraw(q):
		e.Design = ByActive
		e.Weights = make([]float64, len(q.Items))
		for i, pi := range pl.inclusion(q.Counts().LabelledScored) {
			if q.Items[i].valued() && q.Items[i].Label != nil {
				e.Weights[i] = 1 / pi
			}
		}
	case q.randomDraw():
		e.Design = ByDraw
	}
	e.RandomDraw = e.Design != ""
	var labels, judged, weights, unlabelled []float64
	for i, it := range q.Items {
		if !it.valued() {
			continue
		}
		f := it.OnScale(q.Scale)
		if it.Label == nil {
			unlabelled = append(unlabelled, f)
			continue
		}
		labels = append(labels, *it.Label)
		judged = append(judged, f)
		if e.Weights != nil {
			weights = append(weights, e.Weights[i])
		}
	}
	p := stats.PPIMean(labels, judged, unlabelled)
	if e.Weights != nil {
		p = stats.PPIWeightedMean(labels, judged, weights, unlabelled)
	}
	e.plugIn = p
	switch {
	case len(labels) < max(minLabelled, 2):
		e.Note = fmt.Sprintf("%s with a judge value; an estimate needs at least %d", plural.Count(len(labels), "labelled item"), max(minLabelled, 2))
	case len(unlabelled) == 0:
		e.Note = "every item the judge scored is labelled: the labels alone are the mean"
	}
	if e.Note != "" {
		p = stats.PPIMean(nil, nil, nil) // every figure NaN
		p.Labelled, p.Unlabelled = len(labels), len(unlabelled)
	}
	e.PPI = p
	e.HalfWidth = (p.CI95[1] - p.CI95[0]) / 2
	return e
}

// randomDraw reports whether the labelled scored items are the first of
// the scored items in the random draw.
func (q Queue) randomDraw() bool {
	unlabelledSeen := false
	for _, i := range q.draw() {
		it := q.Items[i]
		if !it.valued() {
			continue
		}
		if it.Label == nil {
			unlabelledSeen = true
		} else if unlabelledSeen {
			return false
		}
	}
	return true
}

// Projection is the interval more labels would give, about.
type Projection struct {
	// More labels, to Labelled in all, would narrow the interval to
	// about plus or minus HalfWidth.
	More      int     `json:"more"`
	Labelled  int     `json:"labelled"`
	HalfWidth float64 `json:"half_width"`
}

// Project says, for each number of more labels (taken in the order the
// labels follow: drawn at random from the scored items not labelled, or
// the next of the active order), about how wide the interval would be:
// the variances and the judge's weight measured now, the labelled count
// up and the unlabelled down by as many (stats.PPI.Projected). A step
// that would leave no scored item unlabelled is left out, and every
// step with fewer than two labels now: there is nothing to measure the
// variances on.
func (e Estimate) Project(more ...int) []Projection {
	p := e.plugIn
	var out []Projection
	for _, k := range more {
		n, bigN := p.Labelled+k, p.Unlabelled-k
		if k <= 0 || bigN < 1 {
			continue
		}
		h := p.Projected(n, bigN)
		if math.IsNaN(h) {
			continue
		}
		out = append(out, Projection{More: k, Labelled: n, HalfWidth: h})
	}
	return out
}
