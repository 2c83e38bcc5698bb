package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/report"
)

// offline is the judging of a test: the offline judges, no cache.
func offline() judging.Config {
	c := judging.Default()
	c.LLM.Spec, c.LLM.NoCache = "offline", true
	return c
}

func TestJudge(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		job      bench.JudgeJob
		lines    int
		failures []judging.FailureKind
		err      string
	}{
		"jsonl, one line a result": {
			job:   bench.JudgeJob{Data: "../fixtures/rag/labelled.jsonl", Metrics: []string{"faithfulness"}, Format: report.OutputJSONL},
			lines: 6,
		},
		"a floor the values miss is a scored failure": {
			job:   bench.JudgeJob{Data: "../fixtures/rag/labelled.jsonl", Metrics: []string{"faithfulness"}, Format: report.OutputJSONL, Min: "0.99"},
			lines: 6, failures: []judging.FailureKind{judging.FailFloor},
		},
		"an unknown metric is an input error": {
			job: bench.JudgeJob{Data: "../fixtures/rag/labelled.jsonl", Metrics: []string{"fidelity"}}, err: `--metric: unknown metric "fidelity"`,
		},
		"an unknown format is an input error": {
			job: bench.JudgeJob{Data: "../fixtures/rag/labelled.jsonl", Metrics: []string{"faithfulness"}, Format: "xml"}, err: `--format: must be yaml, json, jsonl or text, got "xml"`,
		},
		"a floor on a metric not judged": {
			job: bench.JudgeJob{Data: "../fixtures/rag/labelled.jsonl", Metrics: []string{"faithfulness"}, Min: "answer_relevancy=0.5"}, err: "--min",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			tc.job.Out, tc.job.Judging = &out, offline()
			o, err := bench.Judge(t.Context(), tc.job)
			if tc.err != "" {
				require.Error(t, err)
				var ie *eval.InputError
				require.ErrorAs(t, err, &ie)
				assert.Contains(t, err.Error(), tc.err)
				assert.Zero(t, out.Len(), "nothing written for a refused job")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.lines, strings.Count(out.String(), "\n"))
			assert.Equal(t, 6, o.Records)
			assert.Equal(t, 6, o.Done)
			var kinds []judging.FailureKind
			for _, f := range o.Failures {
				kinds = append(kinds, f.Kind)
			}
			assert.Equal(t, tc.failures, kinds)
			require.Len(t, o.Summaries, 1)
			assert.Equal(t, 6, o.Summaries[0].N)
		})
	}
}

// TestJudgeStreamsStandardInput: standard input is copied to a temporary
// file as it is read, not held: judging 48 MB of records from a pipe keeps
// the heap far below the input's size, and leaves no copy behind.
func TestJudgeStreamsStandardInput(t *testing.T) {
	const records, pad = 768, 64 << 10
	// The heap counts garbage not yet collected as well: collect often, so
	// that what is measured is what the run holds.
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	runtime.GC()
	// The heap is sampled as each record is written into the pipe, paced
	// by the run reading it (runtime/metrics stops nothing).
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	measure := func() {
		metrics.Read(sample)
		peak = max(peak, sample[0].Value.Uint64())
	}
	pr, pw := io.Pipe()
	go func() {
		padding := strings.Repeat("x", pad)
		for i := range records {
			measure()
			if _, err := fmt.Fprintf(pw, `{"id":"r%d","question":"Who wrote it?","answer":"Ada wrote it.","contexts":["Ada wrote it in 1843."],"metadata":{"pad":"%s"}}`+"\n", i, padding); err != nil {
				return
			}
		}
		_ = pw.Close()
	}()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var out bytes.Buffer
	o, err := bench.Judge(context.Background(), bench.JudgeJob{Data: dataset.Stdin, Stdin: pr, Metrics: []string{"faithfulness"},
		Format: report.OutputJSONL, Out: &out, Judging: offline()})
	require.NoError(t, err)
	assert.Equal(t, records, o.Done)
	assert.Equal(t, records, strings.Count(out.String(), "\n"))
	assert.Less(t, peak, uint64(records*pad/2), "the heap held half the input or more: standard input is held, not streamed")
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, left, "the copy of standard input is removed")
}
