package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/agree"
	"github.com/assaylabs/assay/annotation"
	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/runtest"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/judging"
	"github.com/assaylabs/assay/run"
	"github.com/assaylabs/assay/runstore"
	"github.com/assaylabs/assay/serve/annotate"
)

// queueValue is the judge's value of item i (1-based) of the queue runs:
// 0 to 1 in tenths, in a fixed scramble.
func queueValue(i int) float64 { return float64(7*i%11) / 10 }

// queueTruth is the person's label of item i: the judge's verdict at
// 0.5, but wrong on every sixth item.
func queueTruth(i int) bool { return (queueValue(i) >= 0.5) != (i%6 == 0) }

// hostile is text a sample may hold that must stay text on the page.
const hostile = `<script>document.title="pwned"</script><img src=x onerror="document.title='pwned'">`

// queueRun writes a dataset of n samples and a run folder of their
// faithfulness judgements as assay bench leaves them, records the run in
// the run store at storePath, and returns its id. Item 3 holds hostile
// text; item 5 was judged in five draws that split 3 to 2; the last one's
// judgement fell back on the neutral default.
func queueRun(t *testing.T, dir, storePath string, n int) string {
	t.Helper()
	return queueRunOf(t, dir, storePath, n, func(i int) string { return fmt.Sprintf("q%d", i) })
}

// queueRunOf is queueRun with item i's id idOf(i).
func queueRunOf(t *testing.T, dir, storePath string, n int, idOf func(int) string) string {
	t.Helper()
	var data bytes.Buffer
	var results []run.Result
	for i := 1; i <= n; i++ {
		id := idOf(i)
		rec := map[string]any{"id": id, "question": fmt.Sprintf("When was landmark %d completed?", i),
			"answer":   fmt.Sprintf("Landmark %d was completed in %d.", i, 1800+i),
			"contexts": []string{fmt.Sprintf("Landmark %d was completed in %d after %d years of work.", i, 1800+i, i%9+2)},
			"metadata": map[string]any{"tenant": []string{"acme", "globex"}[i%2]}}
		res := run.Result{ID: id, Metric: "faithfulness", Value: queueValue(i), Method: "llm:openai:gpt-4o-mini",
			Reason: fmt.Sprintf("%d of 10 claims supported", int(math.Round(queueValue(i)*10)))}
		switch i {
		case 1:
			res.Evidence.Claims = []eval.Claim{{Text: "Landmark 1 was completed in 1801.", Verdict: eval.VerdictSupported}}
		case 3:
			rec["question"], rec["answer"] = "Who built it? "+hostile, hostile
			res.Reason = hostile
		case 5:
			res.Evidence.Counts = map[string]float64{judges.CountSamples: 5, judges.CountMajorityShare: 0.6, judges.CountDrawPasses: 3}
		case n:
			res.Value, res.Defaulted, res.Error, res.Reason = 0.5, true, "model unreachable: connection refused", "neutral default"
		}
		line, err := json.Marshal(rec)
		require.NoError(t, err)
		data.Write(append(line, '\n'))
		results = append(results, res)
	}
	path := filepath.Join(dir, "landmarks.jsonl")
	require.NoError(t, os.WriteFile(path, data.Bytes(), 0o644))
	sha, err := dataset.FileSHA256(path)
	require.NoError(t, err)
	started := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	cfg := run.Config{RunID: "20260301-0900-q" + fmt.Sprint(n), Started: started, Dataset: path, DatasetSHA256: sha,
		Metrics: []string{"faithfulness"}, Model: "openai:gpt-4o-mini"}
	sum := run.Summary{RunID: cfg.RunID, Started: started, Finished: started.Add(time.Minute), Samples: n, Complete: true,
		Metrics: []run.MetricStats{{Metric: "faithfulness", N: n, Threshold: 0.5}}}
	folder := runtest.WriteFolder(t, filepath.Join(dir, "run-"+cfg.RunID), cfg, &sum, results)
	rs, err := runstore.OpenStore(storePath)
	require.NoError(t, err)
	require.NoError(t, rs.Record(cfg, sum, folder))
	require.NoError(t, rs.Close())
	return cfg.RunID
}

