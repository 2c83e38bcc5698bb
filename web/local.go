package web

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/internal/sqlitedb"
	"github.com/assaylabs/assay/internal/termtext"
)

// Local searches a folder of documents (Markdown, text, HTML with front
// matter; see ParseCorpusFile) through an SQLite FTS5 index ranked by BM25.
//
// The index lives in one SQLite file and is kept in step with the folder:
// OpenLocal and Refresh re-index only files whose content changed (by
// SHA-256), and drop files that are gone. A Local is safe for concurrent use
// by many goroutines, and several processes may share the index file (WAL
// journal, 5 s busy timeout). Open one with OpenLocal (the zero value is
// not usable) and Close it when done.
type Local struct {
	db     *sql.DB
	fsys   fs.FS
	dbPath string

	mu    sync.Mutex // guards stats, serialises Refresh
	stats Stats
}

// Stats describes the last index update.
type Stats struct {
	// Files is the number of supported files found in the corpus.
	Files int
	// Indexed files were new or changed and were (re-)indexed.
	Indexed int
	// Unchanged files had the same content hash as in the index.
	Unchanged int
	// Removed files were in the index but are gone from the corpus (or no
	// longer parse).
	Removed int
	// Skipped names the files left out and why, one "path: reason" each:
	// files with no front matter, too large, unreadable or not regular
	// files (a named pipe, a link to a device), and unreadable folders. It is printed as is, so the control and bidirectional
	// formatting characters of a name (a file's name is the corpus's,
	// not the user's) are written as escapes (termtext.Visible).
	Skipped []string
}

// LocalName is the Backend name of local corpus results.
const LocalName = "local"

// maxCorpusFile is the largest file the index reads; larger ones are
// skipped with a warning.
const maxCorpusFile = 8 << 20

// localSchemaVersion is stored in PRAGMA user_version; an index file of
// another version is rebuilt from scratch. Version 2 added the grams
// columns.
const localSchemaVersion = 2

const localSchema = `
CREATE TABLE IF NOT EXISTS docs (
	id        INTEGER PRIMARY KEY,
	path      TEXT NOT NULL UNIQUE,
	url       TEXT NOT NULL,
	title     TEXT NOT NULL,
	author    TEXT NOT NULL,
	published TEXT NOT NULL, -- YYYY-MM-DD, or '' when unknown
	refs      INTEGER NOT NULL,
	topic     TEXT NOT NULL,
	hash      TEXT NOT NULL, -- hex SHA-256 of the file's bytes
	body      TEXT NOT NULL,
	-- the grams of title and body (unspaced scripts: Chinese, Japanese, Thai), see terms.go
	title_grams TEXT NOT NULL,
	body_grams  TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(
	title, body, title_grams, body_grams, content='docs', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS docs_ai AFTER INSERT ON docs BEGIN
	INSERT INTO docs_fts(rowid, title, body, title_grams, body_grams)
		VALUES (new.id, new.title, new.body, new.title_grams, new.body_grams);
END;
CREATE TRIGGER IF NOT EXISTS docs_ad AFTER DELETE ON docs BEGIN
	INSERT INTO docs_fts(docs_fts, rowid, title, body, title_grams, body_grams)
		VALUES ('delete', old.id, old.title, old.body, old.title_grams, old.body_grams);
END;
CREATE TRIGGER IF NOT EXISTS docs_au AFTER UPDATE ON docs BEGIN
	INSERT INTO docs_fts(docs_fts, rowid, title, body, title_grams, body_grams)
		VALUES ('delete', old.id, old.title, old.body, old.title_grams, old.body_grams);
	INSERT INTO docs_fts(rowid, title, body, title_grams, body_grams)
		VALUES (new.id, new.title, new.body, new.title_grams, new.body_grams);
END;
`

const localDropSchema = `
DROP TRIGGER IF EXISTS docs_ai;
DROP TRIGGER IF EXISTS docs_ad;
DROP TRIGGER IF EXISTS docs_au;
DROP TABLE IF EXISTS docs_fts;
DROP TABLE IF EXISTS docs;
`

