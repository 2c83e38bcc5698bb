package judges_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/llmtest"
	"github.com/assaylabs/assay/judges"
	"github.com/assaylabs/assay/llm"
	"github.com/assaylabs/assay/llm/openai"
)

// thaiSample is a question and answer in Thai, with one source.
var thaiSample = eval.Sample{
	Query:   "กรุงเทพมหานครได้รับสถานะเป็นเมืองหลวงเมื่อใด",
	Answer:  "กรุงเทพมหานครเป็นเมืองหลวงตั้งแต่ปี พ.ศ. 2325 เมื่อรัชกาลที่ 1 ย้ายราชธานีมาจากกรุงธนบุรี",
	Sources: []eval.Source{{ID: "s1", Text: "พ.ศ. 2325 พระบาทสมเด็จพระพุทธยอดฟ้าจุฬาโลกมหาราชทรงย้ายราชธานีมาฝั่งตะวันออกของแม่น้ำเจ้าพระยา"}},
}

// TestRepliesOnAnotherScaleAreInvalid: a reply on another scale than its
// schema's (0-1 or 0-1000 where 0-100 is asked, 0-100 or 0-1 where a 1-5
// grade is) is an invalid reply like any other: one repair request that
// names the problem, then the neutral default with the reason; never read
// in silence on the schema's scale. A reply on the schema's scale is read
// as it is, an integer written 80.0 included, and a worthless answer rated
// 0 everywhere is a score of 0, not a suspect reply.
func TestRepliesOnAnotherScaleAreInvalid(t *testing.T) {
	t.Parallel()
	const (
		fractions = `{"clarity":0.8,"coverage":0.7,"specificity":0.6,"alignment":0.9,"minimality":0.8,"consistency":1,"issues":[]}`
		ones      = `{"clarity":1,"coverage":1,"specificity":0,"alignment":1,"minimality":1,"consistency":1,"issues":[]}`
		thousands = `{"clarity":800,"coverage":700,"specificity":600,"alignment":900,"minimality":800,"consistency":1000,"issues":[]}`
		hundreds  = `{"clarity":80,"coverage":70,"specificity":60,"alignment":90,"minimality":80,"consistency":100,"issues":["few numbers"]}`
	)
	tests := map[string]struct {
		metric  string
		sample  eval.Sample // default strictSample
		replies []string
		calls   int
		value   float64
		points  float64
		// defaulted matches what the default's error and reason say, ""
		// for a score; the repair request quotes it too.
		defaulted string
	}{
		"reasoning on a 0-1 scale, twice, defaults": {
			metric: judges.MetricReasoning, replies: []string{fractions, fractions}, calls: 2, value: 0.5, points: 50,
			defaulted: `[a-z]+: type: 0\.\d has type "number", want "integer"`,
		},
		"reasoning on a 0-1 scale, then 0-100, is read on 0-100": {
			metric: judges.MetricReasoning, replies: []string{fractions, hundreds}, calls: 2, value: 0.775, points: 77.5,
		},
		"reasoning on a 0-1 scale in integers, twice, defaults": {
			metric: judges.MetricReasoning, sample: thaiSample, replies: []string{ones, ones}, calls: 2, value: 0.5, points: 50,
			defaulted: "every dimension is 0 or 1, as on a 0-1 scale: rate each dimension 0-100",
		},
		"reasoning on a 0-1000 scale, twice, defaults": {
			metric: judges.MetricReasoning, replies: []string{thousands, thousands}, calls: 2, value: 0.5, points: 50,
			defaulted: `[a-z]+: maximum: \d+ is greater than 100`,
		},
		"reasoning with integers written 80.0 is read as 80": {
			metric: judges.MetricReasoning, sample: thaiSample, calls: 1, value: 0.775, points: 77.5,
			replies: []string{`{"clarity":80.0,"coverage":70.0,"specificity":6e1,"alignment":90,"minimality":80,"consistency":100.0,"issues":[]}`},
		},
		"reasoning of 0 everywhere is a score of 0": {
			metric: judges.MetricReasoning, calls: 1, value: 0, points: 0,
			replies: []string{`{"clarity":0,"coverage":0,"specificity":0,"alignment":0,"minimality":0,"consistency":0,"issues":["says nothing"]}`},
		},
		"reasoning rated low but on 0-100 is a score": {
			metric: judges.MetricReasoning, calls: 1, value: 0.028, points: 2.8,
			replies: []string{`{"clarity":1,"coverage":0,"specificity":5,"alignment":1,"minimality":3,"consistency":10,"issues":[]}`},
		},
		"a 1-5 grade on a 0-1 scale, twice, defaults": {
			metric: judges.MetricAnswerRelevancyGrade, replies: []string{`{"grade":0.8,"reason":"good"}`, `{"grade":0.8,"reason":"good"}`},
			calls: 2, value: 0.5, points: 2.5, defaulted: `grade: type: 0\.8 has type "number", want "integer"`,
		},
		"a 1-5 grade on a 0-100 scale, twice, defaults": {
			metric: judges.MetricAnswerRelevancyGrade, sample: thaiSample, replies: []string{`{"grade":85,"reason":"ดี"}`, `{"grade":85,"reason":"ดี"}`},
			calls: 2, value: 0.5, points: 2.5, defaulted: "grade: maximum: 85 is greater than 5",
		},
		"a 1-5 grade of 0, then 2, is read as 2": {
			metric: judges.MetricAnswerRelevancyGrade, replies: []string{`{"grade":0,"reason":"off"}`, `{"grade":2,"reason":"mostly elsewhere"}`},
			calls: 2, value: 0.25, points: 2,
		},
		"a 1-5 grade written 4.0 is 4": {
			metric: judges.MetricAnswerRelevancyGrade, replies: []string{`{"grade":4.0,"reason":"minor gaps"}`}, calls: 1, value: 0.75, points: 4,
		},
		"a source's grade on a 0-10 scale, twice, keeps 3": {
			metric: judges.MetricSourceRelevance, sample: thaiSample, replies: []string{`{"grade":9,"reason":""}`, `{"grade":9,"reason":""}`},
			calls: 2, value: 0.5, points: 3, defaulted: "grade: maximum: 9 is greater than 5",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			replies := make([]llmtest.Reply, len(tc.replies))
			for i, r := range tc.replies {
				replies[i] = llmtest.Reply{Content: r}
			}
			srv := llmtest.New(t, llmtest.Script(replies...),
				llmtest.Default(llmtest.Reply{Status: 500, Body: `{"error":{"message":"no scripted reply left"}}`}))
			b, err := openai.New(openai.Config{BaseURL: srv.URL(), Model: "judge"})
			require.NoError(t, err)
			c := llm.New(llm.Config{Backend: b, Retry: llm.RetryPolicy{MaxRetries: 0, Initial: time.Millisecond, Max: time.Millisecond}})
			j, err := judges.New(tc.metric, c)
			require.NoError(t, err)
			s := tc.sample
			if s.Query == "" {
				s = strictSample
			}

			sc, err := j.Score(t.Context(), s)
			require.NoError(t, err, "a reply on another scale is data, not an error")
			assert.Equal(t, tc.calls, srv.Calls(), "the first ask and at most one repair")
			assert.InDelta(t, tc.value, sc.Value, 1e-9)
			assert.InDelta(t, tc.points, sc.Points, 1e-9)
			assert.False(t, sc.Skipped)
			assert.Equal(t, tc.defaulted != "", sc.Defaulted, "defaulted; err %v", sc.Err)
			if tc.defaulted == "" {
				assert.NoError(t, sc.Err)
				return
			}
			require.ErrorIs(t, sc.Err, llm.ErrInvalidOutput)
			assert.Regexp(t, tc.defaulted, sc.Err.Error())
			if tc.metric == judges.MetricSourceRelevance {
				require.Len(t, sc.Evidence.Sources, 1)
				assert.Regexp(t, tc.defaulted, sc.Evidence.Sources[0].Basis)
			} else {
				assert.Regexp(t, tc.defaulted, sc.Reason)
			}
			repair := srv.Requests()[1].Messages
			assert.Regexp(t, tc.defaulted, repair[len(repair)-1].Content, "the repair request names the problem")
		})
	}
}