// queueServer is a server whose run store holds a queue run of n items.
func queueServer(t *testing.T, cfg Config, n int) (*testServer, string) {
	t.Helper()
	cfg.DataDir = t.TempDir()
	cfg.Store = filepath.Join(cfg.DataDir, "runs.db")
	id := queueRun(t, cfg.DataDir, cfg.Store, n)
	return start(t, cfg), id
}

// getQueueJSON is GET /v1/queue with query q, decoded.
func getQueueJSON(t *testing.T, s *testServer, q url.Values, header ...string) annotate.QueueResponse {
	t.Helper()
	code, body := call(t, http.MethodGet, s.URL+"/v1/queue?"+q.Encode(), "", header...)
	require.Equal(t, http.StatusOK, code, body)
	var resp annotate.QueueResponse
	require.NoError(t, json.Unmarshal([]byte(body), &resp))
	return resp
}

// postLabelJSON posts a label and decodes the answer.
func postLabelJSON(t *testing.T, s *testServer, req map[string]any, header ...string) annotate.LabelResponse {
	t.Helper()
	code, body := call(t, http.MethodPost, s.URL+"/v1/queue/labels", mustJSON(t, req), append([]string{"Content-Type", "application/json"}, header...)...)
	require.Equal(t, http.StatusOK, code, body)
	var resp annotate.LabelResponse
	require.NoError(t, json.Unmarshal([]byte(body), &resp))
	return resp
}

// agreeEstimate runs the agree library on an export as `assay agree
// --score meta.judge_score --label LABEL --estimate FILE` does (graded:
// meta.judge_grade, --label-type graded --grades 1,2,3,4,5; weighted:
// --weight meta.label_weight).
func agreeEstimate(t *testing.T, export []byte, label string, graded, weighted bool) *agree.MeanEstimate {
	t.Helper()
	path := filepath.Join(t.TempDir(), "labels.jsonl")
	require.NoError(t, os.WriteFile(path, export, 0o644))
	env := map[string]string{"ASSAY_DATA_DIR": t.TempDir(), "ASSAY_CACHE_DIR": t.TempDir()}
	j := agree.Job{Data: path, Score: "meta." + "judge_score", Label: label, Estimate: true, Judging: judging.Default(),
		Env: func(k string) string { return env[k] }, Quiet: true}
	if graded {
		j.Score, j.LabelType, j.Grades = "meta."+"judge_grade", "graded", []float64{1, 2, 3, 4, 5}
	}
	if weighted {
		j.Weight = "meta." + "label_weight"
	}
	out, err := agree.Measure(t.Context(), j)
	require.NoError(t, err)
	require.Len(t, out.Tables, 1)
	res := out.Tables[0].Results[0]
	require.NotNil(t, res.Mean)
	return res.Mean
}

