package bench

import (
	"errors"
	"fmt"

	"github.com/assaylabs/assay/eval"
)

// flagErr is an input error about a setting, named as the command line
// names it.
func flagErr(flag, format string, a ...any) error {
	return &eval.InputError{Field: flag, Msg: fmt.Sprintf(format, a...)}
}

// asInput makes err an input error about flag, unless it is one already.
func asInput(flag string, err error) error {
	var ie *eval.InputError
	if errors.As(err, &ie) {
		return err
	}
	return &eval.InputError{Field: flag, Msg: err.Error(), Err: err}
}
