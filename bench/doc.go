// Package bench runs scorers over datasets offline, into run folders that
// are kept, resumed, summarised, gated and compared; package agree
// measures how well the scorers agree with human labels, and package
// dataset reads the datasets (formats, field names, labels, the check
// pass).
//
// [Execute] is `assay bench`'s run, one call: it checks the dataset and
// every flag before the first model call, judges the records into a run
// folder (resumed when asked), summarises, compares with a baseline,
// gates, and writes the report, the JUnit file and the run store's entry.
// [Judge] is `assay judge`'s, streaming each record's scores as they come.
// With judging.Config.LLM.Batch (--batch) a run's model calls go through
// the server's batch endpoint in rounds, the batches kept in the run
// folder's [FileBatches] for --resume.
//
// [ScoreEach] runs scorers over records under a concurrency limit and hands
// each record's scores back in record order as soon as it is done, so
// results can be written while the rest are judged; [run.Stats] summarises
// them per metric, neutral defaults counted apart and never averaged in.
// [ScoreStream] scores records read one at a time ([dataset.Records], or
// the records of a [dataset.Dataset] checked whole by [dataset.Open]), so
// that a dataset of any length is judged in the memory of a window of
// records:
//
//	data, err := dataset.Open(path, dataset.Options{Scorers: scorers})
//	if err != nil {
//		return err // an *eval.InputError naming file, line and field
//	}
//	gate, _ := run.ParseMinGate("faithfulness=0.8")
//	err = bench.ScoreStream(ctx, data.Records(), scorers, 32, func(_ int, _ dataset.Record, scores []eval.Score) error {
//		for _, sc := range scores {
//			gate.Add(sc)
//		}
//		return nil
//	})
//	if err != nil {
//		return data.Err(err)
//	}
//	return gate.Err() // a *run.BelowFloorError when a score is under its floor
//
// Package report renders a finished run (report.html, JUnit, the
// Markdown summary) and package runstore keeps the recorded runs for
// `assay runs`.
package bench