// OpenLocal opens (creating it if needed) the index of the corpus dir and
// brings it up to date.
//
// fsys is the corpus; nil means os.DirFS(dir). Pass an embedded corpus (an
// embed.FS, or a sub-tree of one) as fsys, with dir a stable name for it
// such as "embedded:fixtures". dbPath is the index file; "" means
// DefaultIndexPath(dir). Hidden files and folders (".git") are not read.
//
// Files without front matter are skipped and listed in Stats().Skipped. A
// file whose front matter is wrong fails the open with an *eval.InputError
// naming file, line and field (all such files are reported, joined); the
// other files are indexed all the same, so fixing the file and opening
// again only indexes it.
func OpenLocal(ctx context.Context, dir string, fsys fs.FS, dbPath string) (*Local, error) {
	if fsys == nil {
		if dir == "" {
			return nil, errors.New("local corpus: no folder given")
		}
		st, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("local corpus: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("local corpus %s: not a folder", dir)
		}
		fsys = os.DirFS(dir)
	}
	if dbPath == "" {
		var err error
		if dbPath, err = DefaultIndexPath(dir, fsys); err != nil {
			return nil, err
		}
	}
	db, err := openIndex(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	l := &Local{db: db, fsys: fsys, dbPath: dbPath}
	if _, err := l.Refresh(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return l, nil
}

// DefaultIndexPath is where the index of the corpus dir lives unless told
// otherwise: corpus-<hash>.db in $ASSAY_CACHE_DIR when that is set, else in
// os.UserCacheDir()/assay. The hash is of the absolute path of dir when
// fsys is nil (the folder on disk), else of dir as given (a name for an
// embedded corpus).
func DefaultIndexPath(dir string, fsys fs.FS) (string, error) {
	key := dir
	if fsys == nil {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", fmt.Errorf("local corpus %s: %w", dir, err)
		}
		key = abs
	}
	sum := sha256.Sum256([]byte(key))
	name := "corpus-" + hex.EncodeToString(sum[:8]) + ".db"
	if d := os.Getenv("ASSAY_CACHE_DIR"); d != "" {
		return filepath.Join(d, name), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("local corpus: %w (set ASSAY_CACHE_DIR)", err)
	}
	return filepath.Join(d, "assay", name), nil
}

// openIndex opens the index file, creating its folder, the file and the
// schema as needed, and rebuilding an index of another schema version.
func openIndex(ctx context.Context, dbPath string) (*sql.DB, error) {
	// Transactions (index updates) begin IMMEDIATE: they take the write
	// lock up front, so two processes updating one index wait for each
	// other (busy timeout) instead of failing to upgrade a read lock.
	db, err := sqlitedb.Open(dbPath)
	if err != nil {
		return nil, fmt.Errorf("local corpus index %s: %w", dbPath, err)
	}
	if err := sqlitedb.Setup(ctx, func() error { return setUpIndex(ctx, db) }); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("local corpus index %s: not a usable index (delete it to rebuild): %w", dbPath, err)
	}
	return db, nil
}

// setUpIndex creates the index's schema, or rebuilds an index of another
// schema version, in one transaction.
func setUpIndex(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var version int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return err
	}
	if version == localSchemaVersion {
		return nil // the deferred Rollback ends the read-only transaction
	}
	if version != 0 {
		if _, err := tx.ExecContext(ctx, localDropSchema); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, localSchema); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, localSchemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

// Name is the backend name, "local".
func (l *Local) Name() string { return LocalName }

// Path is the index file.
func (l *Local) Path() string { return l.dbPath }

// Stats describes the last index update.
func (l *Local) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Skipped = slices.Clone(s.Skipped)
	return s
}

// Close closes the index. The Local must not be used afterwards.
func (l *Local) Close() error { return l.db.Close() }

// Refresh brings the index up to date with the corpus, as OpenLocal does,
// and returns what it did. Searches running meanwhile see the index before
// or after the update, never half of it.
func (l *Local) Refresh(ctx context.Context) (Stats, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	stats, err := l.refresh(ctx)
	l.stats = stats
	return stats, err
}

