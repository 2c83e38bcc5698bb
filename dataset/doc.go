// Package dataset reads the datasets Assay judges: formats, field names,
// human labels, and the check pass made before any model call.
//
// A dataset is a JSON Lines, JSON, CSV or TSV file of RAG samples. [Load] and
// [Read] accept Assay's own field names and those of RAGAS (v1 and v2) and
// DeepEval, and keep each record's human labels ([Record.Label],
// [ReadLabels]):
//
//	recs, err := dataset.Load("faithbench.dev.jsonl")
//	if err != nil {
//		return err // an *eval.InputError naming file, line and field
//	}
//	for _, rec := range recs {
//		faithful, ok := rec.Label("faithful")
//		...
//	}
//
// [Records] reads a dataset one record at a time, with Read's records and
// errors, so that a dataset of any length is read in the memory of one
// record. [Open] is the first pass the assay commands make: it checks the
// whole file (its text, every record, and what each scorer needs of it,
// [CheckNeeds]) before any model call, and the [Dataset] it returns reads
// the records again; the format is a [Format], from the file name or given
// (standard input is JSON unless told). [OpenInput] makes standard input
// or a pipe readable twice, by copying it into a run folder, and hashes
// the bytes judged:
//
//	data, err := dataset.Open(path, dataset.Options{Scorers: scorers})
//	if err != nil {
//		return err // an *eval.InputError naming file, line and field
//	}
//	for rec, err := range data.Records() {
//		if err != nil {
//			return data.Err(err)
//		}
//		... // judge rec.Sample
//	}
//
// The context, research and daily profiles take JSON Lines of their own
// samples ([ProfileContext], [ProfileResearch], [ProfileDaily]), read by
// [OpenProfileData] the same way. Package bench judges the records of a
// dataset into a run; package agree compares the judgements with the
// labels.
package dataset
