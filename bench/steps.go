package bench

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/run"
)

// keepSteps readies the evaluation steps of run's judges defined in a
// judges file or a profile among metrics (entries of reg) before the run
// judges with m, and keeps them in its config.json (run.Config.Judges): a
// judge without steps of its own follows those the model writes now, once
// for the whole run, or, in a resumed run, those the run kept (no call,
// whatever the cache). A judge whose steps could not be written is said
// on log; its judgements then ask for them, and default when that fails.
func keepSteps(ctx context.Context, folder *run.Run, reg *metric.Registry, metrics []string, m judges.Model, log io.Writer) error {
	kept := folder.Config().Judges
	recs, u, err := judges.PrepareSteps(ctx, reg, metrics, m, kept)
	if err != nil {
		fmt.Fprintf(log, "bench: %v; its judgements ask for them again, and take the neutral default when that fails\n", err)
	}
	used := run.Spent(u.Recorded())
	if used == (eval.Usage{}) && slices.EqualFunc(recs, kept, func(a, b judges.StepsRecord) bool {
		return a.Name == b.Name && a.Version == b.Version && a.Generated == b.Generated && slices.Equal(a.Steps, b.Steps)
	}) {
		return nil
	}
	return folder.SetJudges(recs, used)
}