func (l *Local) refresh(ctx context.Context) (Stats, error) {
	var stats Stats
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return stats, l.indexErr("begin", err)
	}
	defer func() { _ = tx.Rollback() }()

	known, err := knownCorpusHashes(ctx, tx)
	if err != nil {
		return stats, l.indexErr("read", err)
	}
	upsert, err := tx.PrepareContext(ctx, `INSERT INTO docs (path, url, title, author, published, refs, topic, hash, body, title_grams, body_grams)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(path) DO UPDATE SET url = excluded.url, title = excluded.title, author = excluded.author,
			published = excluded.published, refs = excluded.refs, topic = excluded.topic,
			hash = excluded.hash, body = excluded.body, title_grams = excluded.title_grams, body_grams = excluded.body_grams`)
	if err != nil {
		return stats, l.indexErr("prepare", err)
	}
	defer func() { _ = upsert.Close() }()

	r := corpusRefresh{l: l, upsert: upsert, known: known, seen: map[string]bool{}}
	walkErr := fs.WalkDir(l.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		return r.visit(ctx, p, d, err)
	})
	stats = r.stats
	if walkErr != nil {
		return stats, fmt.Errorf("local corpus: %w", walkErr)
	}

	gone := make([]string, 0, len(known))
	for p := range known {
		if !r.seen[p] {
			gone = append(gone, p)
		}
	}
	slices.Sort(gone)
	for _, p := range gone {
		if _, err := tx.ExecContext(ctx, `DELETE FROM docs WHERE path = ?`, p); err != nil {
			return stats, l.indexErr("remove "+p, err)
		}
		stats.Removed++
	}
	if err := tx.Commit(); err != nil {
		return stats, l.indexErr("commit", err)
	}
	return stats, errors.Join(r.inputErrs...)
}

// indexErr wraps err, from step of an update of the index.
func (l *Local) indexErr(step string, err error) error {
	return fmt.Errorf("local corpus index %s: %s: %w", l.dbPath, step, err)
}

