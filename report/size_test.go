package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/race"
	"github.com/assaylabs/assay/run"
)

// reportSizeSamples is how many samples TestReportSizeAt100kSamples runs.
const reportSizeSamples = 100_000

// TestReportSizeAt100kSamples writes report.html for a run of 100,000
// samples judged on two metrics, against a baseline where about one in
// ten flipped pass/fail, as Execute does (ReadShown, then
// WriteHTML): the page holds each metric's lowest samples and the
// flipped ones, each with its texts from the dataset, says how many it
// left out, and stays under 3 MB. The texts are a RAG dataset's usual
// sizes (a question, an answer of a few sentences, two contexts, a
// reference); TestReportSizeWorstCase bounds texts at their caps.
func TestReportSizeAt100kSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("writes about 100 MB of run files: not with -short")
	}
	if race.Enabled {
		t.Skip("reads 100 MB of JSON ten times, which the race detector makes take minutes: .ci/run runs this test without it")
	}
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data.jsonl")
	writeLines(t, data, reportSizeSamples, func(i int) any {
		return map[string]any{
			"id":       sizeID(i),
			"question": fmt.Sprintf("How long does plan %d keep a refund open for order %d?", i%97, i),
			"answer": fmt.Sprintf("Plan %d keeps a refund open for %d days after delivery. After that the order can only be exchanged, "+
				"and store credit is offered instead of cash. Orders over %d dollars need a receipt.", i%97, 14+i%30, 50+i%200),
			"contexts": []string{
				fmt.Sprintf("Refund policy, plan %d: a refund stays open for %d days from the day the order is delivered.", i%97, 14+i%30),
				fmt.Sprintf("Exchanges: after the refund window an order of plan %d may be exchanged once; receipts are needed over %d dollars.", i%97, 50+i%200),
			},
			"reference": fmt.Sprintf("%d days after delivery.", 14+i%30),
		}
	})
	cur, base := filepath.Join(dir, "cur"), filepath.Join(dir, "base")
	thresholds := map[string]float64{"faithfulness": 0.7, "answer_relevancy": 0.5}
	metrics := []string{"faithfulness", "answer_relevancy"}
	// value is a sample's value on metric m in a run: spread over [0, 1]
	// by a hash, the baseline's moved by a tenth for one sample in ten.
	value := func(i, m int, baseline bool) float64 {
		v := unitHash(uint64(i)*2 + uint64(m))
		if baseline && i%10 == 3 {
			v = math.Mod(v+0.1, 1)
		}
		return math.Round(v*1000) / 1000
	}
	for _, folder := range []struct {
		dir      string
		baseline bool
	}{{cur, false}, {base, true}} {
		require.NoError(t, os.MkdirAll(folder.dir, 0o755))
		b, err := json.Marshal(run.Config{RunID: filepath.Base(folder.dir), Dataset: data, Metrics: metrics})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(folder.dir, run.FileConfig), b, 0o644))
		writeLines(t, filepath.Join(folder.dir, run.FileResults), 2*reportSizeSamples, func(line int) any {
			i, m := line/2, line%2
			v := value(i, m, folder.baseline)
			r := run.Result{ID: sizeID(i), Metric: metrics[m], Value: v, Method: "llm:openai:judge", Reason: fmt.Sprintf("%.3f of the claims are supported", v)}
			if m == 0 {
				r.Evidence.Claims = []eval.Claim{
					{Text: fmt.Sprintf("The refund stays open for %d days.", 14+i%30), Verdict: eval.VerdictSupported, SourceID: "c1"},
					{Text: "Store credit is offered instead of cash.", Verdict: eval.VerdictUnsupported},
				}
			} else {
				r.Evidence.Issues = []string{fmt.Sprintf("How long is the refund window of plan %d?", i%97)}
			}
			if i%1000 == 7 {
				r.Defaulted, r.Value, r.Error = true, 0.5, "status 500 after 4 attempts"
			}
			return r
		})
	}

	ds, err := dataset.Open(data, dataset.Options{})
	require.NoError(t, err)
	var st run.Stats
	st.Threshold = func(m string) float64 { return thresholds[m] }
	require.NoError(t, run.EachResult(filepath.Join(cur, run.FileResults), st.Add))
	s := run.Summary{RunID: "cur", Samples: reportSizeSamples, Complete: true, Metrics: st.Metrics()}
	s.Baseline, _, err = run.Compare(base, filepath.Join(cur, run.FileResults), s, nil)
	require.NoError(t, err)

	results, more, err := ReadShown(cur, base, ds.Records(), metrics, s.Baseline)
	require.NoError(t, err)
	page := filepath.Join(cur, run.FileReport)
	f, err := os.Create(page)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	require.NoError(t, WriteHTML(w, run.Config{RunID: "cur", Dataset: data, Metrics: metrics}, s, results, more))
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	text := string(html)

	rows := strings.Count(text, `<tr class="vals">`)
	flipped := strings.Count(text, ` data-flip="`)
	b := results.Bounded
	t.Logf("report.html: %d bytes, %d samples (%d lowest a metric, %d more flipped), %d flipped cells; %d flips in all",
		len(html), rows, b.Lowest, b.Also, flipped, s.Baseline.Metrics[0].NowFailing+s.Baseline.Metrics[0].NowPassing+s.Baseline.Metrics[1].NowFailing+s.Baseline.Metrics[1].NowPassing)
	assert.Less(t, len(html), 3<<20, "report.html stays under 3 MB")
	// Each metric's 250 lowest (the defaults among them), and 100 of
	// each metric's flips.
	assert.Equal(t, Samples/2, b.Lowest)
	assert.Equal(t, b.Shown, rows)
	assert.LessOrEqual(t, rows, Samples+Flipped)
	assert.Greater(t, b.Also, Flipped/2, "the flips are not the lowest samples, mostly")
	assert.GreaterOrEqual(t, flipped, Flipped)
	assert.Contains(t, text, fmt.Sprintf("This page holds %d of the run's %d samples: the %d with the lowest values of each metric and %d more that flipped pass/fail against the baseline. The other %d are left out",
		rows, reportSizeSamples, Samples/2, b.Also, reportSizeSamples-rows))
	// Every row holds its texts and its baseline values.
	assert.Equal(t, rows, strings.Count(text, `<section class="texts">`))
	assert.Equal(t, rows, len(regexp.MustCompile(`<h4>Reference</h4>`).FindAllStringIndex(text, -1)))
	// The figures count every sample.
	assert.Contains(t, text, `aria-label="histogram of 99900 scored values"`)
}

