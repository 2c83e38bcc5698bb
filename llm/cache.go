package llm

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/assaylabs/assay/internal/sqlitedb"
)

// SQLiteCache is a Cache in one SQLite file (pure Go, no cgo). Replies are
// stored as JSON (content and usage) under their key; Put overwrites. It is
// safe for concurrent use by many goroutines, and by several processes
// sharing the file (WAL journal, 5 s busy timeout). Close it when done.
//
// It keeps a few connections to the file, each kept open between calls,
// and its statements prepared once: a connection closed for want of an
// idle place would open the file, set its pragmas and prepare its
// statements again on the next lookup. Lookups have connections of their
// own, OpenCache's conns of them (at most MaxCacheConns), and writes one
// more. They read the file through one shared memory map
// (sqlitedb.OpenMapped), not each through a page cache of its own that a
// cached rerun would fill once per connection.
//
// A lookup's connection stays in its read transaction while lookups keep
// coming (see reader), as beginning one is most of a lookup's cost: it
// locks the shared WAL index with system calls. The transaction ends when
// no lookup is left in flight, after maxReaderLookups lookups, and before
// the first lookup after a Put of this cache: a reply it stored is always
// found, and one another process stored is found once this process's
// lookups pause.
//
// A corrupt file is set aside (renamed to PATH.corrupt-TIMESTAMP) and a new
// cache started in its place: at open (SetAside reports it), or when a Get
// or Put finds a malformed page (that call returns a *CacheCorruptError;
// the calls after it use the new file). It is set aside once: a process
// that finds corrupt a file another process has set aside already moves
// to the new cache that one started.
type SQLiteCache struct {
	path string
	// mu queues this process's writers, so they wait their turn here
	// rather than poll for SQLite's write lock against each other; the
	// busy timeout is left for other processes.
	mu sync.Mutex
	// conns is the size of db's connection pool.
	conns int
	// dbmu guards db, which a corrupt file's replacement swaps.
	dbmu     sync.RWMutex
	db       *cacheDB
	setAside error

	// slots holds a place for each lookup that may run at once (conns).
	slots chan struct{}
	// rmu guards idle and inflight: the readers not in use, and the
	// lookups begun and not yet done, waiting for a place or not.
	rmu      sync.Mutex
	idle     []*reader
	inflight int
	// puts counts this cache's writes: a reader whose transaction began
	// before the last one begins another.
	puts atomic.Uint64
}

// maxReaderLookups is how many lookups one read transaction serves
// before it ends, so that a service looking up without pause still sees
// what other processes store.
const maxReaderLookups = 256

// reader is a connection held for lookups, with its statement, and
// whether it is inside a read transaction: since when (puts) and for how
// many lookups.
type reader struct {
	db      *cacheDB
	conn    *sql.Conn
	get     *sql.Stmt
	open    bool
	puts    uint64
	lookups int
}

// cacheDB is the cache's database and its statements, prepared once,
// with the file it opened: another process may set that file aside and
// start a new cache at its path.
type cacheDB struct {
	*sql.DB
	get, put *sql.Stmt
	file     os.FileInfo
}

// replaced reports whether the file at path is no longer the one d
// opened: another process found it corrupt, set it aside and started a
// new cache (or is about to).
func (d *cacheDB) replaced(path string) bool {
	return d.file != nil && !sameFile(d.file, path)
}

// sameFile reports whether the file at path is fi.
func sameFile(fi os.FileInfo, path string) bool {
	now, err := os.Stat(path)
	return err == nil && os.SameFile(fi, now)
}

const (
	getReply = `SELECT reply FROM replies WHERE key = ?`
	putReply = `INSERT INTO replies (key, reply, created_at) VALUES (?, ?, ?)
	 ON CONFLICT(key) DO UPDATE SET reply = excluded.reply, created_at = excluded.created_at`
)

// DefaultCacheConns is the cache's connections when OpenCache is given
// none: the Client's default Concurrency.
const DefaultCacheConns = 8

// MaxCacheConns bounds the cache's connections: a lookup is a few
// microseconds of CPU, so more connections than cores only open the file
// and prepare the statements more often, while lookups beyond them wait
// a moment for one.
func MaxCacheConns() int { return max(2, runtime.GOMAXPROCS(0)) }

var _ Cache = (*SQLiteCache)(nil)

const cacheSchema = `CREATE TABLE IF NOT EXISTS replies (
	key        TEXT PRIMARY KEY,
	reply      JSON NOT NULL,
	created_at TEXT NOT NULL
)`

