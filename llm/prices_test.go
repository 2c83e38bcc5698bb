package llm

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
)

// TestParsePricesRefusesWhatItCannotPrice: a price file is read strictly,
// since a typo read leniently prices every call at $0 and turns the
// budget off. Each mistake is an *eval.InputError naming the file, the
// line and the key.
func TestParsePricesRefusesWhatItCannotPrice(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		yaml  string
		line  int
		field string
		msg   string
	}{
		"input for in": {
			yaml: "judge-model:\n  input: 5\n  out: 10\n", line: 2, field: "judge-model.input",
			msg: `unknown key "input": a price has in and out (US dollars per million tokens), and may have batch (the share of it batch calls pay)`,
		},
		"output for out, in flow style": {
			yaml: "gpt-4o: {in: 1, out: 2}\njudge-model: {in: 5, output: 10}\n", line: 2, field: "judge-model.output",
			msg: `unknown key "output": a price has in and out (US dollars per million tokens), and may have batch (the share of it batch calls pay)`,
		},
		"no out": {
			yaml: "a: {in: 1, out: 1}\nembedder:\n  in: 0.02\n", line: 2, field: "embedder.out",
			msg: "missing: give both in and out, in US dollars per million tokens (0 for none, as out for an embedding model)",
		},
		"no in": {
			yaml: "judge-model: {out: 1}\n", line: 1, field: "judge-model.in",
			msg: "missing: give both in and out, in US dollars per million tokens (0 for none, as out for an embedding model)",
		},
		"an empty entry": {
			yaml: "judge-model: {}\n", line: 1, field: "judge-model.in",
			msg: "missing: give both in and out, in US dollars per million tokens (0 for none, as out for an embedding model)",
		},
		"a negative price": {
			yaml: "judge-model:\n  in: 1\n  out: -2\n", line: 3, field: "judge-model.out", msg: "must not be negative, got -2",
		},
		"a price in words": {
			yaml: "judge-model:\n  in: cheap\n  out: 2\n", line: 2, field: "judge-model.in",
			msg: `want a price in US dollars per million tokens, a number, got "cheap"`,
		},
		"a quoted price": {
			yaml: "judge-model: {in: \"1\", out: 2}\n", line: 1, field: "judge-model.in",
			msg: `want a price in US dollars per million tokens, a number, got "1"`,
		},
		"a price that is a list": {
			yaml: "judge-model: {in: [1], out: 2}\n", line: 1, field: "judge-model.in",
			msg: `want a price in US dollars per million tokens, a number, got "a list"`,
		},
		"an infinite price": {
			yaml: "judge-model: {in: .inf, out: 2}\n", line: 1, field: "judge-model.in", msg: "want a finite price, got .inf",
		},
		// 1e306 per million tokens would price a 300-token call at +Inf,
		// which no summary can write.
		"a price no call could be counted at": {
			yaml: "judge-model: {in: 1, out: 1e306}\n", line: 1, field: "judge-model.out",
			msg: "want at most 1000000 US dollars per million tokens (a dollar a token), got 1e306",
		},
		"a model given twice": {
			yaml: "judge-model: {in: 1, out: 2}\ngpt-4o: {in: 1, out: 2}\njudge-model: {in: 3, out: 4}\n", line: 3, field: "judge-model",
			msg: "given twice (first on line 1)",
		},
		"a price given twice": {
			yaml: "judge-model:\n  in: 1\n  out: 2\n  in: 3\n", line: 4, field: "judge-model.in", msg: "given twice (first on line 2)",
		},
		"a model with a list of prices": {
			yaml: "gpt-4o: [1, 2]\n", line: 1, field: "gpt-4o", msg: "want {in: PRICE, out: PRICE}, in US dollars per million tokens",
		},
		"a model with one number": {
			yaml: "gpt-4o: 2.5\n", line: 1, field: "gpt-4o", msg: "want {in: PRICE, out: PRICE}, in US dollars per million tokens",
		},
		"a batch share of nothing": {
			yaml: "judge-model: {in: 1, out: 2, batch: 0}\n", line: 1, field: "judge-model.batch",
			msg: "want the share of the price a batch call pays, above 0 and at most 1 (0.5 is half), got 0",
		},
		"a batch share over the price": {
			yaml: "judge-model: {in: 1, out: 2, batch: 1.5}\n", line: 1, field: "judge-model.batch",
			msg: "want the share of the price a batch call pays, above 0 and at most 1 (0.5 is half), got 1.5",
		},
		"a list of models": {
			yaml: "- gpt-4o\n", line: 1, msg: "want a map of model to {in: PRICE, out: PRICE}, in US dollars per million tokens",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, err := ParsePrices("prices.yaml", []byte(tc.yaml))
			assert.Nil(t, p)
			ie, ok := errors.AsType[*eval.InputError](err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, "prices.yaml", ie.File)
			assert.Equal(t, tc.line, ie.Line)
			assert.Equal(t, tc.field, ie.Field)
			assert.Equal(t, tc.msg, ie.Msg)
		})
	}
}

