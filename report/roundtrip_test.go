package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/run"
)

// TestResultWriterHostileIDsRoundTrip checks that an ID or reason written
// as an attacker would (YAML-special words, control and bidi characters,
// Markdown, a leading "- " or "#", a very long one) reads back from yaml,
// json and jsonl exactly as written, one result per result, and that no
// control or bidirectional character reaches the terminal raw: each is
// an escape, so an id cannot reverse or hide the line it is on.
func TestResultWriterHostileIDsRoundTrip(t *testing.T) {
	t.Parallel()
	ids := []string{"no", "~", "0x10", "1e3", ".nan", "- x", "# c", "null", "true", "Yes", "'q'", `"d"`, "a: b", "[1]", "{a: 1}",
		"|", ">", "&a", "*a", "!t", "%x", "@x", "`x`", "a|b", "x\x07\u202e\u2066y", "line\nbreak", " lead", "trail ", "\t", "",
		"\ufeffbom", "\u2028sep", "\x00nul", "\x7fdel", "\u0085nel", strings.Repeat("long-", 2000), "=1", "0o17", "+1", "1_000", "2026-12-07"}
	var in []run.Result
	for i, id := range ids {
		in = append(in, run.Result{ID: id, Metric: "m", Value: float64(i) / 8, Points: float64(i) / 8, Max: 1, Method: "baseline",
			Reason: "got " + id, Evidence: eval.Evidence{Gaps: []string{id}}})
	}
	for _, format := range []string{"yaml", "json", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			rw := NewResultWriter(&b, format)
			for _, r := range in {
				require.NoError(t, rw.Write(r))
				require.NoError(t, rw.Flush())
			}
			require.NoError(t, rw.Close(true))
			for i, r := range b.String() {
				require.False(t, r != '\n' && termtext.Hidden(r), "%U raw at byte %d", r, i)
			}
			var got []run.Result
			switch format {
			case "yaml":
				require.NoError(t, yaml.Unmarshal(b.Bytes(), &got))
			case "json":
				require.NoError(t, json.Unmarshal(b.Bytes(), &got))
			default:
				for line := range strings.Lines(b.String()) {
					var r run.Result
					require.NoError(t, json.Unmarshal([]byte(line), &r), line)
					got = append(got, r)
				}
			}
			require.Len(t, got, len(in))
			for i := range in {
				assert.Equal(t, in[i].ID, got[i].ID, "id %d", i)
				assert.Equal(t, in[i].Reason, got[i].Reason, "reason %d", i)
				assert.Equal(t, in[i].Value, got[i].Value, "value %d", i)
				assert.Equal(t, in[i].Evidence.Gaps, got[i].Evidence.Gaps, "gaps %d", i)
			}
		})
	}
}
