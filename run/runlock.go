package run

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/gofrs/flock"

	"github.com/assaylabs/assay/dataset"
	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/atomicfile"
)

// FileLock is the lock file of a run folder held by the process writing
// it; FileBad holds the lines of results.jsonl a resume set aside.
const (
	FileLock = ".lock"
	FileBad  = "results.bad.jsonl"
)

// Files are the files of the run folder at dir that a run writes and
// reads again (its config, results, summary, report, lock, the lines a
// resume set aside and the copy of standard input): an output of any
// command that named one of them would replace part of the run.
func Files(dir string) []string {
	var out []string
	for _, name := range []string{FileConfig, FileResults, FileSummary, FileReport, FileLock, FileBad, dataset.SpoolName} {
		out = append(out, filepath.Join(dir, name))
	}
	return out
}

// LockedError is the error for a run folder another process is writing
// (a second --resume of one run, say): its holder as the lock file says.
type LockedError struct {
	Dir, Holder string
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("run folder %s is being written by another process (%s): wait for it to end, or stop it, then resume", e.Dir, e.Holder)
}

// lockRun takes the run folder's lock for this process, or says who holds
// it. The lock is the operating system's (flock), so a process killed in
// any way releases it. A lock file that is not a plain file of its own (a
// symbolic link a folder brought, to a file of the user's that writing
// the holder would replace) is refused as bad input, and never written.
func lockRun(dir string) (*flock.Flock, error) {
	path := filepath.Join(dir, FileLock)
	if err := plainOrAbsent(path); err != nil {
		return nil, err
	}
	l := flock.New(path)
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("run folder %s: lock: %w", dir, err)
	}
	if !ok {
		holder := "unknown"
		if b, err := os.ReadFile(path); err == nil && len(bytes.TrimSpace(b)) > 0 {
			holder = shownHolder(string(bytes.TrimSpace(b)))
		}
		return nil, &eval.InputError{Msg: (&LockedError{Dir: dir, Holder: holder}).Error(), Err: &LockedError{Dir: dir, Holder: holder}}
	}
	held, err := l.Stat()
	if err == nil {
		var st os.FileInfo
		if st, err = os.Lstat(path); err == nil && !os.SameFile(held, st) {
			err = notPlain(path, st.Mode()) // replaced by a link while it was opened
		}
	}
	if err != nil {
		_ = l.Unlock()
		return nil, err
	}
	// Who holds it, for the message a second writer gets: the lock file
	// itself, written in place (its lock is on the open file), and only
	// when the file opened is the one locked.
	if f, err := os.OpenFile(path, os.O_WRONLY, 0o644); err == nil {
		if st, err := f.Stat(); err == nil && os.SameFile(held, st) && f.Truncate(0) == nil {
			_, _ = io.WriteString(f, holderLine())
		}
		_ = f.Close()
	}
	return l, nil
}

// plainOrAbsent refuses the file of a run folder at path, which a run
// appends to or writes in place (results.jsonl, results.bad.jsonl, the
// lock), when it is there and not a plain file: a symbolic link that a
// folder brought would have the run write into the file it points to (a
// line of results.jsonl appended to a shell's start-up file, say).
func plainOrAbsent(path string) error {
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return notPlain(path, st.Mode())
	}
	return nil
}

// holderLine is what this process writes in a lock file it holds: its
// pid, the machine it runs on (a run folder on a shared disk may be
// locked from another machine, where the pid names another process) and
// its command line.
func holderLine() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "an unnamed machine"
	}
	return fmt.Sprintf("pid %d on %s, %s\n", os.Getpid(), host, strings.Join(os.Args, " "))
}

// notPlain is the error for a file of a run folder at path that is not a
// plain file (mode says what it is).
func notPlain(path string, mode os.FileMode) error {
	what := "not a plain file"
	if mode&os.ModeSymlink != 0 {
		what = "a symbolic link"
	}
	return &eval.InputError{File: path, Msg: what + ": a run folder's files are plain files of its own, which Assay writes into; remove it, or start a new run in another --out"}
}

