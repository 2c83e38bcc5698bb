package annotation

import (
	"cmp"
	"math"
	"slices"
)

// SizeFloor is the least size an item has in the active order: its
// size is SizeFloor + sqrt(Worth), so an item the judge is sure of
// still has a chance (and a weight that stays bounded).
const SizeFloor = 0.1

// activePlan is the active order of a queue's scored items and their
// inclusion probabilities: sequential Poisson sampling (E. Ohlsson,
// "Sequential Poisson Sampling", Journal of Official Statistics 14(2),
// 1998). Item i has size p_i and a uniform u_i fixed by the seed (as
// the draw's); the items are taken by ascending u_i/p_i, so the first k
// are about a sample with probabilities proportional to size:
// pi_i = k p_i / sum p. An item whose pi would reach 1 is taken for
// certain (take-all) and k less the take-all ones is spread over the
// rest; the order takes a take-all item as soon as k makes it one.
type activePlan struct {
	// order are the scored items' indexes in the active order.
	order []int
	// size is each item's size (0 for one not scored); bySize the
	// scored items' indexes, the largest size first; rest[j] the sum of
	// the sizes of bySize[j:].
	size   []float64
	bySize []int
	rest   []float64
}

// plan is the queue's active order.
func (q Queue) plan() activePlan {
	keys := q.uniforms()
	pl := activePlan{size: make([]float64, len(q.Items))}
	var byKey []int
	for i, it := range q.Items {
		if !it.valued() {
			continue
		}
		pl.size[i] = SizeFloor + math.Sqrt(q.worth(it))
		pl.bySize = append(pl.bySize, i)
		byKey = append(byKey, i)
	}
	key := func(i int) float64 { return keys[i] / pl.size[i] }
	tie := func(a, b int) int {
		if c := cmp.Compare(key(a), key(b)); c != 0 {
			return c
		}
		return cmp.Compare(q.Items[a].ID, q.Items[b].ID)
	}
	slices.SortFunc(byKey, tie)
	slices.SortFunc(pl.bySize, func(a, b int) int {
		if c := cmp.Compare(pl.size[b], pl.size[a]); c != 0 {
			return c
		}
		return tie(a, b)
	})
	m := len(pl.bySize)
	pl.rest = make([]float64, m+1)
	for j := m - 1; j >= 0; j-- {
		pl.rest[j] = pl.rest[j+1] + pl.size[pl.bySize[j]]
	}
	taken := make([]bool, len(q.Items))
	t, nextAll, nextKey := 0, 0, 0
	for k := 1; k <= m; k++ {
		t = pl.takeAll(k, t)
		for nextAll < t && taken[pl.bySize[nextAll]] {
			nextAll++
		}
		var i int
		if nextAll < t {
			i = pl.bySize[nextAll]
		} else {
			for taken[byKey[nextKey]] {
				nextKey++
			}
			i = byKey[nextKey]
		}
		taken[i] = true
		pl.order = append(pl.order, i)
	}
	return pl
}

// takeAll is how many items (the largest first) are taken for certain
// in a sample of k, from the count for a smaller sample, from: the
// largest of the rest is one while (k - taken) p / (sum of the rest's p)
// reaches 1.
func (pl activePlan) takeAll(k, from int) int {
	t := from
	for t < k && t < len(pl.bySize) && float64(k-t)*pl.size[pl.bySize[t]] >= pl.rest[t] {
		t++
	}
	return t
}

// inclusion is each item's probability of being in a sample of k of
// the scored items (0 for an item not scored): 1 for those taken for
// certain, else (k - taken) p_i over the rest's sum of p.
func (pl activePlan) inclusion(k int) []float64 {
	out := make([]float64, len(pl.size))
	if k <= 0 {
		return out
	}
	k = min(k, len(pl.bySize))
	t := pl.takeAll(k, 0)
	for j, i := range pl.bySize {
		if j < t {
			out[i] = 1
			continue
		}
		out[i] = min(float64(k-t)*pl.size[i]/pl.rest[t], 1)
	}
	return out
}

// activeDraw reports whether the labelled scored items are the first of
// the active order.
func (pl activePlan) activeDraw(q Queue) bool {
	unlabelledSeen := false
	for _, i := range pl.order {
		if q.Items[i].Label == nil {
			unlabelledSeen = true
		} else if unlabelledSeen {
			return false
		}
	}
	return true
}
