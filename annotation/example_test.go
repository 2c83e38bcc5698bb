package annotation_test

import (
	"fmt"

	"github.com/assaylabs/assay/annotation"
)

// The judge is least sure of q2 (on the threshold) and of q4 (its draws
// split 3 to 2), so those come first; q3 is labelled, so it comes last.
func ExampleQueue_Rank() {
	pass := 1.0
	q := annotation.Queue{Scale: annotation.Binary, Threshold: 0.5, Items: []annotation.Item{
		{ID: "q1", Scored: true, Value: 0.95},
		{ID: "q2", Scored: true, Value: 0.5},
		{ID: "q3", Scored: true, Value: 0.6, Label: &pass},
		{ID: "q4", Scored: true, Value: 0.9, HasAgreement: true, Agreement: 0.6},
	}}
	for _, r := range q.Rank(annotation.ByWorth) {
		fmt.Printf("%s worth %.2f\n", q.Items[r.Index].ID, r.Worth)
	}
	// Output:
	// q2 worth 1.00
	// q4 worth 0.84
	// q1 worth 0.10
	// q3 worth 0.80
}

// Twelve labels of 40 scored items: the estimate, and what more labels
// would make of its interval.
func ExampleEstimate_Project() {
	var items []annotation.Item
	for i := range 40 {
		v := float64(i%5) / 4
		it := annotation.Item{ID: fmt.Sprintf("q%d", i), Scored: true, Value: v}
		if i < 12 {
			l := 0.0
			if v >= 0.5 && i != 3 {
				l = 1
			}
			it.Label = &l
		}
		items = append(items, it)
	}
	q := annotation.Queue{Items: items, Scale: annotation.Binary, Seed: "example"}
	e := q.Estimate(10)
	fmt.Printf("estimate %.3f ± %.3f from %d labels\n", e.PPI.Estimate, e.HalfWidth, e.PPI.Labelled)
	for _, p := range e.Project(10, 20) {
		fmt.Printf("%d more: ± %.3f\n", p.More, p.HalfWidth)
	}
	// Output:
	// estimate 0.482 ± 0.218 from 12 labels
	// 10 more: ± 0.178
	// 20 more: ± 0.161
}
