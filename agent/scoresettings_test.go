package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/heuristics"
	"github.com/assaylabs/assay/judging"
)

// TestScoreFileChecksTheJudgingSettings: assay score checks its judging
// flags as judge and research do; --checker-chunk -1 was taken without a
// word and the report scored.
func TestScoreFileChecksTheJudgingSettings(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		edit func(*judging.Config)
		want string
	}{
		"a negative chunk":            {func(c *judging.Config) { c.Checker, c.CheckerChunk = "offline", -1 }, "--checker-chunk -1: want at least 32 tokens"},
		"a chunk without a checker":   {func(c *judging.Config) { c.CheckerChunk = 500 }, "--checker-chunk: sizes the chunks of a fact checker: give --checker too"},
		"a default rate out of range": {func(c *judging.Config) { c.MaxDefaultRate = 2 }, "--max-default-rate: want a share from 0 to 1"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			j := judging.Default()
			tc.edit(&j)
			out, err := agent.ScoreFile(context.Background(), agent.ScoreJob{File: "../fixtures/reports/pass.md", Judging: j})
			assert.Nil(t, out)
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestScoreFileDropsAByteOrderMark: a UTF-8 byte-order mark before a
// report or a side file is not content. A sources file saved with one was
// refused as invalid JSON ('ï'), and a file of the mark alone was scored
// as an empty report (exit 1) instead of refused as empty input.
func TestScoreFileDropsAByteOrderMark(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(data), 0o600))
		return p
	}
	const bom = "\xEF\xBB\xBF"
	sources := `[{"url": "https://www.rfc-editor.org/rfc/rfc9114", "credibility_score": 9}]`
	report, err := os.ReadFile("../fixtures/reports/pass.md")
	require.NoError(t, err)
	tests := map[string]struct {
		file, sources string
		want          string // the error, "" for none
	}{
		"a mark alone":               {file: write("mark.md", bom), want: "mark.md: empty input: nothing to score"},
		"a mark and blanks":          {file: write("blank.md", bom+" \n\t\n"), want: "blank.md: empty input: nothing to score"},
		"a report with a mark":       {file: write("report.md", bom+string(report))},
		"a sources file with a mark": {file: "../fixtures/reports/pass.md", sources: write("sources.json", bom+sources)},
		"a sources file of the mark": {file: "../fixtures/reports/pass.md", sources: write("nosources.json", bom), want: "nosources.json: empty input: nothing to score"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, err := agent.ScoreFile(context.Background(), agent.ScoreJob{File: tc.file, Sources: tc.sources, Judging: judging.Default(), Now: heuristics.FixedClock(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC))})
			if tc.want != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, 10.0, out.Card.Total, "scored as the report without a mark")
		})
	}
}

// TestScoreFileSideFilesAreNotStandardInput: a side file given as "-"
// is refused naming its flag, whether or not the report is read from
// standard input; "standard input is already used" was said of a report
// read from a file, and nothing named the flag.
func TestScoreFileSideFilesAreNotStandardInput(t *testing.T) {
	t.Parallel()
	const report = "../fixtures/reports/pass.md"
	const want = ": - (standard input) is not read here, only the report is: give the file's path (./- for a file named -)"
	tests := map[string]struct {
		job  agent.ScoreJob
		flag string
	}{
		"sources, the report a file":     {agent.ScoreJob{File: report, Sources: "-"}, "--sources"},
		"sources, the report from stdin": {agent.ScoreJob{File: "-", Stdin: mustOpen(t, report), Sources: "-"}, "--sources"},
		"tiers":                          {agent.ScoreJob{File: report, Tiers: "-"}, "--tiers"},
		"truth":                          {agent.ScoreJob{File: report, Profile: "daily", Truth: "-"}, "--truth"},
		"telemetry":                      {agent.ScoreJob{File: report, Profile: "daily", Truth: "../fixtures/daily/truth.json", Telemetry: "-"}, "--telemetry"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tc.job.Judging = judging.Default()
			out, err := agent.ScoreFile(context.Background(), tc.job)
			assert.Nil(t, out)
			var ie *eval.InputError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, tc.flag+want, err.Error())
		})
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	fh, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = fh.Close() })
	return fh
}
