// Package bgtest runs a test's background loop (a worker, a server) until
// the test stops it.
package bgtest

import (
	"context"
	"sync"
	"testing"
)

// Go runs run in a goroutine with a context that stop cancels; stop then
// waits for run to return and gives its error (the same error every
// call). stop is also called when tb ends, so nothing outlives the test.
func Go(tb testing.TB, run func(ctx context.Context) error) (stop func() error) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			err = <-done
		})
		return err
	}
	tb.Cleanup(func() { _ = stop() })
	return stop
}
