// Package align improves a judge a user defined against human labels:
// `assay align` as a library.
//
// [Align] reads a labels file (the format `assay agree` reads: records
// with a human label), splits its labelled records into a training part
// and a held-out part (seeded, so the same seed gives the same split;
// records that show the judge the same sample go to one part together),
// and searches, on the training part only, over the judge's criterion
// (rewrites the model proposes from the records it got wrong, the
// align.criterion prompt), a rubric's anchors for a graded scale
// (align.rubric), few-shot examples drawn from the training labels, and
// the pass threshold of a graded scale. The candidate that agrees best
// with the training labels is then measured on the held-out part beside
// the judge as it was, each with a bootstrap 95% interval, and with the
// paired difference and its interval. A gain is claimed, and the aligned
// judge written as a judges file, only when the difference's interval
// lies above 0:
//
//	out, err := align.Align(ctx, align.Job{Metric: "polite_answer",
//		Labels: "examples/support-labels.jsonl", Judges: "examples/judges.yaml",
//		Out: "aligned.yaml", Judging: judging.Default()})
//	if err != nil {
//		return err // an *eval.InputError for bad input, else the run failed
//	}
//	out.Write(os.Stdout)
//
// Every model call goes through the one client of Job.Judging (its
// cache, budget, dry run and limits). A judge's failure is counted and
// shown, and left out of the agreement, never averaged in.
package align
