package runstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/assaylabs/assay/report"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
)

func ExampleRuns_Trend() {
	dir, err := os.MkdirTemp("", "assay-runs")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = os.RemoveAll(dir) }()
	store, err := runstore.OpenStore(filepath.Join(dir, "runs.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	// Three runs of one dataset, as assay bench records them; the third
	// was judged by another model.
	for i, model := range []string{"offline", "offline", "llm:openai:gpt-4o"} {
		id := fmt.Sprintf("run%d", i+1)
		started := time.Date(2026, 11, 1+i, 9, 0, 0, 0, time.UTC)
		cfg := run.Config{RunID: id, Started: started, DatasetSHA256: "aaa", Metrics: []string{"faithfulness"}, Model: model}
		sum := run.Summary{RunID: id, Started: started, Complete: true,
			Metrics: []run.MetricStats{{Metric: "faithfulness", N: 4, Scored: 4, Mean: run.Num(0.5 + 0.1*float64(i))}}}
		if err := store.Record(cfg, sum, filepath.Join(dir, id)); err != nil {
			fmt.Println(err)
			return
		}
	}
	_ = store.Close()

	trend, err := runstore.Runs{Store: filepath.Join(dir, "runs.db")}.Trend(context.Background(), "faithfulness", "")
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = trend.Write(os.Stdout, report.OutputText)
	// Output:
	// STARTED           RUN     FAITHFULNESS MEAN  SCORED  CHANGE   MEAN (# = 0.05)
	// 2026-11-01 09:00  run1    0.5000             4/4              ##########
	// 2026-11-02 09:00  run2    0.6000             4/4     +0.1000  ############
	// 2026-11-03 09:00  run3 *  0.7000             4/4     +0.1000  ##############
	//
	// * judged otherwise than the run before it, so its change measures the judge as well:
	//   run3: model "offline", now "llm:openai:gpt-4o"
}