// TestReportSizeWorstCase bounds report.html whatever the dataset and the
// judges hold: the most samples the page shows (Samples and
// Flipped), each with every text at its cap (Thai, three bytes a
// character, with markup that escaping lengthens) and more claims than
// the page lists, stays under 10 MB (about 17 KB a sample; a usual RAG
// sample takes about 2 KB, see TestReportSizeAt100kSamples).
func TestReportSizeWorstCase(t *testing.T) {
	if race.Enabled {
		t.Skip("draws 500 samples at their caps, which the race detector makes take a minute: .ci/run runs this test without it")
	}
	t.Parallel()
	n := Samples + Flipped
	// Longer than every cap: Thai, three bytes a character, and some
	// markup that escaping makes longer.
	long := strings.Repeat("ผลตอบแทนของกองทุนปรับตัว <ขึ้น> & ", 40)
	var buf strings.Builder
	for i := range n {
		// Claims of a long answer, more than the page lists.
		claims := make([]eval.Claim, MaxListed+5)
		for j := range claims {
			claims[j] = eval.Claim{Text: string([]rune(long)[:60]), Verdict: eval.VerdictUnsupported, SourceID: "c1"}
		}
		b, err := json.Marshal(run.Result{ID: sizeID(i), Metric: "faithfulness", Value: 0.1, Reason: string([]rune(long)[:80]), Evidence: eval.Evidence{Claims: claims}})
		require.NoError(t, err)
		buf.Write(append(b, '\n'))
	}
	results, err := run.ReadResultsFrom(run.FileResults, strings.NewReader(buf.String()))
	require.NoError(t, err)
	var data strings.Builder
	for i := range n {
		ctxs := make([]string, MaxContexts+3)
		for j := range ctxs {
			ctxs[j] = long
		}
		b, err := json.Marshal(map[string]any{"id": sizeID(i), "question": long, "answer": long, "contexts": ctxs, "reference": long})
		require.NoError(t, err)
		data.Write(append(b, '\n'))
	}
	texts, err := ReadSampleTexts(dataset.Records("data.jsonl", strings.NewReader(data.String())), ShownIDs(results))
	require.NoError(t, err)
	require.Len(t, texts, n)
	var out strings.Builder
	s := run.Summary{RunID: "r", Samples: n, Metrics: run.Summarize(results.Results, nil)}
	require.NoError(t, WriteHTML(&out, run.Config{RunID: "r", Metrics: []string{"faithfulness"}}, s, results, Data{Texts: texts}))
	t.Logf("report.html: %d bytes for %d samples at their caps (%d a sample)", out.Len(), n, out.Len()/n)
	assert.Less(t, out.Len(), 10<<20)
	assert.Equal(t, n, strings.Count(out.String(), "3 more contexts left out of this page."))
	assert.Equal(t, n, strings.Count(out.String(), "… 5 more left out of this page"))
}

