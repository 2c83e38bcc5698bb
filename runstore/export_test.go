package runstore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/runtest"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
)

// exportRun writes a dataset of three samples (nested, numeric, boolean
// and mixed metadata) and a run of it: s1 judged on both metrics (a
// card's verdict on one), s2 defaulted on one and skipped on the other,
// s3 never judged, and "gone", a sample the dataset no longer has. It
// returns the run folder.
func exportRun(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	data := filepath.Join(root, "data.jsonl")
	lines := []string{
		`{"id":"s1","question":"Where, is it?","answer":"In \"Paris\".","contexts":["Paris is in France.","It has a tower."],"reference":"Paris","metadata":{"split":"dev","rank":2,"gold":true,"tags":["a","b"],"src":{"site":"wiki"}}}`,
		`{"id":"s2","question":"q2","answer":"a2","contexts":["c"],"metadata":{"split":"test","rank":"high"}}`,
		`{"id":"s3","question":"q3","answer":"a3","contexts":["c"]}`,
	}
	require.NoError(t, os.WriteFile(data, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	sha, err := dataset.FileSHA256(data)
	require.NoError(t, err)
	no := false
	cfg := run.Config{RunID: "x1", Dataset: data, DatasetSHA256: sha, Metrics: []string{"faithfulness", "answer_relevancy"}, Model: "offline"}
	s := run.Summary{RunID: "x1", Metrics: []run.MetricStats{{Metric: "faithfulness", Threshold: 0.7}, {Metric: "answer_relevancy", Threshold: 0.5}}}
	results := []run.Result{
		{ID: "gone", Metric: "faithfulness", Value: 0.25, Method: "offline (approximate)"},
		{ID: "s1", Metric: "answer_relevancy", Value: 0.9, Points: 4.5, Max: 5, Method: "offline (approximate)", Reason: "on topic", Pass: &no,
			Usage: eval.Usage{Latency: 1500 * time.Microsecond, CostUSD: 0.002}},
		{ID: "s2", Metric: "faithfulness", Value: 0.5, Method: "llm:openai:m", Defaulted: true, Error: "status 500", Usage: eval.Usage{CostUnknown: true}},
		{ID: "s1", Metric: "faithfulness", Value: 0.75, Points: 3, Max: 4, Method: "offline (approximate)", Reason: "3 of 4 claims, \"quoted\"\nand a line"},
		{ID: "s2", Metric: "answer_relevancy", Method: "offline (approximate)", Skipped: true, Reason: "no answer"},
	}
	return runtest.WriteFolder(t, filepath.Join(root, "run"), cfg, &s, results)
}

// wantExport is the export of exportRun, row by row, as strings (CSV's
// cells; "" for null).
var wantExport = [][]string{
	// id, question, answer, contexts, reference, metadata.gold, .rank, .split, .src.site, .tags, metric, value, points, max, pass, defaulted, skipped, error, reason, model, latency_ms, cost_usd
	{"s1", "Where, is it?", `In "Paris".`, "Paris is in France.\n\nIt has a tower.", "Paris", "true", "2", "dev", "wiki", `["a","b"]`,
		"faithfulness", "0.75", "3", "4", "true", "false", "false", "", "3 of 4 claims, \"quoted\"\nand a line", "offline (approximate)", "0", "0"},
	{"s1", "Where, is it?", `In "Paris".`, "Paris is in France.\n\nIt has a tower.", "Paris", "true", "2", "dev", "wiki", `["a","b"]`,
		"answer_relevancy", "0.9", "4.5", "5", "false", "false", "false", "", "on topic", "offline (approximate)", "1.5", "0.002"},
	{"s2", "q2", "a2", "c", "", "", "high", "test", "", "",
		"faithfulness", "0.5", "0", "0", "", "true", "false", "status 500", "", "llm:openai:m", "0", ""},
	{"s2", "q2", "a2", "c", "", "", "high", "test", "", "",
		"answer_relevancy", "", "0", "0", "", "false", "true", "", "no answer", "offline (approximate)", "0", "0"},
	{"gone", "", "", "", "", "", "", "", "", "",
		"faithfulness", "0.25", "0", "0", "false", "false", "false", "", "", "offline (approximate)", "0", "0"},
}

var wantColumns = []string{"id", "question", "answer", "contexts", "reference", "metadata.gold", "metadata.rank", "metadata.split", "metadata.src.site", "metadata.tags",
	"metric", "value", "points", "max", "pass", "defaulted", "skipped", "error", "reason", "model", "latency_ms", "cost_usd"}

func TestRunsExportCSV(t *testing.T) {
	t.Parallel()
	dir := exportRun(t)
	var out bytes.Buffer
	x, err := runstore.Runs{}.Export(context.Background(), dir, runstore.ExportCSV, &out)
	require.NoError(t, err)
	assert.Equal(t, 5, x.Rows)
	assert.Empty(t, x.Note)
	assert.Equal(t, wantColumns, x.Columns)
	recs, err := csv.NewReader(&out).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 6)
	assert.Equal(t, wantColumns, recs[0])
	for i, want := range wantExport {
		assert.Equal(t, want, recs[i+1], "row %d", i+1)
	}
}

func TestRunsExportJSONL(t *testing.T) {
	t.Parallel()
	dir := exportRun(t)
	var out bytes.Buffer
	_, err := runstore.Runs{}.Export(context.Background(), dir, runstore.ExportJSONL, &out)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 5)
	var rows []map[string]any
	for _, l := range lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		rows = append(rows, m)
	}
	assert.True(t, strings.HasPrefix(lines[0], `{"id":"s1","question":"Where, is it?",`), "keys in column order: %s", lines[0])
	assert.Equal(t, []any{"Paris is in France.", "It has a tower."}, rows[0]["contexts"], "a list")
	assert.Equal(t, 2.0, rows[0]["metadata.rank"])
	assert.Equal(t, true, rows[0]["metadata.gold"])
	assert.Equal(t, []any{"a", "b"}, rows[0]["metadata.tags"])
	assert.Equal(t, 0.75, rows[0]["value"])
	assert.Equal(t, true, rows[0]["pass"])
	assert.Equal(t, false, rows[1]["pass"], "the card's verdict, not 0.9 >= 0.5")
	assert.Equal(t, 1.5, rows[1]["latency_ms"])
	assert.Nil(t, rows[2]["pass"], "a default passes nothing")
	assert.Nil(t, rows[2]["cost_usd"], "unknown")
	assert.Equal(t, "high", rows[2]["metadata.rank"])
	assert.Nil(t, rows[3]["value"], "a skip has no value")
	assert.Equal(t, "gone", rows[4]["id"])
	assert.Nil(t, rows[4]["question"], "the dataset lacks it")
	assert.Equal(t, []any{}, rows[4]["contexts"])
}

