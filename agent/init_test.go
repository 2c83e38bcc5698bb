package agent

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/heuristics/daily"
)

// TestInitDoesNotParseTheDailyProfile: every command, --help included,
// runs this package's initialisation, which used to parse the whole daily
// profile for the registry's thresholds (about 8,700 allocations, 1.6 ms).
// It reads the gate alone now; the profile waits for its first use. The
// test runs its own binary with no test, under GODEBUG=inittrace=1, which
// prints what each package's initialisation allocated. (Not parallel:
// AllocsPerRun is not allowed in a parallel test.)
func TestInitDoesNotParseTheDailyProfile(t *testing.T) {
	cmd := exec.CommandContext(context.Background(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	m := regexp.MustCompile(`(?m)^init github\.com/assaylabs/assay/agent @.* (\d+) allocs$`).FindSubmatch(out)
	require.NotNil(t, m, "no init line for the package in:\n%s", out)
	initAllocs, err := strconv.Atoi(string(m[1]))
	require.NoError(t, err)
	parse := testing.AllocsPerRun(3, func() {
		if _, err := daily.ParseProfile("daily.yaml", daily.DefaultYAML()); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("init: %d allocations; a parse of the daily profile: %.0f", initAllocs, parse)
	assert.Less(t, float64(initAllocs), parse/10)
}
