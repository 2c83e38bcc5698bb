package main

import (
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/metric"
)

// registerQueue adds bench's flags that judge a run through NATS
// JetStream.
func registerQueue(fl *pflag.FlagSet, q *bench.Queue) {
	fl.IntVar(&q.Workers, "workers", 0, "judge through a NATS JetStream queue with this many in-process workers (an embedded server kept in the run folder), each with its own --concurrency as a remote worker has: N workers make up to N x --concurrency calls at once (at most 256 workers and 4096 calls)")
	fl.StringVar(&q.Cluster, "cluster", "", "embed the NATS server listening on ADDR for remote workers (assay worker), and print their command (a --token is needed beyond loopback)")
	fl.Lookup("cluster").NoOptDefVal = bench.DefaultClusterAddr
	fl.StringVar(&q.URL, "queue", "", "use the NATS server or cluster at this URL (nats://HOST:4222) instead of an embedded one")
	fl.StringVar(&q.Token, "token", "", "the NATS token workers must give (--cluster, --queue)")
	fl.IntVar(&q.MaxDeliver, "max-deliver", 0, "deliveries of a task to workers before its pair is recorded as undelivered (0: 5)")
	fl.DurationVar(&q.StallTimeout, "stall-timeout", 5*time.Minute, "a queued run that gets no result for this long stops (exit 3), saying what is missing and the command that resumes it; 0 waits for ever")
}

type workerFlags struct {
	job bench.WorkerJob
	llm llmFlags
}

const workerLong = `Take the tasks of queued runs (assay bench --cluster or --queue) from the
NATS server at URL and judge them with this machine's model: --llm and the
limits (--concurrency, --rpm, --tpm, --max-cost) are the worker's own.

Workers of any number of model servers serve one run's queue: they share
one consumer of the queue (so each task goes to one worker), and each takes
only what it has room for, so --concurrency (and the adaptive limit under
it) caps the calls this worker sends to its own model server, whatever the
others do. --max-in-flight caps the tasks handed out and not done yet
across all the workers (runs' tasks, and as many of the traces of assay
serve --queue).

The tasks of one conversation all go to one worker, so that its model
server's prefix cache serves every turn after the first: each worker keeps
a lease on the NATS server and takes the conversations of its share of 32
partitions. A worker stopped gives its share to the others at once, one
killed once its lease expires (10s).

A worker judges as the run asked: a run whose model name, prompt versions
or settings differ from what this worker would judge with is refused,
naming the differences, and left to other workers (the model server's URL
may differ: two servers of the same model both serve the run). A run the
queue holds when the worker starts is checked before any of its tasks is
taken, so a misconfigured worker restarted again and again uses up none
of their deliveries; the refusal is recorded where the run's coordinator
reads it, and a stalled run names it. Stop it
with Ctrl-C: its tasks in flight go to other workers.

A worker started before its NATS server listens waits for it, trying
again with backoff (250ms doubling to 5s) and saying so. A worker whose
model server gives no answer (connection refused, reset, no route, a name
that does not resolve, a connect timeout) after its calls' retries does
not judge with neutral defaults: it gives its tasks in hand back to the
queue for other workers, takes no more, says it paused, and probes its
server (GET /models of the API root) with backoff (1s doubling to a
minute) until it answers, then takes tasks again.`

func newWorkerCmd(env func(string) string, reg *metric.Registry) *cobra.Command {
	f := workerFlags{llm: llmFlags{env: env, metrics: reg}}
	cmd := &cobra.Command{
		Use:     "worker URL [flags]",
		Short:   "Judge the tasks of queued runs from a NATS server, with this machine's model",
		Long:    workerLong,
		Example: "  assay worker nats://10.0.0.5:4222 --token s3cret --llm vllm:qwen2.5-7b --concurrency 32",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := f.llm.registry()
			if err != nil {
				return runError(err)
			}
			job := f.job
			job.URL, job.Registry, job.Env, job.Log = args[0], reg, f.llm.env, cmd.ErrOrStderr()
			job.Judging = f.llm.judging()
			if err := bench.Work(cmd.Context(), job); err != nil {
				return runError(err)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	f.llm.register(fl)
	registerChecker(fl, &f.llm)
	registerJudges(fl, &f.llm)
	fl.StringVar(&f.job.Token, "token", "", "the NATS server's token")
	fl.IntVar(&f.job.Concurrency, "tasks", 0, "tasks judged at once, up to 16384 (0: 4 x --concurrency)")
	fl.IntVar(&f.job.MaxInFlight, "max-in-flight", 0, "tasks handed out and not done yet across all workers of the queue (0: keep the one set; 1000 for the first)")
	fl.IntVar(&f.job.MaxInFlight, "endpoint-limit", 0, "the old name of --max-in-flight")
	_ = fl.MarkDeprecated("endpoint-limit", "it caps the tasks in flight across all workers: use --max-in-flight")
	fl.IntVar(&f.job.Queue.MaxDeliver, "max-deliver", 0, "deliveries of a task before its pair is recorded as undelivered (0: 5)")
	return cmd
}
