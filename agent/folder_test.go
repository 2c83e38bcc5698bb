package agent_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agent"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/web"
)

// folderState is what a run folder holds at one moment, each file parsed.
type folderState struct {
	traceLines []agent.Event
	card       map[string]any
	sources    []agent.SourceRecord
	report     string
}

// readFolder parses every file of a run folder; a file that is not whole
// (cut JSON, a cut trace line) fails the test.
func readFolder(t *testing.T, dir string) folderState {
	t.Helper()
	var st folderState
	trace, err := os.ReadFile(filepath.Join(dir, agent.FileTrace))
	require.NoError(t, err)
	if len(trace) > 0 {
		require.Equal(t, byte('\n'), trace[len(trace)-1], "the trace ends with a whole line")
	}
	sc := bufio.NewScanner(bytes.NewReader(trace))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e agent.Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), "trace line %q", sc.Text())
		st.traceLines = append(st.traceLines, e)
	}
	card, err := os.ReadFile(filepath.Join(dir, agent.FileCard))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(card, &st.card))
	sources, err := os.ReadFile(filepath.Join(dir, agent.FileSources))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(sources, &st.sources))
	report, err := os.ReadFile(filepath.Join(dir, agent.FileReport))
	require.NoError(t, err)
	st.report = string(report)
	return st
}

// TestRunFolderIsWrittenAsTheRunGoes looks into the folder while the run
// is still going: when the first scoring (stage 6) ends, trace.jsonl holds
// a line for every stage ended so far, and card.json, sources.json and
// report.md hold iteration 0, marked running. At the end they hold the
// finished run.
func TestRunFolderIsWrittenAsTheRunGoes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	folder, err := agent.OpenRunFolder(dir)
	require.NoError(t, err)
	cfg := offlineResearch(t, corpus(t))
	cfg.Folder = folder
	var ended int
	var during *folderState
	cfg.OnEvent = func(e agent.Event) {
		if e.Duration == 0 {
			return // a stage starting
		}
		ended++
		if e.Stage == agent.StageScore && e.Iteration == 0 {
			st := readFolder(t, dir)
			during = &st
			assert.Len(t, st.traceLines, ended, "every ended stage is in the trace before the next event")
		}
	}
	res, err := cfg.Run(context.Background(), "How do heat pumps perform in cold climates?")
	require.NoError(t, err)
	require.NoError(t, folder.Close())

	require.NotNil(t, during, "the hook saw stage 6 end")
	assert.Equal(t, string(agent.StatusRunning), during.card["status"])
	require.Len(t, during.card["iterations"], 1)
	require.Contains(t, during.card, "final_card")
	assert.Equal(t, res.Iterations[0].Card.Status, during.card["final_card"].(map[string]any)["status"])
	assert.Equal(t, res.Report, during.report, "the report of iteration 0 is on disk before the run ends")
	assert.Len(t, during.sources, len(res.Sources))
	assert.Equal(t, agent.StageScore, during.traceLines[len(during.traceLines)-1].Stage)

	end := readFolder(t, dir)
	assert.Equal(t, string(res.Status), end.card["status"])
	assert.Equal(t, "pass", end.card["status"])
	assert.Len(t, end.traceLines, len(res.Trace))
	assert.Equal(t, res.Report, end.report)
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, ents, 4, "no temporary files are left behind")
}

// TestRunFolderOfAnInterruptedRun cancels a run while its seven gate
// grades are in flight, as a kill would: the folder's files are whole, say
// interrupted, and give the model calls the client made (the summaries and
// the cut grades), where the stages' own usage was lost with the gate.
func TestRunFolderOfAnInterruptedRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var grades atomic.Int32
	srv := llmtest.New(t, llmtest.Func(func(req openai.ChatCompletionRequest) llmtest.Reply {
		if schemaName(req) == "grade" {
			if grades.Add(1) == 7 {
				cancel() // every grade has reached the server
			}
			return llmtest.Reply{Delay: time.Minute} // ends when the client goes away
		}
		return researchReplies(req)
	}))
	client := modelClient(t, srv)
	dir := t.TempDir()
	folder, err := agent.OpenRunFolder(dir)
	require.NoError(t, err)
	cfg := agent.Research{Searcher: memSearch{sevenSources()}, Options: agent.Options{Model: client, Now: fixedClock(), NoRecency: true}, Folder: folder}
	res, err := cfg.Run(ctx, "heat pumps in cold climates")
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, folder.Close())
	assert.Equal(t, agent.StatusInterrupted, res.Status)

	st := readFolder(t, dir)
	assert.Equal(t, string(agent.StatusInterrupted), st.card["status"])
	qos := st.card["qos"].(map[string]any)
	calls := int(qos["llm_calls"].(float64))
	assert.Equal(t, 7+7, calls, "7 summaries and the 7 cut grades")
	assert.Equal(t, int(srv.Calls()), calls, "card.json gives the calls the server saw")
	assert.Equal(t, client.Usage().Calls, calls, "card.json gives the calls the client made")
	assert.Len(t, st.sources, 7)
	assert.Equal(t, len(res.Trace), len(st.traceLines))
}

