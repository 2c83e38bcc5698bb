// Package annotation decides which sample a person should label next,
// and what the labels are worth: the policy behind the annotation queue
// of `assay serve`, as pure functions of the judge's verdicts and the
// labels so far.
//
// A [Queue] holds an [Item] per sample: the judge's value (or none, for a
// default, an error or a skip), how far its jurors or sampled draws
// agreed, and the person's label when there is one. [Queue.Rank] orders
// the items three ways:
//
//   - [ByWorth]: where a label tells most about the judge. An item is
//     worth its uncertainty (1 at the pass threshold or for a neutral
//     default, 0 at the far end of the scale) or its disagreement (1
//     when the draws split evenly, 0 when they agree), whichever says
//     more: worth = 1 - (1-uncertainty)(1-disagreement).
//   - [ByDraw]: a random order fixed by a hash of each item's id. The
//     PPI++ estimate of the mean label ([Queue.Estimate], the one
//     `assay agree --estimate` makes) is unbiased only when the labelled
//     samples are a random draw; labels taken in this order are one,
//     whatever is labelled first. Labels chosen for their worth are not,
//     and the estimate says so ([Estimate.Design], [Estimate.RandomDraw]).
//   - [ByActive], the default: worth and an unbiased estimate at once
//     (active statistical inference, Zrnic and Candès 2024). Each
//     scored item has a size, [SizeFloor] + sqrt(worth), and the order
//     is sequential Poisson sampling (Ohlsson 1998): ascending u/size,
//     u a uniform number fixed by the seed. Wherever a person stops,
//     the first k are about a sample with inclusion probabilities
//     pi = k size / sum of sizes (the largest taken for certain once
//     that reaches 1; [Ranked.Inclusion]), and the estimate weights
//     each label by 1/pi (stats.PPIWeightedMean, [Estimate.Weights]):
//     unbiased, and narrower than the draw's when the judge's errors
//     sit where it is unsure.
//
// [Estimate.Project] says how much more labels would narrow the estimate's
// interval: "50 more labels would narrow it from ±0.12 to about ±0.08",
// from the variances measured so far (stats.PPI.Projected).
//
//	q := annotation.Queue{Items: items, Scale: annotation.Binary, Threshold: 0.5, Seed: "run 20260301-0900-a1b2"}
//	for _, r := range q.Rank(annotation.ByWorth) {
//		fmt.Println(q.Items[r.Index].ID, r.Worth)
//	}
//	e := q.Estimate(10)
//	fmt.Println(e.Estimate, e.HalfWidth, e.Project(25, 50))
package annotation
