package bench

import (
	"context"
	"fmt"
	"iter"
	"slices"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/dispatch"
	"github.com/assaylabs/assay/run"
)

// Evaluate judges with units every (record, metric) pair run r lacks in
// this process (dispatch.Local), limit units at once ([ScoreStream]'s
// limit), and appends each unit's results as soon as that unit finishes
// on its record. Records whose every pair is done are not started; a unit
// whose every metric is done on a record is not run again, and of a unit
// run again for some of its metrics only the missing results are written.
// onRecord, when not nil, is called once per record started, after its
// units finished; it gets the number of results written for it.
//
// Evaluate returns when every record is judged, the first error (of the
// records, a unit or a write), or ctx is done; what was written stays
// written. Records must carry their ID in Sample.ID, as
// [dataset.Records] does.
func Evaluate(ctx context.Context, r *run.Run, records iter.Seq2[dataset.Record, error], units []dispatch.Unit, limit int, onRecord func(rec dataset.Record, written int)) error {
	if err := checkUnits(units); err != nil {
		return err
	}
	written := map[string]int{} // of the records started and not finished
	return dispatch.Local{Units: units, Limit: limit}.Dispatch(ctx, dueItems(r, records, units), func(res dispatch.Result) error {
		n, err := r.AppendNew(res.Results)
		if err != nil {
			return err
		}
		id := res.Item.Record.ID
		written[id] += n
		if res.RecordDone {
			if onRecord != nil {
				onRecord(res.Item.Record, written[id])
			}
			delete(written, id)
		}
		return nil
	})
}

// checkUnits checks that no metric is judged by two units.
func checkUnits(units []dispatch.Unit) error {
	var metrics []string
	for _, u := range units {
		for _, m := range u.Metrics {
			if slices.Contains(metrics, m) {
				return fmt.Errorf("metric %s is judged by two units: a run holds each (sample, metric) once", m)
			}
			metrics = append(metrics, m)
		}
	}
	return nil
}

// dueItems are the work items of the (record, unit) pairs some of whose
// metrics run r lacks, each with how often the run judged it already (the
// most of its metrics not done), read from records as they are handed
// out: a run of several rounds reads them again, and r says then what is
// done.
func dueItems(r *run.Run, records iter.Seq2[dataset.Record, error], units []dispatch.Unit) iter.Seq2[dispatch.Item, error] {
	return func(yield func(dispatch.Item, error) bool) {
		for rec, err := range records {
			if err != nil {
				yield(dispatch.Item{}, err)
				return
			}
			for i, u := range units {
				tries := -1
				for _, m := range u.Metrics {
					if k := (run.Key{ID: rec.ID, Metric: m}); !r.Done(k) {
						tries = max(tries, r.Tries(k))
					}
				}
				if tries >= 0 && !yield(dispatch.Item{Record: rec, Unit: i, Tries: tries}, nil) {
					return
				}
			}
		}
	}
}