// CacheCorruptError says that the cache file was corrupt and what became
// of it: set aside as Aside, with a new cache started at Path, or, when
// Aside is empty, left in place because it could not be moved.
type CacheCorruptError struct {
	Path, Aside string
	Err         error // what SQLite said
	MoveErr     error // why it could not be set aside, if so
}

func (e *CacheCorruptError) Error() string {
	if e.Aside == "" {
		return fmt.Sprintf("llm cache %s is corrupt (%v) and could not be set aside (%v): delete it to start afresh", e.Path, e.Err, e.MoveErr)
	}
	return fmt.Sprintf("llm cache %s is corrupt (%v): set aside as %s, and a new cache started", e.Path, e.Err, e.Aside)
}

func (e *CacheCorruptError) Unwrap() error { return e.Err }

// OpenCache opens the cache at path, creating its directory, the file and
// the table as needed, with conns connections (at most MaxCacheConns): as
// many as lookups may run at once, the Client's Concurrency
// (Config.Concurrency); below 1 is
// DefaultCacheConns. A file that is not a database, or a corrupt one, is
// set aside and a new cache started (see SetAside); a path that cannot be
// opened gives an error naming it.
func OpenCache(path string, conns int) (*SQLiteCache, error) {
	if path == "" {
		return nil, errors.New("llm cache: empty path")
	}
	if conns < 1 {
		conns = DefaultCacheConns
	}
	conns = min(conns, MaxCacheConns())
	c := &SQLiteCache{path: path, conns: conns, slots: make(chan struct{}, conns)}
	found, _ := os.Stat(path)
	db, err := openCacheDB(path, conns)
	if corrupt(err) && found != nil && !sameFile(found, path) {
		// Another process set the corrupt file aside while this one
		// opened it: open the new cache it started.
		db, err = openCacheDB(path, conns)
	}
	if corrupt(err) {
		ce := setAside(path, err)
		if ce.Aside == "" {
			return nil, ce
		}
		c.setAside = ce
		db, err = openCacheDB(path, conns)
	}
	if err != nil {
		return nil, err
	}
	c.db = db
	return c, nil
}

// openCacheDB opens the database at path with a pool of conns
// connections, all kept when idle, creates its table and prepares its
// statements.
func openCacheDB(path string, conns int) (*cacheDB, error) {
	db, err := sqlitedb.OpenMapped(path)
	if err != nil {
		return nil, fmt.Errorf("llm cache %s: %w", path, err)
	}
	// A connection for each lookup at once, and one for writing.
	db.SetMaxOpenConns(conns + 1)
	db.SetMaxIdleConns(conns + 1)
	// sql.Open connects lazily: creating the table is the first real use,
	// and fails here, not on the first Get, if the file is corrupt.
	ctx := context.Background()
	if err := sqlitedb.Setup(ctx, func() error { return sqlitedb.Exec(ctx, db, cacheSchema) }); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("llm cache %s: not a usable cache database (delete it to start afresh): %w", path, err)
	}
	cdb := &cacheDB{DB: db}
	cdb.file, _ = os.Stat(path)
	if cdb.get, err = db.PrepareContext(ctx, getReply); err == nil {
		cdb.put, err = db.PrepareContext(ctx, putReply)
	}
	if err != nil {
		_ = cdb.Close()
		return nil, fmt.Errorf("llm cache %s: prepare: %w", path, err)
	}
	return cdb, nil
}

// Close closes the statements, then the database.
func (d *cacheDB) Close() error {
	var err error
	for _, st := range []*sql.Stmt{d.get, d.put} {
		if st != nil {
			err = errors.Join(err, st.Close())
		}
	}
	return errors.Join(err, d.DB.Close())
}

// corrupt reports whether err is SQLite finding the file corrupt or not a
// database at all.
func corrupt(err error) bool {
	se, ok := errors.AsType[*sqlite.Error](err)
	if !ok {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_CORRUPT || code == sqlite3.SQLITE_NOTADB
}

// setAside renames the corrupt file at path, with its journal files, to
// path.corrupt-TIMESTAMP, so that a new cache can start there.
func setAside(path string, cause error) *CacheCorruptError {
	ce := &CacheCorruptError{Path: path, Err: cause}
	aside := path + ".corrupt-" + time.Now().UTC().Format("20060102T150405Z")
	for i := 2; ; i++ {
		if _, err := os.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
			break
		}
		aside = fmt.Sprintf("%s.corrupt-%s-%d", path, time.Now().UTC().Format("20060102T150405Z"), i)
	}
	if err := os.Rename(path, aside); err != nil {
		ce.MoveErr = err
		return ce
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		// A journal left beside the new file would be replayed into it.
		if err := os.Rename(path+suffix, aside+suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			_ = os.Remove(path + suffix)
		}
	}
	ce.Aside = aside
	return ce
}