// TestParsePricesReadsAWellFormedFile: ints and floats, block and flow
// style, an anchor, zero prices for a free model, and comments.
func TestParsePricesReadsAWellFormedFile(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		yaml string
		want Prices
	}{
		"block and flow": {
			yaml: "# per million tokens\njudge-model:\n  in: 1\n  out: 2.5\nqwen2.5:7b: {in: 0, out: 0}\n",
			want: Prices{"judge-model": {In: 1, Out: 2.5}, "qwen2.5:7b": {}},
		},
		"an anchor shared": {
			yaml: "a: &p {in: 0.5, out: 1}\nb: *p\n",
			want: Prices{"a": {In: 0.5, Out: 1}, "b": {In: 0.5, Out: 1}},
		},
		"an empty file":      {yaml: "", want: Prices{}},
		"comments and blank": {yaml: "# nothing priced yet\n\n", want: Prices{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, err := ParsePrices("prices.yaml", []byte(tc.yaml))
			require.NoError(t, err)
			assert.Equal(t, tc.want, p)
		})
	}
}

// TestBatchCostIsTheModelsShareOfItsPrice: half by default, the share
// the price file gives otherwise.
func TestBatchCostIsTheModelsShareOfItsPrice(t *testing.T) {
	t.Parallel()
	p, err := ParsePrices("prices.yaml", []byte("judge-model: {in: 2, out: 4}\ncheap-batch: {in: 2, out: 4, batch: 0.25}\n"))
	require.NoError(t, err)
	assert.Equal(t, Price{In: 2, Out: 4, Batch: 0.25}, p["cheap-batch"])
	for name, tc := range map[string]struct {
		model string
		want  float64
	}{
		"half by default":   {"openai:judge-model", (1e6*2 + 1e6*4) / 1e6 / 2},
		"the file's share":  {"openai:cheap-batch", (1e6*2 + 1e6*4) / 1e6 / 4},
		"no price, no cost": {"openai:unknown", 0},
		"a built-in model":  {"gpt-4o-mini", (1e6*0.15 + 1e6*0.60) / 1e6 * DefaultBatchShare},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			prices := p
			if tc.model == "gpt-4o-mini" {
				prices = DefaultPrices()
			}
			assert.InDelta(t, tc.want, prices.BatchCost(tc.model, 1e6, 1e6), 1e-12)
		})
	}
}

// TestLoadPricesOverTheDefaults: the file's entries replace or add to the
// built-in table; its errors name the path.
func TestLoadPricesOverTheDefaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	require.NoError(t, os.WriteFile(good, []byte("gpt-4o: {in: 1, out: 2}\njudge-model: {in: 3, out: 4}\n"), 0o600))
	p, err := LoadPrices(good)
	require.NoError(t, err)
	assert.Equal(t, Price{In: 1, Out: 2}, p["gpt-4o"])
	assert.Equal(t, Price{In: 3, Out: 4}, p["judge-model"])
	assert.Equal(t, DefaultPrices()["gpt-4o-mini"], p["gpt-4o-mini"])

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("judge-model:\n  input: 5\n  out: 10\n"), 0o600))
	_, err = LoadPrices(bad)
	assert.EqualError(t, err, bad+`:2:3: judge-model.input: unknown key "input": a price has in and out (US dollars per million tokens), and may have batch (the share of it batch calls pay)`)
}