func TestOpenRunFolderRefusesTakenNames(t *testing.T) {
	t.Parallel()
	for _, name := range []string{agent.FileReport, agent.FileCard, agent.FileSources, agent.FileTrace} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			require.NoError(t, os.Mkdir(filepath.Join(dir, name), 0o755))
			_, err := agent.OpenRunFolder(dir)
			require.ErrorContains(t, err, filepath.Join(dir, name)+": exists and is not a regular file")
			ents, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, ents, 1, "nothing is written")
		})
	}
}

// TestResearchOutcomes: a run whose model fails every call, or whose
// search backend is down, ends in a typed failure; a run where one judge
// of the card defaults is not a pass.
func TestResearchOutcomes(t *testing.T) {
	t.Parallel()
	fail := llmtest.Reply{Status: 500, Body: `{"error":{"message":"scripted outage","type":"server_error"}}`}
	tests := map[string]struct {
		reply    func(openai.ChatCompletionRequest) llmtest.Reply
		searcher agent.Searcher
		status   agent.Status
		errAs    func(error) bool
		card     string // the final card's status; "" for no card
		reason   string
	}{
		"a model that fails every call": {
			reply:  func(openai.ChatCompletionRequest) llmtest.Reply { return fail },
			status: agent.StatusModelFailed,
			errAs:  func(err error) bool { var me *agent.ModelError; return errors.As(err, &me) && me.Steps == 7+7+1+1 },
			card:   "iterate", reason: "scripted outage",
		},
		"only the completeness judge fails": {
			reply: func(req openai.ChatCompletionRequest) llmtest.Reply {
				if schemaName(req) == "aspects" {
					return fail
				}
				return researchReplies(req)
			},
			status: agent.StatusRejected, card: "iterate",
			reason: "the completeness judge(s) fell back to the neutral default",
		},
		"a search backend that is down": {
			reply:    researchReplies,
			searcher: downSearch{},
			status:   agent.StatusSearchFailed,
			errAs:    func(err error) bool { var ue *web.UnreachableError; return errors.As(err, &ue) },
			reason:   "search backend searxng:http://127.0.0.1:9 unreachable",
		},
		"a search backend that refuses the question": {
			reply:    researchReplies,
			searcher: refusingSearch{},
			status:   agent.StatusFailed,
			errAs:    func(err error) bool { var se *web.SearxNGError; return errors.As(err, &se) && se.StatusCode == 403 },
			reason:   "searxng: HTTP 403 Forbidden",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t, llmtest.Func(tc.reply))
			s := tc.searcher
			if s == nil {
				s = memSearch{sevenSources()}
			}
			res, err := agent.Research{Searcher: s, Options: agent.Options{Model: modelClient(t, srv), Now: fixedClock(), NoRecency: true}}.Run(context.Background(), "heat pumps in cold climates")
			if tc.errAs != nil {
				require.Error(t, err)
				assert.True(t, tc.errAs(err), "%T: %v", err, err)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.status, res.Status)
			if tc.card == "" {
				assert.Empty(t, res.Iterations)
				assert.NotContains(t, res.Report, "Insufficient data")
				assert.Contains(t, res.Reason, tc.reason)
				return
			}
			require.NotEmpty(t, res.Iterations)
			final := res.Iterations[len(res.Iterations)-1].Card
			assert.Equal(t, tc.card, final.Status)
			assert.Contains(t, res.Reason+final.Reason, tc.reason)
		})
	}
}

type downSearch struct{}

func (downSearch) Name() string { return "searxng" }

func (downSearch) Search(context.Context, web.Query) ([]web.Result, error) {
	return nil, &web.UnreachableError{Backend: "searxng:http://127.0.0.1:9", Err: errors.New("dial tcp 127.0.0.1:9: connect: connection refused")}
}

// refusingSearch is a SearxNG instance that answers every search with
// 403: its JSON format is not enabled.
type refusingSearch struct{}

func (refusingSearch) Name() string { return "searxng" }

func (refusingSearch) Search(context.Context, web.Query) ([]web.Result, error) {
	return nil, &web.SearxNGError{StatusCode: 403}
}
