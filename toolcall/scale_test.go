package toolcall

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// TestNumbersCompareByValueAtAnyExponent: a number compares by value
// however far its exponent, past the bounds of math/big's parser too.
func TestNumbersCompareByValueAtAnyExponent(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		a, b  string
		equal bool
	}{
		"a huge exponent, two ways":       {`1e1000001`, `10e1000000`, true},
		"a tiny exponent, two ways":       {`1e-1000001`, `0.1e-1000000`, true},
		"huge exponents one apart":        {`1e1000001`, `1e1000000`, false},
		"an exponent past int64":          {`1e99999999999999999999`, `0.1e100000000000000000000`, true},
		"an exponent past int64, one off": {`1e99999999999999999999`, `1e100000000000000000000`, false},
		"zeros":                           {`-0.0e5`, `0`, true},
		"trailing zeros":                  {`1.500`, `15e-1`, true},
		"leading zeros of a fraction":     {`0.0012`, `1.2E-3`, true},
		"a plus exponent":                 {`2E+2`, `200`, true},
		"signs":                           {`-3`, `3`, false},
		"digits after the point":          {`1.25`, `1.2`, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, err := Arguments(`{"n":` + tc.a + `}`)
			require.NoError(t, err)
			b, err := Arguments(`{"n":` + tc.b + `}`)
			require.NoError(t, err)
			assert.Equal(t, tc.equal, Equal(a, b))
			assert.Equal(t, tc.equal, Equal(b, a), "symmetric")
			assert.Equal(t, tc.equal, Diff(a, b) == "", "Diff agrees")
			assert.Equal(t, tc.equal, argsKey(a) == argsKey(b), "the key agrees")
		})
	}
}

// TestComparingCallsAllocatesLinearly: scoring a long trajectory
// compares each pair of calls without building a message for each (a
// key per call; Diff only for the issues named), so twice the calls
// allocate about twice as much, not four times.
func TestComparingCallsAllocatesLinearly(t *testing.T) {
	sample := func(n int, ordered bool) eval.Sample {
		msgs := []eval.Message{{Role: eval.RoleUser, Content: "q"}}
		var exp []eval.ExpectedToolCall
		for i := range n {
			args := fmt.Sprintf(`{"q":"item %d","page":%d,"f":{"a":[1,2,3],"b":"x"}}`, i, i%7)
			msgs = append(msgs, eval.Message{Role: eval.RoleAssistant, ToolCalls: []eval.ToolCall{
				{ID: fmt.Sprint(i), Function: eval.ToolFunction{Name: "search", Arguments: args}}}})
			exp = append(exp, eval.ExpectedToolCall{Name: "search",
				Arguments: json.RawMessage(fmt.Sprintf(`{"q":"item %d","page":%d,"f":{"a":[1,2,3],"b":"y"}}`, n-1-i, i%7))})
		}
		return eval.Sample{Messages: msgs, ExpectedToolCalls: exp, Ordered: ordered}
	}
	tests := map[string]struct {
		scorer  eval.Scorer
		ordered bool
	}{
		"accuracy":            {Accuracy{}, false},
		"accuracy, ordered":   {Accuracy{}, true},
		"f1":                  {F1{}, false},
		"trajectory, ordered": {Trajectory{}, true},
		"loops":               {Loops{}, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			allocs := func(n int) float64 {
				s := sample(n, tc.ordered)
				return testing.AllocsPerRun(1, func() {
					_, err := tc.scorer.Score(context.Background(), s)
					require.NoError(t, err)
				})
			}
			small, large := allocs(100), allocs(200)
			// Linear work doubles; work per pair of calls quadruples.
			assert.Less(t, large/small, 2.5, "%v allocations for 100 calls, %v for 200", small, large)
		})
	}
}

// TestInOrderLooksAFewCallsPastEachStart: matching in order a trajectory
// of parallel calls, each message's calls try from each start a few
// expected calls for each of them (those that can add to their worth),
// not every expected call to the end of the list.
func TestInOrderLooksAFewCallsPastEachStart(t *testing.T) {
	t.Parallel()
	const n = 200
	calls := func(parallel int) (exp, act []call) {
		var msgs []eval.Message
		var want []eval.ExpectedToolCall
		for i := 0; i < n; i += parallel {
			m := eval.Message{Role: eval.RoleAssistant}
			for j := i; j < i+parallel; j++ {
				m.ToolCalls = append(m.ToolCalls, eval.ToolCall{ID: fmt.Sprint(j),
					Function: eval.ToolFunction{Name: "search", Arguments: fmt.Sprintf(`{"q":"item %d","page":%d}`, j, j%7)}})
			}
			msgs = append(msgs, m)
		}
		for i := range n {
			want = append(want, eval.ExpectedToolCall{Name: "search",
				Arguments: json.RawMessage(fmt.Sprintf(`{"q":"item %d","page":%d}`, n-1-i, i%7))})
		}
		exp, err := expected(want)
		require.NoError(t, err)
		return exp, made(msgs)
	}
	tests := map[string]struct {
		parallel, minLevel int
	}{
		"pairs, fits by name counted": {2, nameFit},
		"pairs, full fits only":       {2, fullFit},
		"fours, fits by name counted": {4, nameFit},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			exp, act := calls(tc.parallel)
			_, steps := inOrderSteps(exp, act, tc.minLevel)
			// Each message, from each of the n+1 starts, tries at most
			// three expected calls a call of its own (by tool, by class,
			// accepting any); trying every end was n³/(4·parallel).
			groups := n / tc.parallel
			assert.LessOrEqual(t, steps, 3*tc.parallel*groups*(n+1))
			assert.Positive(t, steps)
		})
	}
}