// TestQueueLabelsRoundTripIntoAgree labels a run's queue through the
// API in its random draw, relabels one, exports it and measures the
// export with the agree library: the same PPI++ estimate and interval
// as the queue's.
func TestQueueLabelsRoundTripIntoAgree(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)
	s, id := queueServer(t, Config{Now: func() time.Time { return at }}, 40)

	q := getQueueJSON(t, s, url.Values{"run": {id[:12]}, "order": {"worth"}})
	assert.Equal(t, id, q.Run)
	assert.Equal(t, "faithfulness", q.Metric)
	assert.Equal(t, "binary", q.Scale)
	assert.Equal(t, "worth", q.Order)
	assert.InDelta(t, 0.5, q.Threshold, 0)
	assert.Equal(t, annotation.Counts{Items: 40, Scored: 39, Unscored: 1, Defaulted: 1}, q.Counts)
	require.Len(t, q.Items, 40)
	// Worth first: the values at the threshold (7i mod 11 = 5: items 7,
	// 18, 29) and the default (q40), worth 1; then q5, at 0.2 (uncertainty
	// 0.4) but its draws split 3 to 2 (disagreement 0.8): 1 - 0.6 x 0.2.
	assert.Equal(t, []string{"q7", "q18", "q29", "q40", "q5"}, idsOf(q.Items[:5]))
	assert.InDelta(t, 0.88, q.Items[4].Worth, 1e-12)
	var q5, q40 annotate.QueueItem
	for _, it := range q.Items {
		switch it.ID {
		case "q5":
			q5 = it
		case "q40":
			q40 = it
		}
	}
	assert.True(t, math.IsNaN(float64(q5.Judge.Points)), "no grade for a ratio judge")
	require.NotNil(t, q5.Disagreement)
	assert.InDelta(t, 0.8, *q5.Disagreement, 1e-12)
	assert.True(t, q40.Judge.Defaulted)
	assert.True(t, math.IsNaN(float64(q40.Judge.Value)), "a default has no value")
	assert.Equal(t, "model unreachable: connection refused", q40.Judge.Error)
	assert.InDelta(t, 1, q40.Uncertainty, 0)
	// No label yet: the first none of the active order, so weighted.
	assert.Equal(t, "assay agree --score meta.judge_score --label faithfulness --estimate --weight meta.label_weight labels.jsonl", q.Agree)
	assert.Equal(t, "/v1/queue/export?metric=faithfulness&run="+id, q.Export)
	assert.Equal(t, "0 labelled items with a judge value; an estimate needs at least 10", q.Estimate.Note)

	// Label the first 14 of the random draw, the label the item's truth,
	// then relabel the first.
	draw := getQueueJSON(t, s, url.Values{"run": {id}, "order": {"draw"}})
	assert.Equal(t, "draw", draw.Order)
	var last annotate.LabelResponse
	labelled := map[string]bool{}
	for _, it := range draw.Items[:14] {
		var i int
		_, err := fmt.Sscanf(it.ID, "q%d", &i)
		require.NoError(t, err)
		last = postLabelJSON(t, s, map[string]any{"run": id, "item": it.ID, "value": queueTruth(i), "labeler": "ana"})
		labelled[it.ID] = queueTruth(i)
	}
	first := draw.Items[0].ID
	relabel := postLabelJSON(t, s, map[string]any{"run": id, "metric": "faithfulness", "item": first, "value": !labelled[first], "note": "second look"})
	labelled[first] = !labelled[first]
	assert.Equal(t, annotate.Label{Item: first, Scale: "binary", Value: b2f(labelled[first]), Note: "second look", Who: "anonymous", At: at}, relabel.Label)
	assert.Equal(t, 14, last.Queue.Counts.Labelled)
	assert.Empty(t, last.Queue.Items, "the answer carries no items")
	est := relabel.Queue.Estimate
	require.False(t, math.IsNaN(float64(est.Estimate)), "an estimate from %d labels: %s", est.Labelled, est.Note)
	assert.True(t, est.RandomDraw, "labels taken in draw order")
	assert.Equal(t, "draw", est.Design)
	assert.Empty(t, est.Warning)
	assert.Equal(t, "assay agree --score meta.judge_score --label faithfulness --estimate labels.jsonl", relabel.Queue.Agree, "unweighted")
	_, defaultLabelled := labelled["q40"]
	assert.Equal(t, 14-boolInt(defaultLabelled), est.Labelled, "a label of the default is not the estimate's")
	require.NotEmpty(t, relabel.Queue.Projection)
	p := relabel.Queue.Projection[0]
	assert.Equal(t, 10, p.More)
	assert.Less(t, p.HalfWidth, float64(est.HalfWidth), "ten more labels narrow it")

	// The queue shows each label, with who and when.
	q = getQueueJSON(t, s, url.Values{"run": {id}})
	got := map[string]bool{}
	for _, it := range q.Items {
		if it.Label != nil {
			got[it.ID] = it.Label.Value == 1
			assert.Equal(t, at, it.Label.At)
		}
	}
	assert.Equal(t, labelled, got)
	assert.Equal(t, q.Counts.Labelled, 14)
	for _, it := range q.Items[:40-14] {
		assert.Nil(t, it.Label, "the unlabelled come first")
	}

	// The export: a line per scored item, the labels in human, and
	// agree's estimate is the queue's.
	code, export := call(t, http.MethodGet, s.URL+q.Export, "")
	require.Equal(t, http.StatusOK, code, export)
	recs, err := dataset.Read("labels.jsonl", strings.NewReader(export))
	require.NoError(t, err)
	require.Len(t, recs, 39, "the default left out")
	for _, r := range recs {
		var i int
		_, err := fmt.Sscanf(r.ID, "q%d", &i)
		require.NoError(t, err)
		assert.InDelta(t, queueValue(i), r.Sample.Metadata["judge_score"], 0, r.ID)
		assert.Equal(t, "faithfulness", r.Sample.Metadata["judge_metric"])
		if want, ok := labelled[r.ID]; ok {
			assert.Equal(t, map[string]any{"faithfulness": want}, r.Human, r.ID)
			assert.Equal(t, "2026-03-02T10:30:00Z", r.Sample.Metadata["labelled_at"])
		} else {
			assert.Nil(t, r.Human, r.ID)
		}
		if i == 3 {
			assert.Equal(t, hostile, r.Sample.Answer, "the sample as it was")
		}
	}
	mean := agreeEstimate(t, []byte(export), "faithfulness", false, false)
	assert.InDelta(t, float64(est.Estimate), float64(mean.Estimate), 1e-12)
	assert.InDelta(t, float64(est.CI95[0]), float64(mean.CI95[0]), 1e-12)
	assert.InDelta(t, float64(est.CI95[1]), float64(mean.CI95[1]), 1e-12)
	assert.InDelta(t, float64(est.Lambda), float64(mean.Lambda), 1e-12)
	assert.Equal(t, est.Labelled, mean.Labelled)
	assert.Equal(t, est.Unlabelled, mean.Unlabelled)

	// A label out of the draw's order: the estimate says it may be biased.
	skip := draw.Items[39].ID
	if skip == "q40" {
		skip = draw.Items[38].ID
	}
	out := postLabelJSON(t, s, map[string]any{"run": id, "item": skip, "value": true})
	assert.False(t, out.Queue.Estimate.RandomDraw)
	assert.Contains(t, out.Queue.Estimate.Warning, "may be biased")
}

