package main

import (
	"errors"

	"github.com/assaylabs/assay/bench"
	"github.com/assaylabs/assay/llm"
)

// runErr is the exit for an error of a run over d's records, other than
// an interruption: refused credentials (llm.ErrAuth) are exit 3, as a bad
// key is the model server's refusal, not the input's fault; any other
// error is an input error naming where (bench.Dataset.Err).
func runErr(d *bench.Dataset, err error) error {
	if errors.Is(err, llm.ErrAuth) {
		return &exitError{code: exitInfra, err: err}
	}
	return inputErr(d.Err(err))
}