// TestRunsExportParquet: the Parquet file has the documented columns in
// the order of the other formats (they were sorted by name: cost_usd
// first, id in the middle), their types, and the rows' values, as the
// Go reader reads them back.
func TestRunsExportParquet(t *testing.T) {
	t.Parallel()
	dir := exportRun(t)
	path := filepath.Join(t.TempDir(), "run.parquet")
	x, err := runstore.Runs{}.ExportFile(context.Background(), dir, runstore.ExportParquet, path, nil)
	require.NoError(t, err)
	assert.Equal(t, 5, x.Rows)

	f, err := os.Open(path)
	require.NoError(t, err)
	defer func() { require.NoError(t, f.Close()) }()
	r := parquet.NewReader(f)
	defer func() { require.NoError(t, r.Close()) }()
	assert.Equal(t, int64(5), r.NumRows())
	var cols []string
	for _, c := range r.Schema().Fields() {
		cols = append(cols, c.Name())
	}
	assert.Equal(t, wantColumns, cols, "the columns in the CSV and JSON Lines order, not sorted by name")
	kinds := map[string]string{}
	for _, c := range r.Schema().Fields() {
		if c.Leaf() {
			kinds[c.Name()] = c.Type().String()
		}
	}
	assert.Equal(t, map[string]string{"metadata.gold": "BOOLEAN", "metadata.rank": "STRING", "metadata.split": "STRING", "metadata.tags": "STRING",
		"value": "DOUBLE", "pass": "BOOLEAN", "cost_usd": "DOUBLE"}, map[string]string{"metadata.gold": kinds["metadata.gold"], "metadata.rank": kinds["metadata.rank"],
		"metadata.split": kinds["metadata.split"], "metadata.tags": kinds["metadata.tags"], "value": kinds["value"], "pass": kinds["pass"], "cost_usd": kinds["cost_usd"]},
		"a number in one record and text in another is text")
	var rows []map[string]any
	for range 5 {
		row := map[string]any{}
		require.NoError(t, r.Read(&row))
		rows = append(rows, row)
	}
	assert.Equal(t, "s1", rows[0]["id"])
	assert.Equal(t, []any{"Paris is in France.", "It has a tower."}, rows[0]["contexts"], "a list")
	assert.Equal(t, "faithfulness", rows[0]["metric"])
	assert.Equal(t, 0.75, rows[0]["value"])
	assert.Equal(t, 3.0, rows[0]["points"])
	assert.Equal(t, true, rows[0]["pass"])
	assert.Equal(t, true, rows[0]["metadata.gold"])
	assert.Equal(t, "wiki", rows[0]["metadata.src.site"])
	assert.Equal(t, `["a","b"]`, rows[0]["metadata.tags"])
	assert.Equal(t, false, rows[1]["pass"])
	assert.Equal(t, 0.002, rows[1]["cost_usd"])
	assert.Equal(t, 1.5, rows[1]["latency_ms"])
	assert.Nil(t, rows[2]["pass"])
	assert.Nil(t, rows[2]["cost_usd"])
	assert.Equal(t, true, rows[2]["defaulted"])
	assert.Equal(t, "status 500", rows[2]["error"])
	assert.Nil(t, rows[3]["value"])
	assert.Equal(t, true, rows[3]["skipped"])
	assert.Equal(t, "gone", rows[4]["id"])
	assert.Nil(t, rows[4]["question"])
}