func idsOf(items []annotate.QueueItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestQueueRefusesBadLabels: each bad label is a 400 naming its field,
// an item or run the queue does not have a 404, and nothing is stored.
func TestQueueRefusesBadLabels(t *testing.T) {
	t.Parallel()
	s, id := queueServer(t, Config{}, 12)
	postLabelJSON(t, s, map[string]any{"run": id, "item": "q1", "value": true}) // the queue's labels are binary now
	tests := map[string]struct {
		body        string
		contentType string
		status      int
		field       string
		msg         string
	}{
		"no item":                            {body: `{"run": "` + id + `", "value": true}`, status: 400, field: "item", msg: "item: missing"},
		"no value":                           {body: `{"run": "` + id + `", "item": "q2"}`, status: 400, field: "value", msg: "value: missing"},
		"a null value":                       {body: `{"run": "` + id + `", "item": "q2", "value": null}`, status: 400, field: "value", msg: "value: missing"},
		"a word":                             {body: `{"run": "` + id + `", "item": "q2", "value": "yes"}`, status: 400, field: "value", msg: `value: want true or false, or a grade from 1 to 5, got "yes"`},
		"grade 7":                            {body: `{"run": "` + id + `", "item": "q2", "value": 7}`, status: 400, field: "value", msg: "value: a grade is a whole number from 1 to 5, got 7"},
		"grade 2.5":                          {body: `{"run": "` + id + `", "item": "q2", "value": 2.5}`, status: 400, field: "value", msg: "got 2.5"},
		"a grade on a binary":                {body: `{"run": "` + id + `", "item": "q2", "value": 4}`, status: 400, field: "value", msg: "this queue's labels are binary"},
		"a note too long":                    {body: `{"run": "` + id + `", "item": "q2", "value": true, "note": "` + strings.Repeat("x", 4001) + `"}`, status: 400, field: "note", msg: "note: longer than 4000 characters"},
		"a labeler with a control character": {body: `{"run": "` + id + `", "item": "q2", "value": true, "labeler": "ana\u0007"}`, status: 400, field: "labeler"},
		"a labeler with a bidi override":     {body: `{"run": "` + id + `", "item": "q2", "value": true, "labeler": "ana\u202e"}`, status: 400, field: "labeler"},
		"an unknown field":                   {body: `{"run": "` + id + `", "item": "q2", "value": true, "grade": 3}`, status: 400, field: "grade", msg: `unknown field "grade"`},
		"a wrong type":                       {body: `{"run": "` + id + `", "item": 2, "value": true}`, status: 400, field: "item"},
		"not JSON":                           {body: `item=q2&value=true`, contentType: "application/x-www-form-urlencoded", status: 415, msg: "send the label as JSON"},
		"an unknown item":                    {body: `{"run": "` + id + `", "item": "../../etc/passwd", "value": true}`, status: 404, field: "item", msg: `has no item "../../etc/passwd"`},
		"an unknown run":                     {body: `{"run": "19990101", "item": "q2", "value": true}`, status: 404, field: "run", msg: `no run "19990101"`},
		"an unknown metric":                  {body: `{"run": "` + id + `", "metric": "recall", "item": "q2", "value": true}`, status: 400, field: "metric", msg: `no judgement of run ` + id + ` is of "recall": they are of faithfulness`},
		"no trace judged yet":                {body: `{"item": "q2", "value": true}`, status: 404, field: "run", msg: "no sampled trace has been judged yet"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ct := tc.contentType
			if ct == "" {
				ct = "application/json"
			}
			code, body := call(t, http.MethodPost, s.URL+"/v1/queue/labels", tc.body, "Content-Type", ct)
			require.Equal(t, tc.status, code, body)
			var eb ErrorBody
			require.NoError(t, json.Unmarshal([]byte(body), &eb))
			assert.Equal(t, tc.field, eb.Field)
			assert.Contains(t, eb.Error, tc.msg)
		})
	}
	t.Run("nothing stored", func(t *testing.T) {
		t.Parallel()
		labels, err := s.queues.Labels(t.Context(), "run:"+id, "faithfulness")
		require.NoError(t, err)
		assert.Len(t, labels, 1)
	})
	// The queue's own parameters.
	for q, want := range map[string]string{
		"run=" + id + "&order=random": "order",
		"run=" + id + "&scale=stars":  "scale",
		"run=" + id + "&limit=-1":     "limit",
		"run=" + id + "&label=a.b":    "label",
	} {
		code, body := call(t, http.MethodGet, s.URL+"/v1/queue?"+q, "")
		assert.Equal(t, http.StatusBadRequest, code, body)
		assert.Contains(t, body, `"field": "`+want+`"`, q)
	}
}

