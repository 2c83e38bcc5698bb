// Package agree measures how well a judge agrees with human labels, and
// judges with each other: `assay agree` as a library.
//
// [Measure] is the whole job, the one call the command line, the service
// and a Go program make: a [Job] names the dataset (or a stored run
// folder), where the judge's values come from (judges run now, a jury of
// several models, a field of each record, or the run's results), the
// label, and the settings; the [Outcome] holds a table of [Result] per
// metric, each juror's usage, and the reasons the run failed, and
// [Outcome.Write] prints it as Markdown or JSON:
//
//	out, err := agree.Measure(ctx, agree.Job{Data: "faithbench.dev.jsonl",
//		Metrics: []string{"faithfulness"}, Label: "faithful", Judging: judging.Default()})
//	if err != nil {
//		return err // an *eval.InputError for bad input, else the run failed
//	}
//	err = out.Write(os.Stdout, os.Stderr, agree.Style{})
//
// The parts are there to use alone too. [Records] and [Stream] score
// every labelled record with a scorer, in parallel, and [Values] reads
// values that are already known ([ScoreField], [StoredScores]); each
// returns a [Result]: for a binary label ROC AUC, the confusion matrix,
// balanced accuracy with its bootstrap interval, kappa, F1 and MCC at a
// fixed threshold and at the best one, and the calibration of values in
// [0, 1]; for a graded label ([Options.Graded]) the correlations, the
// weighted kappas, Krippendorff's alpha and the MAE ([GradedStats]), each
// with its bootstrap interval. [Jury] measures several judges' results
// against each other and as one rater. With [Options.Estimate] (Job's
// Estimate, `--estimate`) a result also has the mean label over every
// record, labelled or not, estimated from the labels and the judge
// (PPI++, [MeanEstimate]).
//
// A judge's failure is data: a neutral default, an error or a panic is
// kept on its [Row], counted, and left out of the statistics.
package agree
