package llm

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/assaylabs/assay/internal/sqlitedb"
)

// SQLiteCache is a Cache in one SQLite file (pure Go, no cgo). Replies are
// stored as JSON (content and usage) under their key; Put overwrites. It is
// safe for concurrent use by many goroutines, and by several processes
// sharing the file (WAL journal, 5 s busy timeout). Close it when done.
type SQLiteCache struct {
	db   *sql.DB
	path string
	// mu queues this process's writers, so they wait their turn here
	// rather than poll for SQLite's write lock against each other; the
	// busy timeout is left for other processes.
	mu sync.Mutex
}

var _ Cache = (*SQLiteCache)(nil)

const cacheSchema = `CREATE TABLE IF NOT EXISTS replies (
	key        TEXT PRIMARY KEY,
	reply      JSON NOT NULL,
	created_at TEXT NOT NULL
)`

// OpenCache opens the cache at path, creating its directory, the file and
// the table as needed. A file that is not an Assay cache (or not an SQLite
// database at all) gives an error naming the path.
func OpenCache(path string) (*SQLiteCache, error) {
	if path == "" {
		return nil, errors.New("llm cache: empty path")
	}
	db, err := sqlitedb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("llm cache %s: %w", path, err)
	}
	// sql.Open connects lazily: creating the table is the first real use,
	// and fails here, not on the first Get, if the file is corrupt.
	ctx := context.Background()
	if err := sqlitedb.Setup(ctx, func() error { return write(ctx, db, cacheSchema) }); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("llm cache %s: not a usable cache database (delete it to start afresh): %w", path, err)
	}
	return &SQLiteCache{db: db, path: path}, nil
}

// write runs one statement in a transaction of its own, which begins
// IMMEDIATE (sqlitedb.Open): it waits for other writers, where a
// statement on its own reads first and can fail at once when another
// process has written since.
func write(ctx context.Context, db *sql.DB, query string, args ...any) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, query, args...); err != nil {
		return err
	}
	return tx.Commit()
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
	var reply []byte
	err := c.db.QueryRowContext(ctx, `SELECT reply FROM replies WHERE key = ?`, key).Scan(&reply)
	if errors.Is(err, sql.ErrNoRows) {
		return Response{}, false, nil
	}
	if err != nil {
		return Response{}, false, fmt.Errorf("llm cache %s: get: %w", c.path, err)
	}
	var r Response
	if err := json.Unmarshal(reply, &r); err != nil {
		return Response{}, false, fmt.Errorf("llm cache %s: decode reply: %w", c.path, err)
	}
	return r, true, nil
}

// Put stores r under key, replacing any earlier reply.
func (c *SQLiteCache) Put(ctx context.Context, key string, r Response) error {
	reply, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("llm cache: encode reply: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	err = write(ctx, c.db,
		`INSERT INTO replies (key, reply, created_at) VALUES (?, ?, ?)
		 ON CONFLICT(key) DO UPDATE SET reply = excluded.reply, created_at = excluded.created_at`,
		key, string(reply), time.Now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("llm cache %s: put: %w", c.path, err)
	}
	return nil
}

// Close closes the database. The cache must not be used afterwards.
func (c *SQLiteCache) Close() error { return c.db.Close() }
