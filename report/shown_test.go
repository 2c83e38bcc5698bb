package report

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/run"
)

// TestShownFromTheRunAsFromItsFile: report.html and the JUnit file of a
// new run, drawn from the results the run holds (ReadShownFrom with
// run.Run.Bounded), are byte for byte those drawn from its results.jsonl
// read again (ReadShown): texts that are not UTF-8, markup, empty lists
// and maps that the file leaves out, a cached result and each state.
func TestShownFromTheRunAsFromItsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := run.Config{RunID: "r", Metrics: []string{"faithfulness", "source_relevance"}}
	folder, err := run.Create(dir, cfg)
	require.NoError(t, err)
	texts := []string{"plain", "bad \xff\xfe utf-8 \xc3", `<script>alert("x")</script> & it's`, "nul\x00byte", "ผลตอบแทน"}
	var records bytes.Buffer
	for i := range 60 {
		id := fmt.Sprintf("s%d", i)
		fmt.Fprintf(&records, `{"id":%q,"question":"Q %d <b>?</b>","answer":"A \u00e9 %d","contexts":["C %d"]}`+"\n", id, i, i, i)
		for j, m := range cfg.Metrics {
			text := texts[(i+j)%len(texts)]
			res := run.Result{ID: id, Metric: m, Value: float64(i%9) / 8, Points: float64(i % 5), Max: 4, Method: text, Reason: text,
				Evidence: eval.Evidence{Claims: []eval.Claim{{Text: text, Verdict: eval.VerdictSupported, Citations: []eval.Citation{}}}, Gaps: []string{},
					Issues: []string{text}, Counts: map[string]float64{}},
				Usage: eval.Usage{TokensIn: 40 * (i % 2), TokensOut: 7}}
			switch i % 7 {
			case 1:
				res.Defaulted, res.Value, res.Error = true, 0.5, text
			case 2:
				res.Skipped, res.Error = true, eval.NotEvaluable
			case 3:
				res.Error = text
			case 4:
				res.Evidence = eval.Evidence{}
			}
			require.NoError(t, folder.Append(res))
		}
	}
	data, err := dataset.Open(dataset.Stdin, dataset.Options{Stdin: bytes.NewReader(records.Bytes())})
	require.NoError(t, err)
	draw := func(results *run.ResultFile, more Data) (string, string) {
		var page, junit bytes.Buffer
		s := run.Summary{RunID: "r", Samples: 60}
		require.NoError(t, WriteHTML(&page, cfg, s, results, more))
		require.NoError(t, WriteJUnit(&junit, cfg, s, results, JUnitOptions{Floor: func(string) float64 { return 0.4 }}))
		return page.String(), junit.String()
	}
	for _, metrics := range [][]string{cfg.Metrics, {"faithfulness", "source_relevance", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r"}} {
		held, heldMore, err := ReadShownFrom(folder.Bounded, "", data.Records(), metrics, nil)
		require.NoError(t, err)
		read, readMore, err := ReadShown(dir, "", data.Records(), metrics, nil)
		require.NoError(t, err)
		heldPage, heldJUnit := draw(held, heldMore)
		readPage, readJUnit := draw(read, readMore)
		assert.Equal(t, readPage, heldPage)
		assert.Equal(t, readJUnit, heldJUnit)
		assert.Contains(t, heldPage, "\ufffd", "a byte that is not UTF-8 is shown as the file has it")
	}
	require.NoError(t, folder.Close())
}
