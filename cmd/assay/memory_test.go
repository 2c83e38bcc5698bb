package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/internal/race"
)

// peakEnv names the file a process the tests start as the assay command
// writes its peak resident memory to (VmHWM, in bytes), when set.
const peakEnv = "ASSAY_TEST_PEAK_FILE"

// reportPeak writes this process's peak resident memory to path. VmHWM is
// the process's own: its rusage's maxrss would count the test binary it
// was started from, whose memory it shared until exec.
func reportPeak(path string) {
	if path == "" {
		return
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for line := range strings.Lines(string(status)) {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" && f[2] == "kB" {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				_ = os.WriteFile(path, []byte(strconv.FormatInt(kb<<10, 10)), 0o644)
			}
		}
	}
}

// peakRSS runs the assay command as a process (TestMain) with args and
// returns its exit code and its peak resident memory in bytes.
func peakRSS(t *testing.T, args ...string) (int, int64) {
	t.Helper()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status here: the peak resident memory is read from it")
	}
	peak := filepath.Join(t.TempDir(), "peak")
	cmd := exec.CommandContext(t.Context(), os.Args[0], args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1", "ASSAY_DATA_DIR="+t.TempDir(), peakEnv+"="+peak)
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	b, err := os.ReadFile(peak)
	require.NoError(t, err, "the process wrote no peak")
	n, err := strconv.ParseInt(string(b), 10, 64)
	require.NoError(t, err)
	return code, n
}

// TestMemoryStaysProportional: inputs that grew memory without bound stay
// under a stated bound, measured as the process's peak resident memory
// (issue 24): a report of 20,000 links is scored in under 64 MB plus 100
// times its size (it took 330 times its size, and quadratic time, before
// the report parser indexed its spans and cards listed at most
// agent.MaxListed items), and /dev/zero is refused in under 64 MB.
func TestMemoryStaysProportional(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("# Report\n\n## Executive Summary\n\n")
	for i := range 20000 {
		b.WriteString("C")
		b.WriteString(strings.Repeat("x", i%9))
		b.WriteString(" [s](https://e")
		b.WriteString(strings.Repeat("y", i%13))
		b.WriteString(".org/).\n")
	}
	report := filepath.Join(t.TempDir(), "links.md")
	require.NoError(t, os.WriteFile(report, []byte(b.String()), 0o644))
	const base = 64 << 20
	tests := map[string]struct {
		args  []string
		code  int
		bound int64
	}{
		"a report of 20,000 links": {[]string{"score", "--query", "q", "--format", "yaml", report}, exitFailed, base + 100*int64(b.Len())},
		"judge /dev/zero":          {[]string{"judge", "--metric", "faithfulness", "/dev/zero"}, exitInput, base},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := os.Stat("/dev/zero"); err != nil && strings.Contains(name, "zero") {
				t.Skip("no /dev/zero here")
			}
			code, rss := peakRSS(t, tc.args...)
			assert.Equal(t, tc.code, code)
			bound := tc.bound
			if race.Enabled {
				bound *= 3 // the race detector's shadow memory: 2.4 times here
			}
			t.Logf("peak RSS %d MB (bound %d MB)", rss>>20, bound>>20)
			assert.Less(t, rss, bound, "peak RSS %d MB", rss>>20)
		})
	}
}