// TestRunsExportSpooledInput: a run that read standard input (or a
// pipe) keeps the copy it judged in its folder (input.jsonl); the export
// reads the samples' fields from that copy when its hash is the run's,
// and says why they are empty when there is none.
func TestRunsExportSpooledInput(t *testing.T) {
	t.Parallel()
	const input = `{"id":"s1","question":"Who wrote it?","answer":"Mary Shelley.","contexts":["By Mary Shelley."]}` + "\n"
	tests := map[string]struct {
		dataset string
		spool   string // input.jsonl's content; "" writes none
		wantQ   any
		note    string
	}{
		"standard input, copy kept":    {dataset: dataset.Stdin, spool: input, wantQ: "Who wrote it?"},
		"a pipe, copy kept":            {dataset: "/dev/fd/63", spool: input, wantQ: "Who wrote it?"},
		"standard input, no copy":      {dataset: dataset.Stdin, wantQ: nil, note: "standard input"},
		"standard input, another copy": {dataset: dataset.Stdin, spool: `{"id":"s1","question":"other"}` + "\n", wantQ: nil, note: "standard input"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sum := sha256.Sum256([]byte(input))
			cfg := run.Config{RunID: "in1", Dataset: tc.dataset, DatasetSHA256: hex.EncodeToString(sum[:]), Metrics: []string{"faithfulness"}}
			s := run.Summary{RunID: "in1", Metrics: []run.MetricStats{{Metric: "faithfulness", Threshold: 0.5}}}
			dir := runtest.WriteFolder(t, filepath.Join(t.TempDir(), "run"), cfg, &s, []run.Result{{ID: "s1", Metric: "faithfulness", Value: 1}})
			if tc.spool != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, dataset.SpoolName), []byte(tc.spool), 0o644))
			}
			var out bytes.Buffer
			x, err := runstore.Runs{}.Export(context.Background(), dir, runstore.ExportJSONL, &out)
			require.NoError(t, err)
			var row map[string]any
			require.NoError(t, json.Unmarshal(out.Bytes(), &row))
			assert.Equal(t, tc.wantQ, row["question"])
			if tc.note == "" {
				assert.Empty(t, x.Note)
				assert.Equal(t, []any{"By Mary Shelley."}, row["contexts"])
			} else {
				assert.Contains(t, x.Note, tc.note)
			}
		})
	}
}

