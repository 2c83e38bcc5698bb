package annotation

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/assaylabs/assay/run"
)

// Order is how Rank orders the items not yet labelled.
type Order string

// The orders of a queue.
const (
	// ByWorth puts first the items where a label tells most about the
	// judge: its least certain verdicts and its split ones.
	ByWorth Order = "worth"
	// ByDraw is a random order, fixed by the queue's Seed: labels taken
	// in it are a random draw, as the PPI++ estimate needs.
	ByDraw Order = "draw"
	// ByActive is a random order that favours worth: each scored item
	// has the size SizeFloor + sqrt(Worth), and the first k of the
	// order are about a sample of k with probabilities proportional to
	// size (sequential Poisson sampling, fixed by the queue's Seed).
	// Labels taken in it, stopped anywhere, keep the estimate unbiased
	// when each is weighted by 1/probability (Estimate.Weights), and the
	// labels go where the judge is least sure. Items the judge did not
	// score come after the scored ones, in the draw's order.
	ByActive Order = "active"
)

// ParseOrder reads an order's name; "" is ByActive.
func ParseOrder(s string) (Order, error) {
	switch Order(s) {
	case "", ByActive:
		return ByActive, nil
	case ByWorth:
		return ByWorth, nil
	case ByDraw:
		return ByDraw, nil
	}
	return "", fmt.Errorf("want active, worth or draw, got %q", s)
}

// Queue is the items of a queue and what ranks them. Its methods do not
// change it.
type Queue struct {
	Items []Item
	// Scale is the labels' scale.
	Scale Scale
	// Threshold is the judge's pass mark (a value at or above it
	// passes), from 0 to 1; 0 is 0.5.
	Threshold float64
	// Seed fixes the random draw (ByDraw): the same seed and ids, the
	// same order. Give each queue its own (its source and metric).
	Seed string
}

// Ranked is an item's place in a ranking and why.
type Ranked struct {
	// Index is the item's in Queue.Items.
	Index int
	// Uncertainty is 1 where the judge's value sits on the pass
	// threshold, or the judge gave none (a neutral default, a failure),
	// falling to 0 at the end of the scale farthest from it.
	Uncertainty float64
	// Disagreement is 1 when the judge's jurors or draws split evenly,
	// 0 when they agree or the judge was asked once (HasDisagreement
	// false).
	Disagreement    float64
	HasDisagreement bool
	// Worth is 1 - (1-Uncertainty)(1-Disagreement): high when either is.
	Worth float64
	// Draw is the item's place in the random draw, from 1.
	Draw int
	// Active is the item's place in the active order (ByActive), from
	// 1; 0 for an item the judge did not score. Inclusion is its
	// probability of being among the first k of that order, k the
	// scored items labelled now: 1/Inclusion is a label's weight in the
	// estimate, when the labels follow the order.
	Active    int
	Inclusion float64
}

// Rank orders the queue's items: those not labelled first, in order
// (by worth, the highest first; or by draw), then the labelled ones in
// the same order. Ties go to the id's natural order.
func (q Queue) Rank(order Order) []Ranked {
	out := make([]Ranked, len(q.Items))
	for i, it := range q.Items {
		r := Ranked{Index: i, Uncertainty: q.uncertainty(it)}
		if it.HasAgreement {
			r.Disagreement, r.HasDisagreement = disagreement(it.Agreement), true
		}
		r.Worth = q.worth(it)
		out[i] = r
	}
	for place, i := range q.draw() {
		out[i].Draw = place + 1
	}
	pl := q.plan()
	for place, i := range pl.order {
		out[i].Active = place + 1
	}
	for i, pi := range pl.inclusion(q.Counts().LabelledScored) {
		out[i].Inclusion = pi
	}
	slices.SortStableFunc(out, func(a, b Ranked) int {
		la, lb := q.Items[a.Index].Label != nil, q.Items[b.Index].Label != nil
		if la != lb {
			if la {
				return 1
			}
			return -1
		}
		if order == ByDraw {
			return cmp.Compare(a.Draw, b.Draw)
		}
		if order == ByActive {
			if (a.Active == 0) != (b.Active == 0) {
				return cmp.Compare(b.Active, a.Active) // an unscored item after
			}
			if c := cmp.Compare(a.Active, b.Active); c != 0 {
				return c
			}
			return cmp.Compare(a.Draw, b.Draw)
		}
		if c := cmp.Compare(b.Worth, a.Worth); c != 0 {
			return c
		}
		return run.SampleOrder(q.Items[a.Index].ID, q.Items[b.Index].ID)
	})
	return out
}

// threshold is the pass mark, 0.5 when unset.
func (q Queue) threshold() float64 {
	if q.Threshold <= 0 || q.Threshold > 1 || math.IsNaN(q.Threshold) {
		return 0.5
	}
	return q.Threshold
}

// uncertainty is 1 - |value - threshold| / (the farthest a value can be
// from it); 1 for an item without a value.
func (q Queue) uncertainty(it Item) float64 {
	if !it.valued() {
		return 1
	}
	t := q.threshold()
	v := min(max(it.Value, 0), 1)
	return min(max(1-math.Abs(v-t)/max(t, 1-t), 0), 1)
}

// worth is 1 - (1-uncertainty)(1-disagreement).
func (q Queue) worth(it Item) float64 {
	d := 0.0
	if it.HasAgreement {
		d = disagreement(it.Agreement)
	}
	return 1 - (1-q.uncertainty(it))*(1-d)
}

// disagreement is how far from unanimous a majority share is: 0 at 1,
// 1 at an even split (one half) and below.
func disagreement(share float64) float64 {
	if math.IsNaN(share) {
		return 0
	}
	return min(max(2*(1-share), 0), 1)
}

// draw is the indexes of the items in the random order: by the SHA-256
// of the seed and each id.
func (q Queue) draw() []int {
	keys := make([]uint64, len(q.Items))
	idx := make([]int, len(q.Items))
	for i, it := range q.Items {
		keys[i] = q.hash(it.ID)
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(keys[a], keys[b]); c != 0 {
			return c
		}
		return cmp.Compare(q.Items[a].ID, q.Items[b].ID)
	})
	return idx
}

// hash is the first 64 bits of the SHA-256 of the seed and an id.
func (q Queue) hash(id string) uint64 {
	h := sha256.New()
	h.Write([]byte(q.Seed))
	h.Write([]byte{0})
	h.Write([]byte(id))
	return binary.BigEndian.Uint64(h.Sum(nil))
}

// uniforms are the items' uniform numbers in (0, 1), from the same
// hash as the draw: an item's place in the draw is its number's.
func (q Queue) uniforms() []float64 {
	out := make([]float64, len(q.Items))
	for i, it := range q.Items {
		out[i] = (float64(q.hash(it.ID)>>11) + 0.5) / (1 << 53)
	}
	return out
}