// knownCorpusHashes returns the content hash of each file the index
// holds, by path.
func knownCorpusHashes(ctx context.Context, tx *sql.Tx) (map[string]string, error) {
	known := map[string]string{}
	rows, err := tx.QueryContext(ctx, `SELECT path, hash FROM docs`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var p, hash string
		if err := rows.Scan(&p, &hash); err != nil {
			_ = rows.Close()
			return nil, err
		}
		known[p] = hash
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	return known, nil
}

// corpusRefresh is one walk of the corpus by Local.refresh: the index's
// hashes before it, the files it saw, what it did and the files whose
// front matter is wrong.
type corpusRefresh struct {
	l         *Local
	upsert    *sql.Stmt
	known     map[string]string // path -> content hash, before the walk
	seen      map[string]bool
	stats     Stats
	inputErrs []error
}

// visit is the fs.WalkDirFunc of the walk: it skips hidden and
// unreadable entries and indexes each corpus file.
func (r *corpusRefresh) visit(ctx context.Context, p string, d fs.DirEntry, err error) error {
	if err != nil {
		if p == "." {
			return err // the corpus itself is unreadable
		}
		r.skip("%s: cannot read: %v", p, err)
		if d != nil && d.IsDir() {
			return fs.SkipDir
		}
		return nil
	}
	if p != "." && strings.HasPrefix(d.Name(), ".") {
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	}
	if d.IsDir() || !supportedCorpusFile(p) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return r.index(ctx, p)
}

// skip records a file or folder left out, its message escaped for a
// terminal (termtext.Visible): a name can hold an escape sequence or a
// bidirectional override.
func (r *corpusRefresh) skip(format string, args ...any) {
	r.stats.Skipped = append(r.stats.Skipped, termtext.Visible(fmt.Sprintf(format, args...)))
}

// index brings the index's entry for corpus file p up to date, unless
// its content is unchanged or it is skipped.
func (r *corpusRefresh) index(ctx context.Context, p string) error {
	r.stats.Files++
	data, why := readCorpusFile(r.l.fsys, p)
	if why != "" {
		r.skip("%s: %s", p, why)
		return nil
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	if h, ok := r.known[p]; ok && h == hash {
		r.seen[p] = true
		r.stats.Unchanged++
		return nil
	}
	f, err := ParseCorpusFile(p, data)
	var ie *eval.InputError
	switch {
	case errors.Is(err, ErrNoFrontMatter):
		r.skip("%s: no front matter with a url; not indexed", p)
		return nil
	case errors.As(err, &ie):
		r.inputErrs = append(r.inputErrs, err)
		return nil
	case err != nil:
		return err
	}
	published := ""
	if !f.Published.IsZero() {
		published = f.Published.Format(time.DateOnly)
	}
	if _, err := r.upsert.ExecContext(ctx, p, f.URL, f.Title, f.Author, published, f.References, f.Topic, hash, f.Body,
		grams(f.Title), grams(f.Body)); err != nil {
		return r.l.indexErr("index "+p, err)
	}
	r.seen[p] = true
	r.stats.Indexed++
	return nil
}

// readCorpusFile reads corpus file p, or says why it is left out: not a
// regular file once a link is followed (a named pipe, whose read would
// wait for a writer for ever; a device such as /dev/zero, whose read
// never ends; a folder), larger than maxCorpusFile (by its size, and by
// what is read, should it grow meanwhile), or unreadable (a dangling
// link, no permission).
func readCorpusFile(fsys fs.FS, p string) (data []byte, why string) {
	info, err := fs.Stat(fsys, p) // follows a link, as the walk's entry does not
	if err != nil {
		return nil, fmt.Sprintf("cannot read: %v", err)
	}
	if !info.Mode().IsRegular() {
		return nil, "not a regular file (" + fileKind(info.Mode()) + ")"
	}
	tooLarge := fmt.Sprintf("larger than %d MiB", maxCorpusFile>>20)
	if info.Size() > maxCorpusFile {
		return nil, tooLarge
	}
	f, err := fsys.Open(p)
	if err != nil {
		return nil, fmt.Sprintf("cannot read: %v", err)
	}
	defer func() { _ = f.Close() }() // read-only: its close says nothing of the data
	data, err = io.ReadAll(io.LimitReader(f, maxCorpusFile+1))
	switch {
	case err != nil:
		return nil, fmt.Sprintf("cannot read: %v", err)
	case len(data) > maxCorpusFile:
		return nil, tooLarge
	}
	return data, ""
}

// fileKind names the type of a file that is not a regular one.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.Type().String()
}

// maxMatches caps the candidates one search ranks before the domain rules
// and the limit apply.
const maxMatches = 5000

// Search returns the corpus documents matching q, best first, with the
// document's full text in Text and a plain-text excerpt in Snippet.
//
// The query text is reduced to its words, stop words dropped, each word
// quoted and the words OR-ed, so no user text can be an FTS5 syntax error;
// a query with no words returns no results. Words of scripts written
// without spaces (Chinese, Japanese, Thai) are matched by their characters
// and pairs of characters, in query and documents alike. Ranking is BM25
// with the title weighted five times the body; ties go to the lower path,
// so the order is deterministic. Files that give one document's URL
// (DocumentKey) are one result, the best ranked. Excluded domains are
// dropped and preferred ones moved first (stable) before the limit is
// applied.
func (l *Local) Search(ctx context.Context, q Query) ([]Result, error) {
	match := ftsMatch(q.Text)
	if match == "" {
		return nil, nil
	}
	rules := newDomainRules(q)
	limit := q.limit()

	// Rank every match cheaply (no body, no snippet), then apply the domain
	// rules, then read the few that are returned.
	rows, err := l.db.QueryContext(ctx, `SELECT d.id, d.url, bm25(docs_fts, 5.0, 1.0, 5.0, 1.0) AS rank
		FROM docs_fts JOIN docs d ON d.id = docs_fts.rowid
		WHERE docs_fts MATCH ?
		ORDER BY rank, d.path
		LIMIT ?`, match, maxMatches)
	if err != nil {
		return nil, fmt.Errorf("local search: %w", err)
	}
	type hit struct {
		id    int64
		url   string
		score float64
	}
	var hits []hit
	for rows.Next() {
		var h hit
		var rank float64
		if err := rows.Scan(&h.id, &h.url, &rank); err != nil {
			_ = rows.Close()
			return nil, fmt.Errorf("local search: %w", err)
		}
		h.score = -rank // bm25 is lower-is-better
		hits = append(hits, h)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fmt.Errorf("local search: %w", err)
	}
	hits = firstOfEachDocument(hits, func(h hit) string { return h.url })
	hits = applyDomainRules(rules, hits, func(h hit) string { return h.url }, limit)
	if len(hits) == 0 {
		return nil, nil
	}

	placeholders := strings.TrimSuffix(strings.Repeat("?,", len(hits)), ",")
	args := make([]any, 0, len(hits)+1)
	args = append(args, match)
	for _, h := range hits {
		args = append(args, h.id)
	}
	rows, err = l.db.QueryContext(ctx, `SELECT d.id, d.url, d.title, d.author, d.published, d.refs, d.body,
			snippet(docs_fts, 1, '', '', '…', 32)
		FROM docs_fts JOIN docs d ON d.id = docs_fts.rowid
		WHERE docs_fts MATCH ? AND docs_fts.rowid IN (`+placeholders+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("local search: %w", err)
	}
	byID := make(map[int64]Result, len(hits))
	for rows.Next() {
		var (
			id        int64
			r         Result
			published string
		)
		if err := rows.Scan(&id, &r.URL, &r.Title, &r.Author, &published, &r.References, &r.Text, &r.Snippet); err != nil {
			_ = rows.Close()
			return nil, fmt.Errorf("local search: %w", err)
		}
		r.AuthorKnown = r.Author != ""
		if published != "" {
			r.Published, _ = time.Parse(time.DateOnly, published)
		}
		if strings.TrimSpace(r.Snippet) == "" {
			r.Snippet = leadText(r.Text, 200)
		}
		r.Backend = LocalName
		byID[id] = r
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fmt.Errorf("local search: %w", err)
	}
	out := make([]Result, 0, len(hits))
	for _, h := range hits {
		if r, ok := byID[h.id]; ok { // a concurrent Refresh may have removed it
			r.Score = h.score
			out = append(out, r)
		}
	}
	return out, nil
}

// firstOfEachDocument keeps the first of the items whose URLs name one
// document (DocumentKey): two corpus files given one url, a copy kept
// beside its original, are one source, not two results taking two of
// the limit's places.
func firstOfEachDocument[T any](xs []T, urlOf func(T) string) []T {
	seen := make(map[string]bool, len(xs))
	return slices.DeleteFunc(xs, func(x T) bool {
		key := DocumentKey(urlOf(x))
		if seen[key] {
			return true
		}
		seen[key] = true
		return false
	})
}

// leadText returns about the first n bytes of s, cut at a space.
func leadText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n], ' '); i > 0 {
		return s[:i] + "…"
	}
	return s[:n] + "…"
}

