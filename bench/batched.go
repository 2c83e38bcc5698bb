package bench

import "github.com/assaylabs/assay/eval"

// A batch run (--batch) judges in rounds of provider batches
// (dispatch.Batch), kept in the run folder's batches.json
// (dispatch.FileBatches) for a resume to pick up.

// checkBatch refuses what --batch cannot go with, in a dry run too: its
// plan is of a run that could be made.
func checkBatch(job Job) error {
	if !job.Judging.LLM.Batch {
		return nil
	}
	switch {
	case job.Queue.On():
		return eval.FlagError("--batch", "the queue's workers call their own models one call at a time: give --batch or --workers/--cluster/--queue, not both")
	case job.Judging.LLM.MaxCostUSD > 0:
		return eval.FlagError("--batch", "a batch's cost is known only when it is done, so --max-cost cannot stop its calls before they are made: give one of --batch and --max-cost")
	}
	return nil
}
