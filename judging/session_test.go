package judging

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/setup"
)

// refusing is a model server that refuses every connection.
type refusing struct{}

func (refusing) Name() string { return "openai:judge-model" }

func (refusing) Chat(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, fmt.Errorf("dial tcp 127.0.0.1:1: %w", syscall.ECONNREFUSED)
}

func (refusing) Embed(context.Context, []string) ([][]float32, eval.Usage, error) {
	return nil, eval.Usage{}, llm.ErrNoEmbeddings
}

// TestServerDownFailsTheRun: calls that gave up on a model server that
// stayed down fail the run (exit 3) whatever --max-default-rate allows,
// saying what to do.
func TestServerDownFailsTheRun(t *testing.T) {
	t.Parallel()
	c := llm.New(llm.Config{Backend: refusing{}, Retry: llm.RetryPolicy{Initial: time.Millisecond, Max: time.Millisecond, MaxElapsed: 50 * time.Millisecond},
		Breaker: llm.BreakerPolicy{Cooldown: time.Hour}})
	cfg := Default()
	cfg.Model, cfg.MaxDefaultRate = c, 1
	s, err := cfg.Open(&strings.Builder{}, func(string) string { return "" })
	require.NoError(t, err)
	defer func() { _ = s.Close() }()
	assert.Empty(t, s.Failures(Defaults{Total: 2, Defaulted: 2}), "the server has not been taken as down yet")
	for range 2 {
		_, err := c.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "x"}}})
		require.ErrorIs(t, err, llm.ErrUnreachable)
	}
	fs := Failures(s.Failures(Defaults{Total: 2, Defaulted: 2}))
	require.Len(t, fs, 1)
	assert.Equal(t, FailUnreachable, fs[0].Kind)
	assert.False(t, fs[0].Kind.Scored(), "exit 3")
	assert.ErrorContains(t, fs[0], "2 call(s) gave up on it")
	assert.ErrorContains(t, fs[0], "--resume judges the defaulted pairs only")
}

func TestWaitNote(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	tests := map[string]struct {
		w    llm.Waits
		want string
	}{
		"nothing unusual":       {},
		"slow replies":          {w: llm.Waits{Slow: 3}, want: "3 calls waiting on slow replies"},
		"one slow reply":        {w: llm.Waits{Slow: 1}, want: "1 call waiting on slow replies"},
		"the server down first": {w: llm.Waits{Down: now.Add(-12400 * time.Millisecond), ForServer: 32, Slow: 1}, want: "model server not answering for 12s, 32 calls waiting for it"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, waitNote(tc.w, now))
		})
	}
}

func TestReportSaysHedges(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		u    eval.Usage
		want string
	}{
		"none":   {u: eval.Usage{Calls: 10, Retries: 1}, want: "calls 10 (retries 1, cache hits 0)"},
		"hedged": {u: eval.Usage{Calls: 12, Retries: 1, Hedges: 2}, want: "calls 12 (retries 1, hedged 2, cache hits 0)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			Report{Judge: "llm:openai:m", Usage: tc.u}.Write(&b)
			assert.Contains(t, b.String(), tc.want)
		})
	}
}

// TestDefaultAdviceNamesTheCause: the advice after a run's defaults names
// what to look at for its first cause.
func TestDefaultAdviceNamesTheCause(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		cause error
		want  string
	}{
		"server down":    {cause: fmt.Errorf("x: %w", llm.ErrUnreachable), want: "stopped answering for longer than --max-retry-time"},
		"reply too long": {cause: &llm.ReplyTooLargeError{Size: llm.MaxReply + 1}, want: "over the 1048576-byte cap"},
		"not a chat":     {cause: fmt.Errorf("%w: no choices", llm.ErrNotChat), want: "not chat completions"},
		"off the schema": {cause: llm.ErrInvalidOutput, want: "do not follow the judges' JSON schema"},
		"anything else":  {cause: fmt.Errorf("boom"), want: "check that the model server is up"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Contains(t, DefaultAdvice(tc.cause), tc.want)
		})
	}
}

// TestDefaultAdviceNamesTheCheckersVariables: defaults the fact checker
// caused point at the checker's server and the variables it is read
// from (llm/setup's checkerEnv), never at the judging model's alone,
// whatever the check's own error.
func TestDefaultAdviceNamesTheCheckersVariables(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		cause error
		want  string
	}{
		"openai, server down": {cause: fmt.Errorf("faithfulness: verify claims: %w", &judges.CheckerError{Checker: "openai:minicheck", Err: llm.ErrUnreachable}),
			want: "the fact checker openai:minicheck failed: check that its server is up, serves that model and answers Yes or No " +
				"(--checker; its API root from $ASSAY_CHECKER_BASE_URL, else $OPENAI_BASE_URL; its key from $ASSAY_CHECKER_API_KEY, else $OPENAI_API_KEY)"},
		"ollama, not yes or no": {cause: &judges.CheckerError{Checker: "ollama:minicheck", Err: llm.ErrInvalidOutput},
			want: "the fact checker ollama:minicheck failed: check that its server is up, serves that model and answers Yes or No " +
				"(--checker; its API root from $OLLAMA_HOST; its key from $ASSAY_CHECKER_API_KEY, else $OPENAI_API_KEY)"},
		"vllm": {cause: &judges.CheckerError{Checker: "vllm:minicheck", Err: fmt.Errorf("boom")},
			want: "(--checker; its API root from $ASSAY_CHECKER_BASE_URL, else $OPENAI_BASE_URL; its key from $ASSAY_CHECKER_API_KEY, else $VLLM_API_KEY)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := DefaultAdvice(tc.cause)
			assert.Contains(t, got, tc.want)
			assert.NotContains(t, got, "--llm")
		})
	}
	// The variables named are those the checker's client reads.
	assert.Equal(t, "ASSAY_CHECKER_BASE_URL", setup.CheckerBaseURLVar)
	assert.Equal(t, "ASSAY_CHECKER_API_KEY", setup.CheckerAPIKeyVar)
}
