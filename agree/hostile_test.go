package agree_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agree"
	"github.com/assaylabs/assay/run"
)

// TestMeasureMarkdownKeepsHostileGroupsInTheirCell: a --by value that
// carries a line break, a table's "|" or a terminal escape sequence is
// printed as text inside its own cell: every table line keeps its
// columns, and no control character reaches the terminal.
func TestMeasureMarkdownKeepsHostileGroupsInTheirCell(t *testing.T) {
	t.Parallel()
	const hostile = "m\x1b[2J\n| x"
	tests := map[string]struct {
		label    func(i int) any
		style    agree.Style
		estimate bool
		want     string
	}{
		"binary, with calibration": {
			label: func(i int) any { return i%3 != 0 }, style: agree.Style{Calibration: true},
			want: `By meta.model = m\\x1b\[2J\\n\| x`,
		},
		"graded": {
			label: func(i int) any { return 1 + i%5 },
			want:  `| meta.judge | relevance | m\\x1b\[2J\\n\| x | 20 |`,
		},
		"graded, with an estimate": {
			label: func(i int) any {
				if i%4 < 2 {
					return 1 + i%5
				}
				return nil
			},
			estimate: true,
			want:     `| meta.judge | relevance | m\\x1b\[2J\\n\| x | 10 | 10 |`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			records := make([]estimateRecord, 40)
			for i := range records {
				records[i] = estimateRecord{label: tc.label(i), value: float64(1+(i*7)%5) / 5, group: "plain"}
				if i%2 == 1 {
					records[i].group = hostile
				}
			}
			if _, ok := tc.label(0).(bool); !ok {
				for i := range records {
					records[i].value = 1 + (i*7)%5
				}
			}
			j := job(t, writeEstimateData(t, records))
			j.Label, j.Score, j.By, j.Estimate = "relevance", "meta.judge", "meta.model", tc.estimate
			out, err := agree.Measure(context.Background(), j)
			require.NoError(t, err)
			var md strings.Builder
			require.NoError(t, out.Write(&md, nil, tc.style))
			text := md.String()
			assert.Contains(t, text, tc.want)
			assert.False(t, strings.ContainsFunc(text, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }), "a control character in\n%s", text)
			var header int
			for _, line := range strings.Split(text, "\n") {
				if !strings.HasPrefix(line, "|") {
					continue
				}
				cells := strings.Count(line, "|") - strings.Count(line, `\|`)
				if strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| metric") {
					header = cells
					continue
				}
				assert.Equal(t, header, cells, "a row off its table's columns: %s", line)
			}
		})
	}
}

// TestMeasureNoteKeepsAnIDsControlCharactersInert: the note naming the
// first labelled record a score could not be read for writes its id's
// control characters as escapes.
func TestMeasureNoteKeepsAnIDsControlCharactersInert(t *testing.T) {
	t.Parallel()
	records := make([]estimateRecord, 12)
	for i := range records {
		records[i] = estimateRecord{label: 1 + i%5, value: 1 + (i*3)%5, group: "a"}
	}
	records[0].value = "NaN"
	path := writeEstimateData(t, records)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(data), `"id":"r1"`, `"id":"r1\u001b[2J\r"`, 1)), 0o600))
	var log strings.Builder
	j := job(t, path)
	j.Label, j.Score, j.Log = "relevance", "meta.judge", &log
	_, err = agree.Measure(context.Background(), j)
	require.NoError(t, err)
	assert.Contains(t, log.String(), `record r1\x1b[2J\r: meta.judge: want a number, got NaN (1 of 12 labelled records left out)`)
}

// TestOutcomeWriteKeepsTheFileNamesControlCharactersInert: the file named
// in the tables' headers is shown with its control characters escaped,
// in the binary and the graded tables and the estimates' header alike.
func TestOutcomeWriteKeepsTheFileNamesControlCharactersInert(t *testing.T) {
	t.Parallel()
	records := make([]estimateRecord, 24)
	for i := range records {
		records[i] = estimateRecord{value: 1 + (i*3)%5, group: "a"}
		if i < 12 {
			records[i].label = 1 + i%5
		}
	}
	j := job(t, writeEstimateData(t, records))
	j.Label, j.Score, j.Estimate = "relevance", "meta.judge", true
	out, err := agree.Measure(context.Background(), j)
	require.NoError(t, err)
	out.File = "runs/\x1b[2Jd\u202e.jsonl"
	var md strings.Builder
	require.NoError(t, out.Write(&md, nil, agree.Style{}))
	assert.NotContains(t, md.String(), "\x1b")
	assert.NotContains(t, md.String(), "\u202e")
	assert.Contains(t, md.String(), `graded human labels on runs/\x1b[2Jd\u202e.jsonl (grades`)
	assert.Contains(t, md.String(), `scored in runs/\x1b[2Jd\u202e.jsonl: PPI++`)
}

// TestEstimateMarkdownKeepsTheWeightFieldInItsCell: the --weight field
// named in the estimate's cell is escaped: a "|" in it cannot add a
// column, nor a control character reach the terminal.
func TestEstimateMarkdownKeepsTheWeightFieldInItsCell(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		weight, want string
	}{
		"plain":                {"meta.w", "(weighted by meta.w)"},
		"a pipe":               {"meta.w|x", `(weighted by meta.w\|x)`},
		"an escape sequence":   {"meta.w\x1b[2J", `(weighted by meta.w\\x1b\[2J)`},
		"a line break, a bidi": {"meta.w\n\u202ex", `(weighted by meta.w\\n\\u202ex)`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := agree.Result{Metric: "meta.judge", Label: "relevant", Mean: &agree.MeanEstimate{Weight: tc.weight, JudgeScale: "value",
				PPIFigures: agree.PPIFigures{Estimate: 0.5, CI95: [2]run.Num{0.4, 0.6}, LabelsOnly: 0.5, LabelsOnlyCI95: [2]run.Num{0.3, 0.7},
					JudgeOnly: 0.45, Lambda: 0.8, EffectiveLabels: 14, Labelled: 10, Unlabelled: 30}}}
			row := r.EstimateMarkdown()
			assert.Contains(t, row, tc.want)
			header := strings.Split(agree.EstimateMarkdownHeader, "\n")[0]
			assert.Equal(t, strings.Count(header, "|"), strings.Count(row, "|")-strings.Count(row, `\|`), row)
			assert.False(t, strings.ContainsFunc(strings.TrimSuffix(row, "\n"), unicode.IsControl), row)
		})
	}
}
