package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/atomicfile"
)

// Files of a run folder.
const (
	FileReport  = "report.md"
	FileCard    = "card.json"
	FileSources = "sources.json"
	FileTrace   = "trace.jsonl"
)

// RunFolder writes a research run into a folder as the run goes, so a run
// that is killed leaves what it had done:
//
//   - trace.jsonl gets one line per finished stage, appended as the stage
//     ends (each line is written whole, with one write, and unbuffered);
//   - report.md, card.json and sources.json are rewritten at the start, at
//     the end of each iteration and at the end of the run, each written to
//     a temporary file in the folder and renamed into place, so a reader
//     never sees half a file.
//
// Give it to Research.Folder. A write that fails does not stop the run: the
// first error is kept and returned by Err and Close. A RunFolder is safe for
// concurrent use.
type RunFolder struct {
	dir string

	mu    sync.Mutex
	trace *os.File
	err   error
}

// OpenRunFolder creates dir if needed and starts an empty trace.jsonl in it.
// A folder that cannot be written, or one of whose file names is taken by
// something other than a regular file, is an error before anything is
// written, so a run is not wasted on it.
func OpenRunFolder(dir string) (*RunFolder, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, name := range []string{FileReport, FileCard, FileSources, FileTrace} {
		p := filepath.Join(dir, name)
		if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: exists and is not a regular file; remove it or write the run to another folder", p)
		}
	}
	probe, err := os.CreateTemp(dir, ".assay-probe-*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the probe's random name would only confuse
		}
		return nil, fmt.Errorf("%s: not writable: %w", dir, err)
	}
	if err := errors.Join(probe.Close(), os.Remove(probe.Name())); err != nil {
		return nil, err
	}
	trace, err := os.OpenFile(filepath.Join(dir, FileTrace), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return &RunFolder{dir: dir, trace: trace}, nil
}

// Dir is the folder.
func (f *RunFolder) Dir() string { return f.dir }

// Event appends a finished stage to trace.jsonl.
func (f *RunFolder) Event(e Event) {
	line, err := jsonLine(e)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil && f.trace != nil {
		_, err = f.trace.Write(line)
	}
	f.keep(err, FileTrace)
}

// Write replaces report.md, card.json and sources.json with the run's
// state. Each file is replaced whole or not at all.
func (f *RunFolder) Write(r *Run) {
	card, err := indentJSON(NewRunCard(r, false))
	if err != nil {
		f.fail(err, FileCard)
		return
	}
	sources, err := indentJSON(r.Sources)
	if err != nil {
		f.fail(err, FileSources)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, file := range []struct {
		name string
		data []byte
	}{{FileReport, []byte(r.Report)}, {FileCard, card}, {FileSources, sources}} {
		f.keep(atomicfile.WriteFile(filepath.Join(f.dir, file.name), file.data, 0o644), file.name)
	}
}

// Err is the first write that failed, or nil.
func (f *RunFolder) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// Close closes trace.jsonl and returns the first write that failed.
func (f *RunFolder) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.trace != nil {
		f.keep(f.trace.Close(), FileTrace)
		f.trace = nil
	}
	return f.err
}

func (f *RunFolder) fail(err error, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keep(err, name)
}

// keep records the first error; f.mu is held.
func (f *RunFolder) keep(err error, name string) {
	if err != nil && f.err == nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		f.err = fmt.Errorf("%s: %w", filepath.Join(f.dir, name), err)
	}
}

// RunCard is the JSON form of a run: its record, the final card and,
// when asked for, the report. It is card.json, and the run as `assay
// research --format json` prints it.
type RunCard struct {
	*Run
	Report string     `json:"report,omitempty" yaml:"report,omitempty"`
	Card   *eval.Card `json:"final_card,omitempty" yaml:"final_card,omitempty"`
}

// NewRunCard is the run's JSON form, with the report when withReport.
func NewRunCard(r *Run, withReport bool) RunCard {
	v := RunCard{Run: r}
	if withReport {
		v.Report = r.Report
	}
	if c, ok := r.finalCard(); ok {
		v.Card = &c
	}
	return v
}

// jsonLine is v as one line of JSON Lines, with <, > and & as they are.
func jsonLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func indentJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
