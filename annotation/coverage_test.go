package annotation_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/annotation"
)

// TestActiveCoverage runs the queue end to end as a person would: 1,000
// queues of 120 scored items (a fixed seed; each queue its own Seed, so
// its own order), labelled in the active order and stopped after k
// labels, the estimate weighted. The judge's chance f is near 0, near 1
// or middling, each a third of the time, and in the middle the true
// label is a pass with chance 0.5 + (f-0.5)/2: the judge is unsure and
// miscalibrated there. The mean label is 0.5 by symmetry. At 30 labels
// no item is certain; at 90 the largest are (90 x 1.1 is more than the
// sizes' sum), and the interval must still cover 0.5 at about 95%.
func TestActiveCoverage(t *testing.T) {
	t.Parallel()
	const queues, size = 1000, 120
	for _, k := range []int{30, 90} {
		t.Run(fmt.Sprintf("%d labels", k), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(1998, uint64(k)))
			covered, certain := 0, 0
			items := make([]annotation.Item, size)
			truth := make([]float64, size)
			for n := range queues {
				for i := range items {
					var f float64
					kind := r.IntN(3) // drawn, not fixed: the population is a random one
					switch kind {
					case 0:
						f = 0.3 + 0.4*r.Float64()
					case 1:
						f = 0.1 * r.Float64()
					default:
						f = 0.9 + 0.1*r.Float64()
					}
					chance := f
					if kind == 0 {
						chance = 0.5 + (f-0.5)/2
					}
					truth[i] = 0
					if r.Float64() < chance {
						truth[i] = 1
					}
					items[i] = annotation.Item{ID: fmt.Sprintf("s%d", i), Scored: true, Value: f}
				}
				q := annotation.Queue{Items: items, Scale: annotation.Binary, Seed: fmt.Sprintf("queue %d", n)}
				for _, rk := range q.Rank(annotation.ByActive)[:k] {
					q.Items[rk.Index].Label = &truth[rk.Index]
				}
				e := q.Estimate(10)
				if e.Design != annotation.ByActive {
					t.Fatalf("queue %d: labels in the active order read as %q", n, e.Design)
				}
				for _, w := range e.Weights {
					if w == 1 {
						certain++
					}
				}
				if e.PPI.CI95[0] <= 0.5 && 0.5 <= e.PPI.CI95[1] {
					covered++
				}
			}
			coverage := float64(covered) / queues
			t.Logf("%d labels: coverage %.3f, %.1f items certain per queue", k, coverage, float64(certain)/queues)
			assert.GreaterOrEqual(t, coverage, 0.92)
			assert.LessOrEqual(t, coverage, 0.98)
			if k == 90 {
				assert.Positive(t, certain, "some items taken for certain")
			} else {
				assert.Zero(t, certain)
			}
		})
	}
}
