// Package sqlitedb opens the SQLite files that several Assay processes may
// share (the model-reply cache, the local corpus index) in one way, with
// the pure-Go modernc.org/sqlite driver.
package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Open opens the database file at path, creating its directory. Every
// connection waits up to 5 s for another process's lock (the busy timeout,
// set before the switch to the WAL journal, which takes a lock itself),
// uses the WAL journal, so readers never wait for a writer, syncs to disk
// at checkpoints rather than at every commit (synchronous NORMAL: a crash
// of the machine may lose the last writes, never corrupt the file; these
// files can be rebuilt), and begins its
// transactions IMMEDIATE: a transaction that will write takes the write
// lock up front and waits for it, where one that upgrades a read lock
// later can fail at once to avoid a deadlock. Run schema changes in a
// transaction for that reason. sql.Open connects lazily: the first use
// reports a file that is not a database.
func Open(path string) (*sql.DB, error) { return open(path, "NORMAL", "") }

// OpenMapped is Open for a file read far more than written (the reply
// cache): its connections read the file through one shared memory map
// (mmap_size, up to MapSize bytes of it) instead of each copying the
// pages it reads into a page cache of its own, which a new connection
// would fill again.
func OpenMapped(path string) (*sql.DB, error) {
	return open(path, "NORMAL", "&_pragma=mmap_size("+strconv.FormatInt(MapSize, 10)+")")
}

// MapSize is how much of a file OpenMapped maps: beyond it, reads go
// through the connection's page cache.
const MapSize = 1 << 30

// OpenSynced is Open with every commit synced to disk (synchronous FULL):
// a commit survives a crash of the machine too, not only of the process.
// For a journal whose writes are promised to someone (an HTTP 202).
func OpenSynced(path string) (*sql.DB, error) { return open(path, "FULL", "") }

func open(path, synchronous, more string) (*sql.DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	return sql.Open("sqlite", fileURI(path)+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous("+synchronous+")&_txlock=immediate"+more)
}

// fileURI is path as an SQLite file: URI, which SQLite decodes (%XX)
// before it opens the file: a path holding '?' (where the driver's
// parameters begin), '#' (a URI's fragment) or '%' names that file, not
// another. Cleaning it keeps a path beginning "//" from being read as
// the URI's authority.
func fileURI(path string) string {
	return "file:" + uriEscaper.Replace(filepath.Clean(path))
}

var uriEscaper = strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23")

// Setup runs fn, the first use of a database from Open (creating its
// schema, say), again while it fails because the file is locked, for up
// to 5 s. Processes that open a new file at the same moment race to set it
// up (the switch to WAL, its shared-memory index), and SQLite reports some
// of those races at once instead of waiting out the busy timeout.
func Setup(ctx context.Context, fn func() error) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = 10 * time.Millisecond
	b.MaxElapsedTime = 5 * time.Second
	return backoff.Retry(func() error {
		err := fn()
		if err != nil && !Busy(err) {
			return backoff.Permanent(err)
		}
		return err
	}, backoff.WithContext(b, ctx))
}

// Busy reports whether err is SQLite's "database is locked" (SQLITE_BUSY):
// another process held the file's lock longer than the busy timeout. The
// file is sound; the same call succeeds once the other lets go.
func Busy(err error) bool { return primaryCode(err) == sqlite3.SQLITE_BUSY }

// ReadOnly reports whether err is SQLite's refusal to write a file this
// process may only read (SQLITE_READONLY: the file, its folder or its
// mount is read-only to it). The file is sound.
func ReadOnly(err error) bool { return primaryCode(err) == sqlite3.SQLITE_READONLY }

// primaryCode is the primary result code of the SQLite error in err's
// chain (its extended code's low byte), or -1 when there is none.
func primaryCode(err error) int {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return -1
	}
	return se.Code() & 0xff
}

// Exec runs one statement in a transaction of its own, which begins
// IMMEDIATE (Open): it waits for other writers, where a statement on its
// own reads first and can fail at once when another process has written
// since.
func Exec(ctx context.Context, db *sql.DB, query string, args ...any) error {
	return InTx(ctx, db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, query, args...)
		return err
	})
}

// ExecStmt is Exec of a statement prepared on db, which the transaction's
// connection prepares once and keeps while it lives.
func ExecStmt(ctx context.Context, db *sql.DB, stmt *sql.Stmt, args ...any) error {
	return InTx(ctx, db, func(tx *sql.Tx) error {
		_, err := tx.StmtContext(ctx, stmt).ExecContext(ctx, args...)
		return err
	})
}

// InTx runs fn in a transaction of its own, and commits it when fn
// succeeds.
func InTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }() // a no-op once committed
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}
