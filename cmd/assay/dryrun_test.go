package main

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/assertions"
	"github.com/assaylabs/assay/internal/datablock"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/metric"
	"github.com/assaylabs/assay/toolcall"
)

// standIn is a fake server's reply logic that answers as the dry run's
// stand-in model does, so that a real run and a dry run take one path.
func standIn(count func(string) int) func(openai.ChatCompletionRequest) llmtest.Reply {
	return func(req openai.ChatCompletionRequest) llmtest.Reply {
		if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil {
			if content, ok := llmtest.StandIn(rf.JSONSchema.Name, req, count, agent.StandIn); ok {
				return llmtest.Reply{Content: content}
			}
		}
		return llmtest.JudgeReplies(req)
	}
}

// planRowOf reads one row of a dry run's table: calls, tokens in.
func planRowOf(t *testing.T, table, name string) (calls, tokensIn int) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s+(\d+)\s+(\d+)\s+\d+\s+\S+$`).FindStringSubmatch(table)
	require.NotNil(t, m, "no row %q in:\n%s", name, table)
	calls, _ = strconv.Atoi(m[1])
	tokensIn, _ = strconv.Atoi(m[2])
	return calls, tokensIn
}

// TestDryRunEqualsTheRealRun: for every metric --metric takes, the calls
// and prompt tokens a dry run reports are those a real run makes (none for
// a deterministic metric) against a server that answers as the stand-in
// does: the requests the server received, counted as the client counts a
// prompt (its tokenizer, 4 tokens a message, the nonce at its preview), and
// the texts it was asked to embed. The server has an embedding model only
// where the case sets one: answer relevancy needs it, and
// answer_relevancy_grade does without.
func TestDryRunEqualsTheRealRun(t *testing.T) {
	t.Parallel()
	count := llm.TokenizerFor("judge-model").Count // the client's counter for openai:judge-model
	files := map[string]string{
		judges.MetricContextRecall: "../../fixtures/rag/eiffel.json", // the labelled set has no reference
	}
	// The metrics against a reference, and the assertions, which read
	// their arguments from the records' metadata, run on the checks set.
	var asserts metric.Registry
	require.NoError(t, assertions.AddBuiltins(&asserts))
	for _, e := range agent.Builtins().Entries() {
		if _, ok := asserts.Lookup(e.Name); ok || e.Needs&metric.NeedsReference != 0 && e.Name != judges.MetricContextRecall {
			files[e.Name] = "../../fixtures/rag/checks.jsonl"
		}
	}
	// The metrics of a conversation run on conversations.
	for _, m := range []string{judges.MetricTaskCompletion, judges.MetricConversationRelevancy, judges.MetricKnowledgeRetention, judges.MetricRoleAdherence,
		toolcall.MetricAccuracy, toolcall.MetricF1, toolcall.MetricTrajectory, toolcall.MetricErrors, toolcall.MetricLoops} {
		files[m] = "../../fixtures/agents/labelled.jsonl"
	}
	type run struct{ metric, embedModel string }
	runs := map[string]run{
		"answer_relevancy with embeddings":    {judges.MetricAnswerRelevancy, "text-embedding-3-small"},
		"answer_correctness with embeddings":  {judges.MetricAnswerCorrectness, "text-embedding-3-small"},
		"semantic_similarity with embeddings": {judges.MetricSemanticSimilarity, "text-embedding-3-small"},
	}
	for _, metric := range agent.Builtins().Metrics() {
		runs[metric] = run{metric: metric}
	}
	runs[judges.MetricAnswerRelevancy] = run{judges.MetricAnswerRelevancy, "text-embedding-3-small"}
	for name, tc := range runs {
		metric := tc.metric
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			file := files[metric]
			if file == "" {
				file = "../../fixtures/rag/labelled.jsonl"
			}
			srv := llmtest.New(t, llmtest.Func(standIn(count)))
			// A fresh response cache: a request the run makes twice is one
			// call, as in the dry run.
			env := map[string]string{"ASSAY_LLM": "openai:judge-model", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": t.TempDir(),
				"ASSAY_EMBEDDING_MODEL": tc.embedModel}
			code, _, errOut := runEnv(t, env, "judge", "--format", "jsonl", "--metric", metric, file)
			require.Equal(t, 0, code, errOut)
			require.NotContains(t, errOut, "neutral defaults 1", "the stand-in replies are valid")
			tokens := 0
			for _, req := range srv.Requests() {
				texts := make([]string, len(req.Messages))
				for i, m := range req.Messages {
					texts[i] = m.Content
				}
				for _, s := range datablock.WithPreviewNonce(texts...) {
					tokens += count(s) + 4
				}
			}
			for _, in := range srv.EmbedInputs() {
				for _, s := range in {
					tokens += count(s)
				}
			}
			calls := srv.Calls() + srv.EmbedCalls()
			// Semantic similarity without an embedding model is lexical: no call.
			if e, _ := agent.Builtins().Lookup(metric); e.CallsModel() && (metric != judges.MetricSemanticSimilarity || tc.embedModel != "") {
				require.Positive(t, calls)
			} else {
				require.Zero(t, calls, "a deterministic metric calls no model")
			}
			if tc.embedModel != "" {
				require.Positive(t, srv.EmbedCalls(), "the case embeds")
			}

			code, table, errOut := runEnv(t, env, "judge", "--dry-run", "--metric", metric, file)
			require.Equal(t, 0, code, errOut)
			gotCalls, gotTokens := planRowOf(t, table, metric)
			assert.Equal(t, calls, gotCalls, "calls")
			assert.Equal(t, tokens, gotTokens, "prompt tokens")
			assert.Equal(t, calls, srv.Calls()+srv.EmbedCalls(), "the dry run called nothing")
		})
	}
}

// TestDryRunOfABatchRunPricesItsCallsAtTheBatchPrice: a dry run of a
// --batch run says what that run would pay, the batch price (half the list
// price for gpt-4o-mini), not the list price of direct calls. The six
// records' faithfulness calls: 4,086 tokens in x $0.15/M + 375 out x
// $0.60/M = $0.0008379 direct, $0.00041895 in a batch.
func TestDryRunOfABatchRunPricesItsCallsAtTheBatchPrice(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		flags []string
		want  string
		price bool // the batch price is said
	}{
		"direct calls": {want: "total                      12         4086          375     0.0008\n"},
		"a batch run":  {flags: []string{"--batch"}, price: true, want: "total                      12         4086          375     0.0004\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t)
			env := map[string]string{"ASSAY_LLM": "openai:gpt-4o-mini", "OPENAI_BASE_URL": srv.URL(), "ASSAY_CACHE_DIR": t.TempDir(), "ASSAY_DATA_DIR": t.TempDir()}
			args := append([]string{"bench", "--dry-run", "--metric", "faithfulness"}, tc.flags...)
			code, out, errOut := runEnv(t, env, append(args, "../../fixtures/rag/labelled.jsonl")...)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, tc.want)
			assert.Equal(t, tc.price, regexp.MustCompile(`cost at the batch price \(--batch\): in \$0\.15, out \$0\.6 per million tokens, batch share 0\.5\n`).MatchString(out), out)
			assert.Equal(t, 0, srv.Calls())
		})
	}
}