// TestQueueBehindToken: with --token the queue's routes want the bearer
// token or a dashboard session (signed in through the form, which sends
// the browser back to the queue it asked for); a session labels as
// "session", and opens nothing else.
func TestQueueBehindToken(t *testing.T) {
	t.Parallel()
	s, id := queueServer(t, Config{Token: "s3cret"}, 12)
	bearer := []string{"Authorization", "Bearer s3cret"}
	label := `{"run": "` + id + `", "item": "q1", "value": false}`
	for _, tc := range []struct{ method, path, body string }{
		{http.MethodGet, "/v1/queue?run=" + id, ""},
		{http.MethodGet, "/v1/queue/export?run=" + id, ""},
		{http.MethodPost, "/v1/queue/labels", label},
	} {
		code, body := call(t, tc.method, s.URL+tc.path, tc.body, "Content-Type", "application/json")
		assert.Equal(t, http.StatusUnauthorized, code, "%s %s: %s", tc.method, tc.path, body)
		code, body = call(t, tc.method, s.URL+tc.path, tc.body, "Content-Type", "application/json", "Authorization", "Bearer wrong")
		assert.Equal(t, http.StatusUnauthorized, code, "%s %s: %s", tc.method, tc.path, body)
		code, body = call(t, tc.method, s.URL+tc.path, tc.body, append([]string{"Content-Type", "application/json"}, bearer...)...)
		assert.Equal(t, http.StatusOK, code, "%s %s: %s", tc.method, tc.path, body)
	}
	jar := &cookieClient{}
	resp := jar.postForm(t, s.URL+"/login", url.Values{"token": {"s3cret"}})
	require.Equal(t, http.StatusSeeOther, resp.code)
	code, page := jar.do(t, http.MethodGet, s.URL+"/v1/queue?run="+id, "")
	assert.Equal(t, http.StatusOK, code, page)
	code, body := jar.do(t, http.MethodPost, s.URL+"/v1/queue/labels", label, "Content-Type", "application/json")
	require.Equal(t, http.StatusOK, code, body)
	var lr annotate.LabelResponse
	require.NoError(t, json.Unmarshal([]byte(body), &lr))
	assert.Equal(t, "session", lr.Label.Who)
	code, body = jar.do(t, http.MethodPost, s.URL+"/v1/runs", mustJSON(t, exampleRun), "Content-Type", "application/json")
	assert.Equal(t, http.StatusUnauthorized, code, "a session starts no run: %s", body)
	// A form posted with the session (as another page would): not JSON, refused.
	code, body = jar.do(t, http.MethodPost, s.URL+"/v1/queue/labels", "run="+id+"&item=q1&value=true", "Content-Type", "application/x-www-form-urlencoded")
	assert.Equal(t, http.StatusUnsupportedMediaType, code, body)
	// And from another origin, refused before that.
	code, body = jar.do(t, http.MethodPost, s.URL+"/v1/queue/labels", label, "Content-Type", "application/json", "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
	assert.Equal(t, http.StatusForbidden, code, body)
}

// cookieClient keeps the cookies a server sets, and does not follow
// redirects.
type cookieClient struct{ cookies []*http.Cookie }

type formResponse struct {
	code     int
	location string
}

func (c *cookieClient) postForm(t *testing.T, u string, form url.Values) formResponse {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, u, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	c.cookies = append(c.cookies, resp.Cookies()...)
	return formResponse{code: resp.StatusCode, location: resp.Header.Get("Location")}
}

func (c *cookieClient) do(t *testing.T, method, u, body string, header ...string) (int, string) {
	t.Helper()
	var parts []string
	for _, ck := range c.cookies {
		parts = append(parts, ck.Name+"="+ck.Value)
	}
	return call(t, method, u, body, append(header, "Cookie", strings.Join(parts, "; "))...)
}

// TestQueueGradedRoundTrip labels a queue on grades and measures the
// export as a graded label: the same estimate.
func TestQueueGradedRoundTrip(t *testing.T) {
	t.Parallel()
	s, id := queueServer(t, Config{}, 30)
	q := getQueueJSON(t, s, url.Values{"run": {id}, "order": {"draw"}, "scale": {"graded"}})
	assert.Equal(t, "graded", q.Scale)
	var last annotate.LabelResponse
	for n, it := range q.Items[:15] {
		last = postLabelJSON(t, s, map[string]any{"run": id, "item": it.ID, "value": 1 + n%5})
	}
	assert.Equal(t, "graded", last.Queue.Scale)
	assert.Equal(t, "assay agree --score meta.judge_grade --label faithfulness --label-type graded --grades 1,2,3,4,5 --estimate labels.jsonl", last.Queue.Agree)
	est := last.Queue.Estimate
	require.False(t, math.IsNaN(float64(est.Estimate)), est.Note)
	// A binary label now is refused: the queue is graded.
	code, body := call(t, http.MethodPost, s.URL+"/v1/queue/labels", `{"run": "`+id+`", "item": "q1", "value": true}`, "Content-Type", "application/json")
	assert.Equal(t, http.StatusBadRequest, code, body)
	assert.Contains(t, body, "this queue's labels are graded")

	code, export := call(t, http.MethodGet, s.URL+"/v1/queue/export?run="+id+"&label=grade", "")
	require.Equal(t, http.StatusOK, code, export)
	recs, err := dataset.Read("labels.jsonl", strings.NewReader(export))
	require.NoError(t, err)
	for _, r := range recs {
		var i int
		_, err := fmt.Sscanf(r.ID, "q%d", &i)
		require.NoError(t, err)
		// The judge's grade: the nearest of 1 + 4 x value, the lower of two.
		assert.InDelta(t, math.Ceil(1+4*queueValue(i)-0.5), r.Sample.Metadata["judge_grade"], 0, r.ID)
	}
	mean := agreeEstimate(t, []byte(export), "grade", true, false)
	assert.Equal(t, "as given", mean.JudgeScale)
	assert.InDelta(t, float64(est.Estimate), float64(mean.Estimate), 1e-12)
	assert.InDelta(t, float64(est.CI95[0]), float64(mean.CI95[0]), 1e-12)
	assert.InDelta(t, float64(est.CI95[1]), float64(mean.CI95[1]), 1e-12)
}

// TestQueueOfTraces makes a queue of the sampled traces the server
// judged (offline), labels one and exports it.
func TestQueueOfTraces(t *testing.T) {
	t.Parallel()
	s := start(t, Config{TraceMetrics: []string{"faithfulness"}})
	ids := []string{"trace-a", "trace-b", "trace-c"}
	code, body := call(t, http.MethodPost, s.URL+"/v1/traces", traceBody(t, ids, func(i int) map[string]any { return map[string]any{"n": i} }))
	require.Equal(t, http.StatusAccepted, code, body)
	waitJudged(t, s, 3)
	q := getQueueJSON(t, s, url.Values{})
	assert.Equal(t, "sampled traces", q.Source)
	assert.Empty(t, q.Run)
	assert.Equal(t, 3, q.Counts.Items)
	assert.ElementsMatch(t, ids, idsOf(q.Items))
	assert.Equal(t, "When was the Eiffel Tower completed?", q.Items[0].Question)
	assert.Equal(t, []annotate.QueueContext{{Text: "The Eiffel Tower was completed in 1889 and is 330 metres tall."}}, q.Items[0].Contexts)
	out := postLabelJSON(t, s, map[string]any{"item": "trace-b", "value": false, "note": "330 is not 301"})
	assert.Equal(t, 1, out.Queue.Counts.Labelled)
	code, export := call(t, http.MethodGet, s.URL+"/v1/queue/export", "")
	require.Equal(t, http.StatusOK, code, export)
	recs, err := dataset.Read("labels.jsonl", strings.NewReader(export))
	require.NoError(t, err)
	require.Len(t, recs, 3)
	for _, r := range recs {
		if r.ID == "trace-b" {
			assert.Equal(t, map[string]any{"faithfulness": false}, r.Human)
			assert.Equal(t, "330 is not 301", r.Sample.Metadata["label_note"])
		}
	}
}

// TestQueuePage serves the page: the queue's data in it as JSON that
// no sample's text can close, a page of its own for a queue that cannot
// be shown (its message escaped), and nothing fetched from elsewhere.
func TestQueuePage(t *testing.T) {
	t.Parallel()
	s, id := queueServer(t, Config{}, 12)
	tests := map[string]struct {
		query    string
		status   int
		contains []string
		absent   []string
	}{
		"a run's queue": {query: "run=" + id + "&order=draw", status: http.StatusOK,
			contains: []string{`<script type="application/json" id="data">`, `"order":"draw"`, `\u003cscript\u003edocument.title=\"pwned\"`},
			absent:   []string{`<script>document.title`, `<img src=x`}},
		"no such run": {query: "run=" + url.QueryEscape(`<script>alert(1)</script>`), status: http.StatusNotFound,
			contains: []string{`no run &#34;&lt;script&gt;alert(1)&lt;/script&gt;&#34;`, `id="error"`},
			absent:   []string{`<script>alert(1)`}},
		"a bad order": {query: "run=" + id + "&order=sideways", status: http.StatusBadRequest,
			contains: []string{`order: want active, worth or draw, got &#34;sideways&#34;`}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+"/queue?"+tc.query, nil)
			require.NoError(t, err)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer func() { _ = resp.Body.Close() }()
			var b strings.Builder
			_, err = io.Copy(&b, resp.Body)
			require.NoError(t, err)
			page := b.String()
			assert.Equal(t, tc.status, resp.StatusCode, page)
			assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
			assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'none'")
			assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'", "no other site frames the page to have keys pressed on it")
			for _, want := range tc.contains {
				assert.Contains(t, page, want)
			}
			for _, bad := range tc.absent {
				assert.NotContains(t, page, bad)
			}
		})
	}
}

