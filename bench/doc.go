// Package bench runs scorers over datasets offline and measures how well
// they agree with human labels.
//
// A dataset is a JSON Lines, JSON or CSV file of RAG samples. [Load] and
// [Read] accept Assay's own field names and those of RAGAS (v1 and v2) and
// DeepEval, and keep each record's human labels:
//
//	recs, err := bench.Load("faithbench.dev.jsonl")
//	if err != nil {
//		return err // an *eval.InputError naming file, line and field
//	}
//	res, err := bench.Agree(ctx, recs, bench.AgreeJob{Scorer: judge, Metric: "faithfulness"},
//		bench.AgreeOptions{Label: "faithful", Threshold: &defaultThreshold})
//	fmt.Print(res.Markdown())
//
// [Agree] scores every labelled record in parallel and compares the values
// with the labels: ROC AUC, the confusion matrix at a fixed threshold, and
// the threshold with the best balanced accuracy ([stats.BestThreshold]).
// Defaulted scores are counted and left out of the statistics;
// [stats.BalancedAccuracyCI] says how far the figure can be trusted on a
// set of that size. Every statistic is computed in package stats.
//
// [ScoreEach] runs scorers over records under a concurrency limit and hands
// each record's scores back in record order as soon as it is done, so
// results can be written while the rest are judged; [Stats] summarises them
// per metric, neutral defaults counted apart and never averaged in.
//
// [Records] reads a dataset one record at a time, with Read's records and
// errors, and [ScoreStream] scores records from it ([AgreeStream] compares
// them with their labels), so that a dataset of any length is judged in
// the memory of a window of records. [OpenDataset] is the first pass the
// assay commands make: it checks the whole file (its text, every record,
// and what each scorer needs of it) before any model call, and the
// [Dataset] it returns reads the records again; the format is a [Format],
// from the file name or given (standard input is JSON unless told):
//
//	data, err := bench.OpenDataset(path, bench.DatasetOptions{Scorers: scorers})
//	if err != nil {
//		return err // an *eval.InputError naming file, line and field
//	}
//	gate, _ := bench.ParseMinGate("faithfulness=0.8")
//	err = bench.ScoreStream(ctx, data.Records(), scorers, 32, func(_ int, _ bench.Record, scores []eval.Score) error {
//		for _, sc := range scores {
//			gate.Add(sc)
//		}
//		return nil
//	})
//	if err != nil {
//		return data.Err(err)
//	}
//	return gate.Err() // a *BelowFloorError when a score is under its floor
package bench