// SetAside is the *CacheCorruptError of a corrupt file that OpenCache set
// aside before starting a new cache, or nil.
func (c *SQLiteCache) SetAside() error { return c.setAside }

// restart replaces db, found corrupt by a Get or Put, with a new cache,
// and returns the error to report. It returns nil when another call
// replaced db already, or another process set its file aside and
// started a new cache: the caller tries again on the new file, which is
// not set aside in its turn.
func (c *SQLiteCache) restart(db *cacheDB, cause error) error {
	c.dbmu.Lock()
	defer c.dbmu.Unlock()
	if c.db != db {
		return nil
	}
	c.dropIdle()
	_ = db.Close()
	if db.replaced(c.path) {
		fresh, err := openCacheDB(c.path, c.conns)
		if err != nil {
			return fmt.Errorf("llm cache %s: another process set the corrupt cache aside, and its new one could not be opened: %w", c.path, err)
		}
		c.db = fresh
		return nil
	}
	ce := setAside(c.path, cause)
	fresh, err := openCacheDB(c.path, c.conns)
	if err != nil {
		// Keep the old handle, closed: later calls fail with its error
		// and are counted, and the run goes on without a cache.
		return fmt.Errorf("%w; the new cache could not be opened: %w", ce, err)
	}
	c.db = fresh
	return ce
}

// DefaultCachePath is where the cache lives unless told otherwise:
// $ASSAY_CACHE_DIR/llm-cache.db when that is set, else
// os.UserCacheDir()/assay/llm-cache.db.
func DefaultCachePath() (string, error) {
	if dir := os.Getenv("ASSAY_CACHE_DIR"); dir != "" {
		return filepath.Join(dir, "llm-cache.db"), nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("llm cache: %w (set ASSAY_CACHE_DIR)", err)
	}
	return filepath.Join(dir, "assay", "llm-cache.db"), nil
}

// Path is the file the cache was opened from.
func (c *SQLiteCache) Path() string { return c.path }

// Get returns the reply stored under key; the second result is false on a
// miss.
func (c *SQLiteCache) Get(ctx context.Context, key string) (Response, bool, error) {
	reply, err := c.lookup(ctx, key)
	if err != nil || reply == nil {
		return Response{}, false, err
	}
	// encoding/json/v2 reads what encoding/json wrote (Usage's latency is
	// tagged format:nano for it) in fewer steps: a lookup of a judge's
	// reply takes about two fifths less (BenchmarkCacheGetConcurrent).
	var r Response
	if err := jsonv2.Unmarshal(reply, &r); err != nil {
		return Response{}, false, fmt.Errorf("llm cache %s: decode reply: %w", c.path, err)
	}
	if err := storable(r); err != nil {
		return Response{}, false, fmt.Errorf("llm cache %s: stored entry is not a reply a call could give (%w): the model is asked again", c.path, err)
	}
	return r, true, nil
}

// storable says why r, read from the file, is no reply a call stored: a
// call with no content is an error (ErrEmpty), never stored, and no count
// of tokens is negative. Such an entry was edited by hand or written by
// something else; served, it would be an empty judgement or a usage line
// that takes tokens away.
func storable(r Response) error {
	u := r.Usage
	switch {
	case r.Content == "":
		return errors.New("no reply: its content is empty")
	case u.TokensIn < 0 || u.TokensOut < 0 || u.CachedTokensIn < 0 || u.CachedTokensOut < 0:
		return fmt.Errorf("negative token count: %d in, %d out, %d in and %d out from a cache", u.TokensIn, u.TokensOut, u.CachedTokensIn, u.CachedTokensOut)
	}
	return nil
}

// lookup is the reply stored under key, nil on a miss, read by a reader
// of the current database; it sets a corrupt file aside and tries the new
// one.
func (c *SQLiteCache) lookup(ctx context.Context, key string) ([]byte, error) {
	r, err := c.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer c.release(r)
	for {
		c.dbmu.RLock()
		db := c.db
		var reply []byte
		err := r.read(ctx, db, c.puts.Load(), key, &reply)
		c.dbmu.RUnlock()
		if err == nil || errors.Is(err, sql.ErrNoRows) {
			return reply, nil
		}
		r.close() // its state is unknown: the next lookup opens another
		if !corrupt(err) {
			return nil, fmt.Errorf("llm cache %s: get: %w", c.path, err)
		}
		if err := c.restart(db, err); err != nil {
			return nil, err
		}
	}
}