// TestQueuePageSignIn: with --token, the page without a session is the
// login form, which sends the browser back to the queue it asked for
// (and nowhere else); with the session, the page.
func TestQueuePageSignIn(t *testing.T) {
	t.Parallel()
	s, id := queueServer(t, Config{Token: "s3cret"}, 12)
	code, page := call(t, http.MethodGet, s.URL+"/queue?run="+id+"&order=draw", "")
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Contains(t, page, `<input type="hidden" name="next" value="/queue?order=draw&amp;run=`+id+`">`)

	jar := &cookieClient{}
	resp := jar.postForm(t, s.URL+"/login", url.Values{"token": {"s3cret"}, "next": {"/queue?run=" + id + "&order=draw&evil=1"}})
	assert.Equal(t, http.StatusSeeOther, resp.code)
	assert.Equal(t, "/queue?order=draw&run="+id, resp.location, "the queue's own parameters only")
	for _, next := range []string{"https://evil.example/queue", "//evil.example/queue", "/v1/runs", "/queue/../v1/runs", `/\evil.example`} {
		r := jar.postForm(t, s.URL+"/login", url.Values{"token": {"s3cret"}, "next": {next}})
		assert.Equal(t, "/", r.location, "next %q goes to the dashboard", next)
	}
	code, page = jar.do(t, http.MethodGet, s.URL+"/queue?run="+id, "")
	assert.Equal(t, http.StatusOK, code, page)
	assert.Contains(t, page, "<title>Assay · annotation queue</title>")
}

