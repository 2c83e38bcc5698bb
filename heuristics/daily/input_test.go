package daily

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

func TestReadTruthRejectsBadInput(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in         string
		line       int
		field, msg string
	}{
		"a value that is text": {
			in:   "{\n  \"values\": {\n    \"atr_pct\": \"3.03\"\n  }\n}",
			line: 3, field: "values.atr_pct", msg: "must be a number, got string",
		},
		"an unknown metric name": {
			in:   "{\n  \"values\": {\"atr_pct\": 3.03,\n    \"atr_pcnt\": 3.1}\n}",
			line: 3, field: "values.atr_pcnt", msg: "unknown metric name",
		},
		"an unknown top-level field": {
			in:   "{\"values\": {\"atr_pct\": 3.03},\n \"valuez\": {}}",
			line: 2, field: "valuez", msg: "unknown field",
		},
		"a percentile out of range": {
			in:   "{\"values\": {\"atr_pct\": 3.03},\n\"percentiles\": {\n\"atr_pct\": 188}}",
			line: 3, field: "percentiles.atr_pct", msg: "between 0 and 100",
		},
		"news that is not a list": {
			in:   "{\"values\": {\"atr_pct\": 3.03},\n\"news\": {\"title\": \"x\"}}",
			line: 2, field: "news", msg: "must be a list",
		},
		"a news item without a title": {
			in:   "{\"values\": {\"atr_pct\": 3.03},\n\"news\": [{\"url\": \"https://x\"}]}",
			line: 2, field: "news", msg: "item 0 (citation [1]) needs a title",
		},
		"no values": {
			in:    "{\"date\": \"2025-11-01\"}",
			field: "values", msg: "missing or empty",
		},
		"broken JSON": {
			in:   "{\"values\": {\"atr_pct\": 3.03,}\n}",
			line: 1, msg: "invalid JSON",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := eval.ReadTruth("truth.json", []byte(tc.in), Default().MetricNames())
			var ie *eval.InputError
			require.True(t, errors.As(err, &ie), "want an InputError, got %v", err)
			assert.Equal(t, "truth.json", ie.File)
			assert.Equal(t, tc.line, ie.Line, err.Error())
			assert.Equal(t, tc.field, ie.Field, err.Error())
			assert.Contains(t, ie.Msg, tc.msg)
		})
	}
}

func TestReadTruthReadsTheFixture(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../fixtures/daily/truth.json")
	require.NoError(t, err)
	tr, err := eval.ReadTruth("truth.json", data, Default().MetricNames())
	require.NoError(t, err)
	assert.Equal(t, "DBS19", tr.Subject["ticker"])
	assert.InDelta(t, 43.79, tr.Values["vwap_pct"], 1e-9)
	assert.InDelta(t, 88, tr.Percentiles["atr_pct"], 1e-9)
	assert.Len(t, tr.News, 3)
}

func TestReadTelemetry(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in               string
		total, cost      float64
		calls, errs      int
		line             int
		field, errSubstr string
	}{
		"RUN.json": {
			in:    `{"timings": {"data_fetch": 1.5, "llm_generation": 2.5}, "llm_calls": 1, "cost_usd": 0.01, "errors": ["timeout"]}`,
			total: 4, cost: 0.01, calls: 1, errs: 1,
		},
		"an assay research card.json": {
			in:    `{"query": "q", "qos": {"total_ns": 3000000000, "stages_ns": {"search": 1000000000}, "llm_calls": 3, "cost_usd": 0.02}, "final_card": {}}`,
			total: 3, cost: 0.02, calls: 3,
		},
		"negative seconds": {
			in:   "{\"timings\": {\n\"data_fetch\": -1}}",
			line: 2, field: "timings.data_fetch", errSubstr: "must be seconds >= 0",
		},
		"calls as text": {
			in:   "{\"total\": 3,\n\"llm_calls\": \"one\"}",
			line: 2, field: "llm_calls", errSubstr: "must be a number",
		},
		"no time at all": {
			in:    `{"llm_calls": 1}`,
			field: "total", errSubstr: "missing",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tel, err := eval.ReadTelemetry("run.json", []byte(tc.in))
			if tc.errSubstr != "" {
				var ie *eval.InputError
				require.True(t, errors.As(err, &ie), "want an InputError, got %v", err)
				assert.Equal(t, tc.line, ie.Line, err.Error())
				assert.Equal(t, tc.field, ie.Field)
				assert.Contains(t, ie.Msg, tc.errSubstr)
				return
			}
			require.NoError(t, err)
			assert.InDelta(t, tc.total, tel.TotalS(), 1e-9)
			assert.InDelta(t, tc.cost, tel.CostUSD, 1e-9)
			assert.Equal(t, tc.calls, tel.LLMCalls)
			assert.Len(t, tel.Errors, tc.errs)
		})
	}
}

func TestParseProfileNamesLineAndField(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		yaml, field, msg string
		line             int
	}{
		"a bad unit": {
			yaml:  "name: x\nkind: daily\nmetrics:\n  - name: a\n    unit: kg\n    names: {en: [a]}\n",
			field: "metrics[0].unit", msg: `must be "%", "" or "any"`, line: 5,
		},
		"a second document": {
			yaml: "name: x\nkind: daily\nmetrics:\n  - name: a\n    names: {en: [a]}\n---\nname: y\n",
			msg:  "a second YAML document (after ---)", line: 6,
		},
		"a band of an unknown metric": {
			yaml:  "name: x\nkind: daily\nmetrics:\n  - name: a\n    names: {en: [a]}\nbands:\n  - metric: b\n",
			field: "bands[0].metric", msg: `names "b"`, line: 7,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseProfile("mine.yaml", []byte(tc.yaml))
			var ie *eval.InputError
			require.True(t, errors.As(err, &ie), "want an InputError, got %v", err)
			assert.Equal(t, tc.field, ie.Field)
			assert.Equal(t, tc.line, ie.Line)
			assert.Contains(t, ie.Msg, tc.msg)
		})
	}
}