// acquire waits for a place among the lookups at once and takes an idle
// reader, or a new one.
func (c *SQLiteCache) acquire(ctx context.Context) (*reader, error) {
	c.rmu.Lock()
	c.inflight++
	c.rmu.Unlock()
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		c.rmu.Lock()
		c.inflight--
		c.rmu.Unlock()
		return nil, fmt.Errorf("llm cache %s: get: %w", c.path, context.Cause(ctx))
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if n := len(c.idle); n > 0 {
		r := c.idle[n-1]
		c.idle = c.idle[:n-1]
		return r, nil
	}
	return &reader{}, nil
}

// release gives r back and its place with it. The last lookup in flight
// ends every reader's transaction: none holds a snapshot of the file
// while this process is not looking.
func (c *SQLiteCache) release(r *reader) {
	c.rmu.Lock()
	c.inflight--
	c.idle = append(c.idle, r)
	if c.inflight == 0 {
		for _, r := range c.idle {
			r.end()
		}
	}
	c.rmu.Unlock()
	<-c.slots
}

// dropIdle closes the idle readers: their database is being closed.
func (c *SQLiteCache) dropIdle() {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	for _, r := range c.idle {
		r.close()
	}
}

// read looks key up in db into reply, within a read transaction begun
// after the cache's puts'th write, opening r on db first when it is not.
func (r *reader) read(ctx context.Context, db *cacheDB, puts uint64, key string, reply *[]byte) error {
	if r.db != db {
		r.close()
		conn, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		get, err := conn.PrepareContext(ctx, getReply)
		if err != nil {
			_ = conn.Close()
			return err
		}
		r.db, r.conn, r.get = db, conn, get
	}
	if r.open && (r.puts != puts || r.lookups >= maxReaderLookups) {
		r.end()
	}
	// The transaction's start and the lookup of one row by its key are
	// not cancelled: each takes a few microseconds, and a context that can
	// be cancelled costs each statement a goroutine watching it (and the
	// lookup one more, database/sql's), more than the statement itself.
	// acquire has waited on ctx already; a lock another process holds is
	// waited for at most the busy timeout.
	stmtCtx := context.WithoutCancel(ctx)
	if !r.open {
		// A deferred transaction: it takes its read lock with the first
		// lookup, and never the write lock.
		if _, err := r.conn.ExecContext(stmtCtx, "BEGIN DEFERRED"); err != nil {
			return err
		}
		r.open, r.puts, r.lookups = true, puts, 0
	}
	r.lookups++
	return r.get.QueryRowContext(stmtCtx, key).Scan(reply)
}

// end ends r's transaction, if it is in one; a reader that cannot is
// closed.
func (r *reader) end() {
	if !r.open {
		return
	}
	r.open = false
	if _, err := r.conn.ExecContext(context.Background(), "COMMIT"); err != nil {
		r.close()
	}
}

// close gives r's connection back to its pool, closed; r is opened anew
// on its next lookup.
func (r *reader) close() {
	if r.conn != nil {
		_ = r.get.Close()
		_ = r.conn.Raw(func(any) error { return driver.ErrBadConn })
		_ = r.conn.Close()
	}
	*r = reader{}
}

// Put stores r under key, replacing any earlier reply.
func (c *SQLiteCache) Put(ctx context.Context, key string, r Response) error {
	reply, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("llm cache: encode reply: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		c.dbmu.RLock()
		db := c.db
		err = sqlitedb.ExecStmt(ctx, db.DB, db.put, key, string(reply), time.Now().UTC().Format(time.RFC3339Nano))
		c.dbmu.RUnlock()
		if corrupt(err) {
			if err := c.restart(db, err); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("llm cache %s: put: %w", c.path, err)
		}
		c.puts.Add(1)
		return nil
	}
}

// Stats is the connection pool of the cache's database, as database/sql
// counts it: the connections open and in use, their limit, and those
// closed for want of an idle place (each a file opened again later).
func (c *SQLiteCache) Stats() sql.DBStats {
	c.dbmu.RLock()
	defer c.dbmu.RUnlock()
	return c.db.Stats()
}

// Close closes the database. The cache must not be used afterwards.
func (c *SQLiteCache) Close() error {
	c.dbmu.Lock()
	defer c.dbmu.Unlock()
	c.dropIdle()
	return c.db.Close()
}
