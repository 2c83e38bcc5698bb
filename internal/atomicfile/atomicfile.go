// Package atomicfile replaces a file whole or not at all: the new content
// is written to a temporary file beside the target, synced to disk, given
// its mode and renamed over the target, so a reader (or a run killed half
// way) sees the old file or the new one, never half of one. Every file
// Assay writes whole (a run's summary.json and report.html, a research
// run's card.json) goes through it. [WriteView] leaves out the sync, for
// a file drawn from others that are synced (report.html, a JUnit file),
// and [WriteJSONView] for one its caller syncs later (a run's
// config.json, synced with its results.jsonl).
package atomicfile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces the file at path with what write writes, buffered, and
// gives it mode perm exactly (the process umask is not applied, so 0o644
// is 0o644 whatever the umask). The temporary file is in path's directory,
// a hidden name ending in ".tmp"; it is removed when anything fails, and
// the target is then left as it was. A link at path is replaced by the
// file, not followed. A path that is a device, a named pipe or a socket
// (/dev/null, /dev/stdout, a FIFO a reader waits on) is not a file to
// replace: write's output is written into it, as a shell redirection
// would, and it stays what it was.
//
// Every error is an *fs.PathError naming path, its Op the step that failed
// ("create", "write", "sync", "rename"...) and its Err the cause: write's
// own error unwraps to what write returned.
func Write(path string, perm fs.FileMode, write func(io.Writer) error) error {
	return replace(path, perm, write, true)
}

// WriteView is Write without syncing the file to disk: a reader and a
// process killed at any point still see the old file or the new one
// whole, but a crash of the machine soon after may leave the file empty
// or missing. It is for a view drawn from files that are synced and can
// be drawn again from them (report.html and the JUnit file, from
// results.jsonl and summary.json, by bench --resume), where a sync would
// only make the process wait for the disk.
func WriteView(path string, perm fs.FileMode, write func(io.Writer) error) error {
	return replace(path, perm, write, false)
}

// replace is Write, syncing the file before its rename when sync is set.
func replace(path string, perm fs.FileMode, write func(io.Writer) error, sync bool) (err error) {
	fail := func(op string, cause error) error {
		var pe *fs.PathError
		var le *os.LinkError
		switch {
		case errors.As(cause, &pe) && pe.Path != path:
			cause = pe.Err // names the temporary file, not the one asked for
		case errors.As(cause, &le):
			cause = le.Err
		}
		return &fs.PathError{Op: op, Path: path, Err: cause}
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		return stream(path, write, fail)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fail("create", err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close() // already failed; a second close error adds nothing
			_ = os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	if err := bw.Flush(); err != nil {
		return fail("write", err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail("chmod", err)
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			return fail("sync", err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fail("close", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail("rename", err)
	}
	return nil
}

// stream writes into the device, pipe or socket at path what write
// writes: there is nothing to replace, and no temporary file to rename
// over it (a rename would put a plain file in the place of /dev/null).
func stream(path string, write func(io.Writer) error, fail func(string, error) error) (err error) {
	fh, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fail("open", err)
	}
	defer func() {
		if cerr := fh.Close(); cerr != nil && err == nil {
			err = fail("close", cerr)
		}
	}()
	bw := bufio.NewWriter(fh)
	if err := write(bw); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	if err := bw.Flush(); err != nil {
		return fail("write", err)
	}
	return nil
}

// WriteFile is Write of data: os.WriteFile, whole or not at all.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return Write(path, perm, writeBytes(data))
}

// writeBytes is a write function that writes data.
func writeBytes(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// WriteJSON writes v as indented JSON (and a newline) to path, whole or
// not at all, so a reader never sees half a file.
func WriteJSON(path string, v any) error { return writeJSON(path, v, true) }

// WriteJSONView is WriteJSON without syncing the file to disk (see
// WriteView): for a file its caller syncs later, or can write again.
func WriteJSONView(path string, v any) error { return writeJSON(path, v, false) }

func writeJSON(path string, v any, sync bool) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return replace(path, 0o644, writeBytes(append(data, '\n')), sync)
}
