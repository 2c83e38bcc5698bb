package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judging"
)

// ScoreBytes refuses data that is blank or not UTF-8 text with an
// *eval.InputError naming the input, as ScoreFile refuses such a file
// (ReadInput): it scored it into a failing card instead (an empty report
// given to assay serve's /v1/score as "  ", say).
func TestScoreBytesRefusesWhatScoreFileRefuses(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		profile string
		data    []byte
		want    string // "" scores
	}{
		"nil":                     {"", nil, "report: empty input: nothing to score"},
		"empty":                   {"", []byte{}, "report: empty input: nothing to score"},
		"blank":                   {"research", []byte(" \n\t\n"), "report: empty input: nothing to score"},
		"a byte-order mark alone": {"", []byte("\xEF\xBB\xBF\n"), "report: empty input: nothing to score"},
		"not UTF-8":               {"research", []byte("# Title\n\nText \xff\xfe.\n"), "report:3:6: invalid UTF-8: expected UTF-8 text"},
		"a NUL byte":              {"research", []byte("# Title\n\x00\n"), "report:2: binary data (NUL byte): expected UTF-8 text"},
		"blank retrieval":         {"context", []byte("  "), "report: empty input: nothing to score"},
		"a report":                {"research", []byte("# Title\n\nWater boils at 100 degrees.\n"), ""},
		"a report after a BOM":    {"", []byte("\xEF\xBB\xBF# Title\n\nWater boils at 100 degrees.\n"), ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, err := agent.ScoreBytes(context.Background(), agent.ScoreJob{Profile: tc.profile, Judging: judging.Default()},
				agent.ScoreInput{Name: "report", Data: tc.data})
			if tc.want == "" {
				require.NoError(t, err)
				assert.Equal(t, "research", out.Profile.Name)
				return
			}
			var ie *eval.InputError
			require.True(t, errors.As(err, &ie), "want an *eval.InputError, got %v (%+v)", err, out)
			assert.Equal(t, "report", ie.File)
			assert.Contains(t, ie.Error(), tc.want)
		})
	}
}