// TestRunsExportRefusesToReplaceItsInput: -o naming a file of the run
// (its results, summary, config, report) or its dataset, under any
// spelling, is refused as bad input before anything is written, and the
// file is left as it was; another file, in the run folder or beside the
// dataset, is written.
func TestRunsExportRefusesToReplaceItsInput(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		out     func(dir, data string) string
		refused bool
	}{
		"its results":                    {out: func(dir, _ string) string { return filepath.Join(dir, run.FileResults) }, refused: true},
		"its summary":                    {out: func(dir, _ string) string { return filepath.Join(dir, run.FileSummary) }, refused: true},
		"its config":                     {out: func(dir, _ string) string { return filepath.Join(dir, run.FileConfig) }, refused: true},
		"its results, spelled otherwise": {out: func(dir, _ string) string { return filepath.Join(dir, "..", filepath.Base(dir), ".", run.FileResults) }, refused: true},
		"its dataset":                    {out: func(_, data string) string { return data }, refused: true},
		"a link to its results": {out: func(dir, _ string) string {
			link := filepath.Join(filepath.Dir(dir), "link.csv")
			if err := os.Symlink(filepath.Join(dir, run.FileResults), link); err != nil {
				panic(err)
			}
			return link
		}, refused: true},
		"a new file in the run folder": {out: func(dir, _ string) string { return filepath.Join(dir, "export.csv") }},
		"a file beside the dataset":    {out: func(_, data string) string { return data + ".csv" }},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := exportRun(t)
			var cfg run.Config
			b, err := os.ReadFile(filepath.Join(dir, run.FileConfig))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &cfg))
			out := tc.out(dir, cfg.Dataset)
			before, _ := os.ReadFile(out)
			x, err := runstore.Runs{Store: filepath.Join(t.TempDir(), "runs.db")}.ExportFile(context.Background(), dir, runstore.ExportCSV, out, nil)
			after, _ := os.ReadFile(out)
			if !tc.refused {
				require.NoError(t, err)
				assert.Equal(t, 5, x.Rows)
				assert.True(t, strings.HasPrefix(string(after), "id,question,"), "%s", after)
				return
			}
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, "-o", ie.Field)
			assert.Contains(t, err.Error(), "writing it would replace it")
			assert.Equal(t, string(before), string(after), "left as it was")
		})
	}
}

// TestRunsExportNoteEscapesTheDataset: the note that says why the
// samples' fields are missing names the dataset as config.json does,
// with its control characters and bidi overrides escaped, for a terminal.
func TestRunsExportNoteEscapesTheDataset(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		dataset, want string
	}{
		"an escape sequence": {dataset: "/nowhere/x\x1b[31mred.jsonl", want: `/nowhere/x\x1b[31mred.jsonl`},
		"a bidi override":    {dataset: "/nowhere/a\u202egnp.jsonl", want: `/nowhere/a\u202egnp.jsonl`},
		"a newline":          {dataset: "/nowhere/a\nassay: forged.jsonl", want: `/nowhere/a\nassay: forged.jsonl`},
		"plain":              {dataset: "/nowhere/plain.jsonl", want: "/nowhere/plain.jsonl"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := run.Config{RunID: "n1", Dataset: tc.dataset, DatasetSHA256: "abc", Metrics: []string{"faithfulness"}}
			s := run.Summary{RunID: "n1", Metrics: []run.MetricStats{{Metric: "faithfulness", Threshold: 0.5}}}
			dir := runtest.WriteFolder(t, filepath.Join(t.TempDir(), "run"), cfg, &s, []run.Result{{ID: "s1", Metric: "faithfulness", Value: 1}})
			var out bytes.Buffer
			x, err := runstore.Runs{}.Export(context.Background(), dir, runstore.ExportCSV, &out)
			require.NoError(t, err)
			assert.Contains(t, x.Note, "the run's dataset "+tc.want+" does not read")
			assert.NotContains(t, x.Note, "\x1b")
			assert.NotContains(t, x.Note, "\u202e")
			assert.NotContains(t, x.Note, "\n")
		})
	}
}