// removeStale removes the temporary files an earlier attempt killed
// between writing and renaming left in dir ("."+name+".*" of
// atomicfile.Write).
func removeStale(dir string) {
	for _, name := range []string{FileConfig, FileSummary, FileReport, FileResults} {
		matches, _ := filepath.Glob(filepath.Join(dir, "."+name+".*"))
		for _, m := range matches {
			_ = os.Remove(m)
		}
	}
}

// setAside moves the whole lines of results.jsonl at path that a resume
// cannot keep to FileBad beside it, and returns how many of each kind:
// bad, those that are not result lines (torn in the middle of the file by
// an outside writer, say), whose pairs are then judged again; repeated,
// those of a pair whose final result (Result.Final) an earlier line holds
// (a line copied, or edited in by hand: a run writes a pair again only
// after a default or an error), whose pair keeps that earlier result. A
// torn last line is left for Resume to cut off. The file is read twice and
// rewritten only when some line goes; FileBad is synced before the
// rewritten file replaces results.jsonl, so a kill at any point loses no
// line.
func setAside(path string) (bad, repeated int, err error) {
	if err := eachLine(path, keptLines(), func(line []byte, why lineFate) error {
		switch why {
		case lineBad:
			bad++
		case lineRepeated:
			repeated++
		}
		return nil
	}); err != nil || bad+repeated == 0 {
		return 0, 0, err
	}
	badFile, err := os.OpenFile(filepath.Join(filepath.Dir(path), FileBad), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return 0, 0, err
	}
	bw := bufio.NewWriter(badFile)
	err = atomicfile.Write(path, 0o644, func(w io.Writer) error {
		if err := eachLine(path, keptLines(), func(line []byte, why lineFate) error {
			if why != lineKept {
				if _, err := bw.Write(line); err != nil || line[len(line)-1] == '\n' {
					return err
				}
				return bw.WriteByte('\n') // a whole last line saved without one
			}
			_, err := w.Write(line)
			return err
		}); err != nil {
			return err
		}
		// The lines set aside are on disk before results.jsonl loses them.
		if err := bw.Flush(); err != nil {
			return err
		}
		return badFile.Sync()
	})
	if cerr := badFile.Close(); err == nil {
		err = cerr
	}
	return bad, repeated, err
}

// lineFate is what a resume does with a line of results.jsonl.
type lineFate int

const (
	lineKept     lineFate = iota
	lineBad               // not a result line
	lineRepeated          // a pair's line after its final result
)

// keptLines is a fresh test of the lines of results.jsonl, handed in file
// order with whether each is whole, of what a resume does with each (see
// setAside). It holds the pairs with a final result.
func keptLines() func(b []byte, whole bool) lineFate {
	final := map[Key]struct{}{}
	return func(b []byte, whole bool) lineFate {
		if !whole && !wholeResult(b) {
			return lineKept // torn: Resume cuts it off
		}
		var res Result
		if json.Unmarshal(b, &res) != nil || res.ID == "" || res.Metric == "" {
			return lineBad
		}
		if _, ok := final[res.Key()]; ok {
			return lineRepeated
		}
		if res.Final() {
			final[res.Key()] = struct{}{}
		}
		return lineKept
	}
}

// eachLine hands each whole line of the file at path (with its newline;
// blank lines skipped) to fn, with what fate says of it, and then a torn
// last line as it is, kept.
func eachLine(path string, fate func(b []byte, whole bool) lineFate, fn func(line []byte, why lineFate) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only
	br := bufio.NewReaderSize(f, 64<<10)
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			whole := b[len(b)-1] == '\n'
			if t := bytes.TrimSpace(b); len(t) > 0 {
				if ferr := fn(b, fate(t, whole)); ferr != nil {
					return ferr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// maxHolder is how many bytes of the lock file's holder a refusal shows.
const maxHolder = 300

// shownHolder is the holder read from a lock file as a refusal shows it:
// its control characters (an escape sequence in a file name on the
// holder's command line) as Go escapes, cut after maxHolder bytes.
func shownHolder(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteRune(r)
		}
		if b.Len() > maxHolder {
			break
		}
	}
	out := b.String()
	if len(out) > maxHolder {
		out = strings.ToValidUTF8(out[:maxHolder], "") + "..."
	}
	return out
}
