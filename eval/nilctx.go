package eval

import "context"

// CheckContext is the *InputError every entry point that takes a
// context.Context returns for a nil one (nothing is read or judged), in
// place of the panic, or the hang, of the first call that would use it;
// nil for any other context.
func CheckContext(ctx context.Context) error {
	if ctx == nil {
		return &InputError{Field: "ctx", Msg: "nil context: pass context.Background(), or a context of your own, as the first argument"}
	}
	return nil
}
