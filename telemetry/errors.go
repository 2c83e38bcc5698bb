package telemetry

import (
	"errors"
	"log"
	"sync"

	"go.opentelemetry.io/otel"
)

// exportErrors takes the errors the OpenTelemetry SDK reports through its
// global handler (an export a collector refused or could not be sent,
// which the batch processor does not return to anyone) while a Setup is
// on, so that its shutdown names them with the collector; with none on,
// they are logged as the SDK's default handler does.
type exportErrors struct {
	mu   sync.Mutex
	on   bool
	errs []error
}

// maxExportErrors bounds what one setup keeps: a collector down for a
// whole service's life fails every batch.
const maxExportErrors = 3

var (
	sdkErrors        exportErrors
	installSDKErrors sync.Once
)

// Handle is the SDK's otel.ErrorHandler.
func (e *exportErrors) Handle(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.on {
		log.Print(err)
		return
	}
	if len(e.errs) < maxExportErrors {
		e.errs = append(e.errs, err)
	}
}

// start keeps the errors from now on, for one setup.
func (e *exportErrors) start() {
	installSDKErrors.Do(func() { otel.SetErrorHandler(e) })
	e.mu.Lock()
	defer e.mu.Unlock()
	e.on, e.errs = true, nil
}

// stop ends keeping them and returns those kept, joined (nil if none).
func (e *exportErrors) stop() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	err := errors.Join(e.errs...)
	e.on, e.errs = false, nil
	return err
}