// maxQueryTerms caps the words of one query; more only slow the search.
const maxQueryTerms = 32

// ftsMatch turns free text into a safe FTS5 MATCH expression: the distinct
// search terms (see searchTerms), stop words dropped unless nothing else is
// left, each quoted, joined with OR. It returns "" when the text has no
// words.
func ftsMatch(text string) string {
	var terms, stops []string
	for w := range searchTerms(text) {
		if searchStopWords[w] {
			if !slices.Contains(stops, w) {
				stops = append(stops, w)
			}
			continue
		}
		if !slices.Contains(terms, w) {
			terms = append(terms, w)
		}
	}
	if len(terms) == 0 {
		terms = stops
	}
	if len(terms) > maxQueryTerms {
		terms = terms[:maxQueryTerms]
	}
	for i, t := range terms {
		terms[i] = `"` + t + `"` // words hold no quotes, so this cannot break out
	}
	return strings.Join(terms, " OR ")
}

// searchStopWords are English words too common to rank by.
var searchStopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be
		because been before being below between both but by can could did do does doing down during
		each few for from further had has have having he her here hers herself him himself his how i
		if in into is it its itself just me more most my myself no nor not of off on once only or
		other our ours ourselves out over own same she should so some such than that the their theirs
		them themselves then there these they this those through to too under until up very was we
		were what when where which while who whom why will with would you your yours yourself
		yourselves`) {
		m[w] = true
	}
	return m
}()