// sizeID is sample i's id.
func sizeID(i int) string { return fmt.Sprintf("q%06d", i) }

// unitHash maps x to [0, 1), evenly (splitmix64).
func unitHash(x uint64) float64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

// writeLines writes n JSON lines, line i being the JSON of line(i), to
// path.
func writeLines(t *testing.T, path string, n int, line func(i int) any) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	for i := range n {
		require.NoError(t, enc.Encode(line(i)))
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
}

// TestReportSizeConversationWorstCase bounds report.html for a run over
// conversations: the most samples the page shows, each a long agent
// conversation with every message, argument and result past its cap
// (Thai with markup), and evidence that marks a call of each turn,
// stays under 10 MB as the RAG worst case does.
func TestReportSizeConversationWorstCase(t *testing.T) {
	if race.Enabled {
		t.Skip("draws 500 samples at their caps, which the race detector makes take a minute: .ci/run runs this test without it")
	}
	t.Parallel()
	n := Samples + Flipped
	long := strings.Repeat("ผลตอบแทนของกองทุนปรับตัว <ขึ้น> & ", 40)
	var buf, data strings.Builder
	for i := range n {
		s := eval.Sample{ID: sizeID(i)}
		var issues []string
		for j := range 12 {
			args := fmt.Sprintf(`{"q":%q,"n":%d}`, long, j)
			s.Messages = append(s.Messages,
				eval.Message{Role: eval.RoleUser, Content: long},
				eval.Message{Role: eval.RoleAssistant, Content: long, ToolCalls: []eval.ToolCall{{ID: fmt.Sprint("c", j), Function: eval.ToolFunction{Name: "search", Arguments: args}}}},
				eval.Message{Role: eval.RoleTool, ToolCallID: fmt.Sprint("c", j), Content: long})
			issues = append(issues, "extra call: search("+args+")", fmt.Sprintf("turn %d: %s", 3*j+2, string([]rune(long)[:80])))
		}
		for range MaxExpected + 2 {
			s.ExpectedToolCalls = append(s.ExpectedToolCalls, eval.ExpectedToolCall{Name: "search", Arguments: json.RawMessage(fmt.Sprintf(`{"q":%q}`, long))})
		}
		b, err := json.Marshal(s)
		require.NoError(t, err)
		data.Write(append(b, '\n'))
		b, err = json.Marshal(run.Result{ID: sizeID(i), Metric: "tool_call_accuracy", Value: 0.1, Evidence: eval.Evidence{Issues: issues}})
		require.NoError(t, err)
		buf.Write(append(b, '\n'))
	}
	results, err := run.ReadResultsFrom(run.FileResults, strings.NewReader(buf.String()))
	require.NoError(t, err)
	texts, err := ReadSampleTexts(dataset.Records("data.jsonl", strings.NewReader(data.String())), ShownIDs(results))
	require.NoError(t, err)
	require.Len(t, texts, n)
	var out strings.Builder
	s := run.Summary{RunID: "r", Samples: n, Metrics: run.Summarize(results.Results, nil)}
	require.NoError(t, WriteHTML(&out, run.Config{RunID: "r", Metrics: []string{"tool_call_accuracy"}}, s, results, Data{Texts: texts}))
	t.Logf("report.html: %d bytes for %d conversations at their caps (%d a sample)", out.Len(), n, out.Len()/n)
	assert.Less(t, out.Len(), 10<<20)
	assert.Equal(t, n, strings.Count(out.String(), "2 more expected calls left out of this page."))
	assert.Equal(t, n, strings.Count(out.String(), `<section class="conv"`))
	assert.Equal(t, n, strings.Count(out.String(), "more messages left out of this page."))
}
