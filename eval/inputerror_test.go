package eval_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/assaylabs/assay/eval"
)

func TestAsInputError(t *testing.T) {
	t.Parallel()
	cause := errors.New("want a number")
	own := &eval.InputError{File: "a.json", Line: 3, Field: "score", Msg: "must be finite"}
	tests := map[string]struct {
		flag string
		err  error
		want string // "" is a nil error
	}{
		"no error is no error":                   {flag: "--gate", err: nil},
		"another error names the flag":           {flag: "--gate", err: cause, want: "--gate: want a number"},
		"an input error keeps its file and line": {flag: "--gate", err: own, want: "a.json:3: score: must be finite"},
		"no flag leaves the message alone":       {flag: "", err: cause, want: "want a number"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := eval.AsInputError(tc.flag, tc.err)
			if tc.want == "" {
				assert.NoError(t, got)
				return
			}
			var ie *eval.InputError
			assert.ErrorAs(t, got, &ie)
			assert.EqualError(t, got, tc.want)
		})
	}
}
