package bench

import (
	"slices"

	"github.com/assaylabs/assay/dispatch"
	"github.com/assaylabs/assay/run"
)

// ItemRun is the configuration of the item run that judges samples with
// metrics (each a unit of its own) by the judger's judges: the
// specification a worker checks its own judges against, for a service
// that puts the samples it judges on the queue (dispatch.PublishTagged).
// Its id is a hash of the judges and the metrics (dispatch.ItemRunID), so
// every service judging alike names the same run.
func (j *Judger) ItemRun(metrics []string) (run.Config, error) {
	job := Job{Metrics: metrics, Registry: j.reg, Judging: j.s.Config()}
	_, cfg, err := judgesConfig(job, j.s)
	if err != nil {
		return run.Config{}, err
	}
	cfg.Metrics = slices.Clone(metrics)
	cfg.RunID = dispatch.ItemRunID(cfg, metrics)
	return cfg, nil
}
