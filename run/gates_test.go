package run_test

import (
	"math"
	"testing"

	"github.com/assaylabs/assay/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseGate(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		expr string
		want run.Gate
		err  string
	}{
		"seed 002's mean":          {expr: "context_quality.mean>=0.65", want: run.Gate{Expr: "context_quality.mean>=0.65", Metric: "context_quality", Stat: "mean", Op: ">=", Want: 0.65}},
		"spaces allowed":           {expr: " faithfulness.p10 >  0.5 ", want: run.Gate{Expr: "faithfulness.p10 >  0.5", Metric: "faithfulness", Stat: "p10", Op: ">", Want: 0.5}},
		"less or equal":            {expr: "faithfulness.defaulted<=3", want: run.Gate{Expr: "faithfulness.defaulted<=3", Metric: "faithfulness", Stat: "defaulted", Op: "<=", Want: 3}},
		"strictly less":            {expr: "x.defaulted_rate<0.05", want: run.Gate{Expr: "x.defaulted_rate<0.05", Metric: "x", Stat: "defaulted_rate", Op: "<", Want: 0.05}},
		"no operator":              {expr: "faithfulness.mean 0.8", err: `no comparison: want METRIC.STAT OP NUMBER with OP one of >= <= > <`},
		"equality is not an op":    {expr: "faithfulness.mean=0.8", err: "no comparison"},
		"no statistic":             {expr: "faithfulness>=0.8", err: `"faithfulness" is not METRIC.STAT: want a metric, a dot and one of mean, min, max, median, p10, pass_rate, defaulted, defaulted_rate`},
		"unknown statistic":        {expr: "faithfulness.avg>=0.8", err: `statistic "avg": want one of mean, min, max`},
		"no metric":                {expr: ".mean>=0.8", err: `metric "": want a metric name`},
		"not a number":             {expr: "faithfulness.mean>=high", err: `"high" after >= is not a number: want a finite number`},
		"two operators":            {expr: "faithfulness.mean>=<0.8", err: `"<0.8" after >= is not a number`},
		"infinite is not wanted":   {expr: "faithfulness.mean<Inf", err: `"Inf" after < is not a number`},
		"a percentage for a mean":  {expr: "faithfulness.mean>=65", err: `gate "faithfulness.mean>=65": mean is a value from 0 to 1 (0.65 for 65%); got 65`},
		"points for a minimum":     {expr: "faithfulness.min>=4.5", err: `gate "faithfulness.min>=4.5": min is a value from 0 to 1 (0.65 for 65%); got 4.5`},
		"a bound always held":      {expr: "faithfulness.max<=5", err: `gate "faithfulness.max<=5": max is a value from 0 to 1 (0.65 for 65%); got 5`},
		"a negative pass rate":     {expr: "x.pass_rate>-0.1", err: `gate "x.pass_rate>-0.1": pass_rate is a value from 0 to 1 (0.65 for 65%); got -0.1`},
		"a percentage of defaults": {expr: "x.defaulted_rate<5", err: `gate "x.defaulted_rate<5": defaulted_rate is a value from 0 to 1 (0.65 for 65%); got 5`},
		"a negative count":         {expr: "x.defaulted<=-1", err: `gate "x.defaulted<=-1": defaulted is a count, 0 or more; got -1`},
		"a negative weak count":    {expr: "x.weak_passes<-2", err: `gate "x.weak_passes<-2": weak_passes is a count, 0 or more; got -2`},
		"the ends of a value":      {expr: "x.mean>=1", want: run.Gate{Expr: "x.mean>=1", Metric: "x", Stat: "mean", Op: ">=", Want: 1}},
		"a count above one":        {expr: "x.weak_passes<=12", want: run.Gate{Expr: "x.weak_passes<=12", Metric: "x", Stat: "weak_passes", Op: "<=", Want: 12}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g, err := run.ParseGate(tc.expr)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, g)
		})
	}
}

func TestCheckGates(t *testing.T) {
	t.Parallel()
	nan := run.Num(math.NaN())
	s := run.Summary{Metrics: []run.MetricStats{
		{Metric: "context_quality", N: 10, Scored: 9, Defaulted: 1, DefaultedRate: 0.1, Mean: 0.7, Min: 0.25, Max: 0.9, Median: 0.72, P10: 0.3, PassRate: 0.8},
		{Metric: "faithfulness", N: 2, Scored: 0, Defaulted: 2, DefaultedRate: 1, Mean: nan, Min: nan, Max: nan, Median: nan, P10: nan, PassRate: nan},
	}}
	tests := map[string]struct {
		gate   string
		passed bool
		got    float64 // NaN for undefined
		reason string
	}{
		"seed mean passes":             {gate: "context_quality.mean>=0.65", passed: true, got: 0.7},
		"seed floor fails":             {gate: "context_quality.min>=0.3", got: 0.25, reason: "context_quality.min is 0.25, want >= 0.3"},
		"equal passes >=":              {gate: "context_quality.median>=0.72", passed: true, got: 0.72},
		"equal fails >":                {gate: "context_quality.median>0.72", got: 0.72, reason: "want > 0.72"},
		"max <= passes":                {gate: "context_quality.max<=0.9", passed: true, got: 0.9},
		"p10":                          {gate: "context_quality.p10>0.2", passed: true, got: 0.3},
		"pass rate":                    {gate: "context_quality.pass_rate>=0.9", got: 0.8, reason: "pass_rate is 0.8"},
		"defaulted count":              {gate: "context_quality.defaulted<1", got: 1, reason: "defaulted is 1, want < 1"},
		"defaulted rate":               {gate: "context_quality.defaulted_rate<=0.1", passed: true, got: 0.1},
		"mean of nothing scored":       {gate: "faithfulness.mean>=0", got: math.NaN(), reason: "faithfulness.mean is undefined: 0 of 2 results scored (2 defaulted, 0 skipped)"},
		"defaults counted nonetheless": {gate: "faithfulness.defaulted<=1", got: 2, reason: "defaulted is 2"},
		"metric the run lacks":         {gate: "answer_relevancy.mean>=0.5", got: math.NaN(), reason: "the run has no metric answer_relevancy (it has context_quality, faithfulness)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g, err := run.ParseGate(tc.gate)
			require.NoError(t, err)
			rs := run.CheckGates([]run.Gate{g}, s)
			require.Len(t, rs, 1)
			r := rs[0]
			assert.Equal(t, tc.passed, r.Passed)
			assert.Equal(t, tc.gate, r.Gate)
			if math.IsNaN(tc.got) {
				assert.True(t, math.IsNaN(float64(r.Got)), "got %v", r.Got)
			} else {
				assert.InDelta(t, tc.got, float64(r.Got), 1e-12)
			}
			if tc.reason == "" {
				assert.Empty(t, r.Reason)
			} else {
				assert.Contains(t, r.Reason, tc.reason)
			}
		})
	}
}

func TestCheckGatesKeepsOrder(t *testing.T) {
	t.Parallel()
	var gates []run.Gate
	for _, e := range []string{"m.mean>=0.5", "m.min>=0.9", "m.max<=1"} {
		g, err := run.ParseGate(e)
		require.NoError(t, err)
		gates = append(gates, g)
	}
	rs := run.CheckGates(gates, run.Summary{Metrics: []run.MetricStats{{Metric: "m", N: 1, Scored: 1, Mean: 0.6, Min: 0.6, Max: 0.6}}})
	require.Len(t, rs, 3)
	assert.Equal(t, []bool{true, false, true}, []bool{rs[0].Passed, rs[1].Passed, rs[2].Passed})
	assert.Equal(t, "m.min>=0.9", rs[1].Gate)
}