// TestQueueExportEscapesHiddenCharacters: the export writes a control
// or bidirectional formatting character of an id, a note or a sample's
// text as its \u escape (encode.Escaped, as judge's jsonl does): the
// same record to a parser, but a terminal the file is printed on shows
// the character instead of obeying it.
func TestQueueExportEscapesHiddenCharacters(t *testing.T) {
	t.Parallel()
	ids := map[int]string{1: "a\u202eliaf", 2: "b\u0085\u2066c", 3: "c\u200fd"}
	dir := t.TempDir()
	cfg := Config{DataDir: dir, Store: filepath.Join(dir, "runs.db")}
	id := queueRunOf(t, dir, cfg.Store, 4, func(i int) string {
		if s, ok := ids[i]; ok {
			return s
		}
		return fmt.Sprintf("q%d", i)
	})
	s := start(t, cfg)
	notes := map[int]string{1: "see \u202egnorw", 2: "\u009b31m red", 3: "plain"}
	for i, item := range ids {
		postLabelJSON(t, s, map[string]any{"run": id, "item": item, "value": true, "note": notes[i]})
	}
	code, export := call(t, http.MethodGet, s.URL+"/v1/queue/export?run="+id, "")
	require.Equal(t, http.StatusOK, code, export)
	lines := strings.Split(strings.TrimSuffix(export, "\n"), "\n")
	require.Len(t, lines, 3) // the fourth, a default, left out
	tests := map[string]struct {
		item, note, escaped string
	}{
		"a right-to-left override": {item: ids[1], note: notes[1], escaped: `"id":"a\u202Eliaf"`},
		"a C1 control, an isolate": {item: ids[2], note: notes[2], escaped: `"id":"b\u0085\u2066c"`},
		"a right-to-left mark":     {item: ids[3], note: notes[3], escaped: `"id":"c\u200Fd"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var line string
			for _, l := range lines {
				if strings.Contains(l, tc.escaped) {
					line = l
				}
			}
			require.NotEmpty(t, line, "no line holds %s:\n%s", tc.escaped, export)
			assert.False(t, strings.ContainsFunc(line, termtext.Hidden), "a hidden character written as it is: %q", line)
			var rec struct {
				ID       string         `json:"id"`
				Metadata map[string]any `json:"metadata"`
				Human    map[string]any `json:"human"`
			}
			require.NoError(t, json.Unmarshal([]byte(line), &rec))
			assert.Equal(t, tc.item, rec.ID)
			assert.Equal(t, tc.note, rec.Metadata["label_note"])
			assert.Equal(t, map[string]any{"faithfulness": true}, rec.Human)
		})
	}
}
