package web_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/web"
)

// doc renders a corpus file with front matter.
func doc(url, title, body string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(fmt.Sprintf("---\nurl: %s\ntitle: %s\n---\n%s\n", url, title, body))}
}

// searchCorpus is a small hand-written corpus: one document per topic, and
// near-misses that mention the topic words in passing.
func searchCorpus() fstest.MapFS {
	return fstest.MapFS{
		"energy/heat-pumps.md": {Data: []byte(`---
url: https://www.energy.example.gov/heat-pumps
title: Heat pump efficiency in cold climates
author: Office of Energy Efficiency
published: 2024-02-10
references: 18
---
Air-source heat pumps keep a coefficient of performance above 2 at -15 °C.
Cold-climate heat pumps use variable-speed compressors and vapour injection.
`)},
		"energy/furnaces.md": doc("https://blog.example.com/furnaces", "Gas furnaces compared",
			"A gas furnace burns fuel. Some owners add a heat pump later, but this page is about furnaces and their efficiency ratings (AFUE)."),
		"energy/heat-pump-review.html": {Data: []byte(`<html><head><title>Heat pump reviews</title>
<link rel="canonical" href="https://reviews.example.com/heat-pumps"><meta name="author" content="R. Viewer"></head>
<body><p>We tested ten heat pumps for efficiency in cold weather.</p></body></html>`)},
		"uni/heat-pump-study.md": doc("https://eng.example.edu/heat-pump-study", "A field study",
			"Measured heat pump efficiency in 40 cold climate homes over two winters."),
		"health/sleep.md": doc("https://health.example.org/sleep", "Sleep and memory",
			"Sleep consolidates memory. Adults need seven to nine hours."),
		"health/coffee.txt": doc("https://health.example.org/coffee", "Coffee and sleep",
			"Caffeine late in the day delays sleep onset."),
		"space/mars.md": doc("https://space.example.net/mars", "Mars rovers",
			"Rovers on Mars use radioisotope power, not solar, for long missions."),
		"README.md":    {Data: []byte("# About this corpus\n\nNo front matter here.\n")},
		"notes.pdf":    {Data: []byte("%PDF-1.7")},
		".git/HEAD.md": doc("https://example.com/hidden", "Hidden", "heat pump"),
	}
}

func openLocal(t testing.TB, fsys fstest.MapFS) *web.Local {
	t.Helper()
	l, err := web.OpenLocal(context.Background(), "test-corpus", fsys, filepath.Join(t.TempDir(), "idx", "corpus.db"))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, l.Close()) })
	return l
}

func urls(rs []web.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.URL
	}
	return out
}

func TestLocalIndexIsIncremental(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fsys := searchCorpus()
	dbPath := filepath.Join(t.TempDir(), "corpus.db")

	l, err := web.OpenLocal(ctx, "c", fsys, dbPath)
	require.NoError(t, err)
	st := l.Stats()
	require.Equal(t, 8, st.Files, "the .md, .txt and .html files, not .pdf or hidden ones")
	require.Equal(t, 7, st.Indexed)
	require.Zero(t, st.Unchanged)
	require.Zero(t, st.Removed)
	require.Len(t, st.Skipped, 1)
	require.Contains(t, st.Skipped[0], "README.md: no front matter")
	require.NoError(t, l.Close())

	t.Run("reopening re-indexes nothing", func(t *testing.T) {
		l, err := web.OpenLocal(ctx, "c", fsys, dbPath)
		require.NoError(t, err)
		defer func() { require.NoError(t, l.Close()) }()
		st := l.Stats()
		require.Zero(t, st.Indexed)
		require.Equal(t, 7, st.Unchanged)
	})

	l, err = web.OpenLocal(ctx, "c", fsys, dbPath)
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Close()) }()

	fsys["space/mars.md"] = doc("https://space.example.net/mars", "Mars rovers", "Perseverance carries a helicopter.")
	st, err = l.Refresh(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, st.Indexed, "only the changed file")
	require.Equal(t, 6, st.Unchanged)
	rs, err := l.Search(ctx, web.Query{Text: "helicopter"})
	require.NoError(t, err)
	require.Equal(t, []string{"https://space.example.net/mars"}, urls(rs))
	rs, err = l.Search(ctx, web.Query{Text: "radioisotope"})
	require.NoError(t, err)
	require.Empty(t, rs, "the old text is gone from the index")

	delete(fsys, "health/coffee.txt")
	st, err = l.Refresh(ctx)
	require.NoError(t, err)
	require.Equal(t, web.Stats{Files: 7, Unchanged: 6, Removed: 1, Skipped: st.Skipped}, st)
	rs, err = l.Search(ctx, web.Query{Text: "caffeine"})
	require.NoError(t, err)
	require.Empty(t, rs)

	fsys["health/coffee.txt"] = doc("https://health.example.org/coffee", "Coffee", "Caffeine again.")
	st, err = l.Refresh(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, st.Indexed)
	require.Equal(t, st, l.Stats())
}

func TestLocalBadFrontMatter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fsys := searchCorpus()
	fsys["bad/one.md"] = &fstest.MapFile{Data: []byte("---\nurl: https://example.org/one\npublished: yesterday\n---\nx")}
	fsys["bad/two.md"] = &fstest.MapFile{Data: []byte("---\ntitle: no url\n---\nx")}
	dbPath := filepath.Join(t.TempDir(), "corpus.db")

	_, err := web.OpenLocal(ctx, "c", fsys, dbPath)
	require.Error(t, err)
	var ie *eval.InputError
	require.ErrorAs(t, err, &ie)
	require.Contains(t, err.Error(), "bad/one.md:3:12: published:")
	require.Contains(t, err.Error(), "bad/two.md:1: url:")

	// The good files were indexed all the same: fixing the bad ones only
	// indexes them.
	fsys["bad/one.md"] = doc("https://example.org/one", "One", "x")
	fsys["bad/two.md"] = doc("https://example.org/two", "Two", "x")
	l, err := web.OpenLocal(ctx, "c", fsys, dbPath)
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Close()) }()
	require.Equal(t, 2, l.Stats().Indexed)
	require.Equal(t, 7, l.Stats().Unchanged)
}

func TestLocalSearch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := openLocal(t, searchCorpus())

	tests := map[string]struct {
		q web.Query
		// want is the expected order of URLs; a nil want checks only that
		// the search does not fail.
		want []string
	}{
		"the on-topic document ranks first": {
			q: web.Query{Text: "heat pump efficiency in cold climates", Limit: 3},
			want: []string{
				"https://www.energy.example.gov/heat-pumps",
				"https://eng.example.edu/heat-pump-study",
				"https://reviews.example.com/heat-pumps",
			},
		},
		"stemming matches other word forms": {
			q:    web.Query{Text: "rover missions"},
			want: []string{"https://space.example.net/mars"},
		},
		"exclude a registrable domain drops its subdomains": {
			q: web.Query{Text: "heat pump efficiency cold", ExcludeDomains: []string{"example.com"}},
			want: []string{
				"https://www.energy.example.gov/heat-pumps",
				"https://eng.example.edu/heat-pump-study",
			},
		},
		"exclude a host keeps its siblings": {
			q: web.Query{Text: "heat pump efficiency cold", ExcludeDomains: []string{"https://reviews.example.com/x", "eng.example.edu"}},
			want: []string{
				"https://www.energy.example.gov/heat-pumps",
				"https://blog.example.com/furnaces",
			},
		},
		"prefer .edu moves it first and keeps the rest in order": {
			q: web.Query{Text: "heat pump efficiency cold", PreferDomains: []string{".edu"}},
			want: []string{
				"https://eng.example.edu/heat-pump-study",
				"https://www.energy.example.gov/heat-pumps",
				"https://reviews.example.com/heat-pumps",
				"https://blog.example.com/furnaces",
			},
		},
		"prefer then limit": {
			q:    web.Query{Text: "sleep", PreferDomains: []string{"example.org"}, Limit: 1},
			want: []string{"https://health.example.org/coffee"}, // "sleep" in its title
		},
		"stop words alone still search": {
			q:    web.Query{Text: "the"},
			want: []string{"https://health.example.org/coffee"},
		},
		"no match":                   {q: web.Query{Text: "zeppelin"}, want: []string{}},
		"empty query":                {q: web.Query{Text: ""}, want: []string{}},
		"only punctuation":           {q: web.Query{Text: `" * ( ) : ^ - + { } [ ] . ,`}, want: []string{}},
		"fts operators as words":     {q: web.Query{Text: `"AND OR NOT * ( ) : ^ -`}},
		"fts operators around words": {q: web.Query{Text: `sleep AND NOT ("memory" OR title:coffee*) ^caffeine NEAR(x y) -`}},
		"unbalanced quotes":          {q: web.Query{Text: `"heat pump`}},
		"column filter syntax":       {q: web.Query{Text: `body:heat {title body}: pump`}},
		"sql-looking text":           {q: web.Query{Text: `'); DROP TABLE docs; --`}, want: []string{}},
		"non-latin text":             {q: web.Query{Text: "тепловой насос 热泵 ✓"}, want: []string{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rs, err := l.Search(ctx, tc.q)
			require.NoError(t, err)
			if tc.want != nil {
				require.Equal(t, tc.want, append([]string{}, urls(rs)...))
			}
		})
	}

	t.Run("results carry metadata, text and a snippet", func(t *testing.T) {
		t.Parallel()
		rs, err := l.Search(ctx, web.Query{Text: "vapour injection"})
		require.NoError(t, err)
		require.Len(t, rs, 1)
		r := rs[0]
		require.Equal(t, "Heat pump efficiency in cold climates", r.Title)
		require.Equal(t, "Office of Energy Efficiency", r.Author)
		require.True(t, r.AuthorKnown)
		require.Equal(t, time.Date(2024, 2, 10, 0, 0, 0, 0, time.UTC), r.Published)
		require.Equal(t, 18, r.References)
		require.Equal(t, "local", r.Backend)
		require.Positive(t, r.Score)
		require.Contains(t, r.Text, "Cold-climate heat pumps use variable-speed compressors")
		require.Contains(t, r.Snippet, "vapour injection")
	})

	t.Run("html documents are searchable by their text", func(t *testing.T) {
		t.Parallel()
		rs, err := l.Search(ctx, web.Query{Text: "tested ten"})
		require.NoError(t, err)
		require.Len(t, rs, 1)
		require.Equal(t, "Heat pump reviews", rs[0].Title)
		require.Equal(t, "R. Viewer", rs[0].Author)
		require.Equal(t, "We tested ten heat pumps for efficiency in cold weather.", rs[0].Text)
	})

	t.Run("scores descend and ties order by path", func(t *testing.T) {
		t.Parallel()
		rs, err := l.Search(ctx, web.Query{Text: "heat pump sleep memory rovers", Limit: 50})
		require.NoError(t, err)
		require.Len(t, rs, 7)
		for i := 1; i < len(rs); i++ {
			require.GreaterOrEqual(t, rs[i-1].Score, rs[i].Score)
		}
		again, err := l.Search(ctx, web.Query{Text: "heat pump sleep memory rovers", Limit: 50})
		require.NoError(t, err)
		require.Equal(t, rs, again)
	})

	t.Run("a cancelled context fails", func(t *testing.T) {
		t.Parallel()
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := l.Search(cctx, web.Query{Text: "heat"})
		require.ErrorIs(t, err, context.Canceled)
	})
}

func TestLocalSearchUnspacedScripts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Chinese, Japanese and Thai are written without spaces between words:
	// a query word is found inside a longer run of text.
	dir := t.TempDir()
	for name, d := range map[string]*fstest.MapFile{
		"zh.md": doc("https://zh.example.cn/heat-pump", "热泵在寒冷气候中的性能",
			"空气源热泵在零下十五度时，COP仍然高于2。低温热泵采用变频压缩机和喷气增焓技术。"),
		"ja.md": doc("https://ja.example.jp/heat-pump", "寒冷地のヒートポンプ",
			"ヒートポンプは寒冷地でも暖房に使えます。外気温がマイナス十五度でも効率が落ちにくい機種があります。"),
		"th.md": doc("https://th.example.th/heat-pump", "ปั๊มความร้อนในสภาพอากาศหนาว",
			"ปั๊มความร้อนยังทำงานได้ดีที่อุณหภูมิติดลบ"),
		"en.md": doc("https://en.example.org/heat-pump", "Heat pumps in cold climates",
			"Air-source heat pumps keep a coefficient of performance (COP) above 2 at -15 °C."),
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), d.Data, 0o600))
	}
	l, err := web.OpenLocal(ctx, dir, nil, filepath.Join(t.TempDir(), "index.db"))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, l.Close()) })
	const (
		zh = "https://zh.example.cn/heat-pump"
		ja = "https://ja.example.jp/heat-pump"
		th = "https://th.example.th/heat-pump"
		en = "https://en.example.org/heat-pump"
	)

	tests := map[string]struct {
		q    string
		want []string
	}{
		"a Chinese query finds the Chinese document":       {q: "热泵性能", want: []string{zh}},
		"a Chinese word inside a sentence":                 {q: "压缩机", want: []string{zh}},
		"a Japanese query of kanji and kana":               {q: "寒冷地の暖房", want: []string{ja, zh}}, // 寒冷 is in both
		"a katakana word":                                  {q: "ヒートポンプ", want: []string{ja}},
		"a Thai query":                                     {q: "ปั๊มความร้อน", want: []string{th}},
		"a mixed query ranks the document with both first": {q: "COP 热泵", want: []string{zh, en}},
		"an English query finds only the English document": {q: "heat pump cold climates", want: []string{en}},
		"a Chinese query with no word of the corpus":       {q: "咖啡", want: []string{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rs, err := l.Search(ctx, web.Query{Text: tc.q})
			require.NoError(t, err)
			require.Equal(t, tc.want, append([]string{}, urls(rs)...))
		})
	}
}

func TestLocalTiesOrderByPath(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{}
	for _, p := range []string{"c.md", "a.md", "b.md"} {
		fsys[p] = doc("https://example.org/"+p, "Same", "identical words here")
	}
	l := openLocal(t, fsys)
	rs, err := l.Search(context.Background(), web.Query{Text: "identical"})
	require.NoError(t, err)
	require.Equal(t, []string{"https://example.org/a.md", "https://example.org/b.md", "https://example.org/c.md"}, urls(rs))
}

func TestLocalConcurrentSearch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fsys := searchCorpus()
	l := openLocal(t, fsys)
	want, err := l.Search(ctx, web.Query{Text: "heat pump efficiency", Limit: 3})
	require.NoError(t, err)
	require.Len(t, want, 3)

	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 16 {
		wg.Go(func() {
			for range 4 {
				rs, err := l.Search(ctx, web.Query{Text: "heat pump efficiency", Limit: 3})
				if err != nil {
					errs <- err
					return
				}
				if len(rs) != 3 || rs[0].URL != want[0].URL {
					errs <- fmt.Errorf("goroutine %d: got %v", i, urls(rs))
					return
				}
			}
		})
	}
	// A refresh with nothing changed runs alongside the searches.
	wg.Go(func() {
		if _, err := l.Refresh(ctx); err != nil {
			errs <- err
		}
		_ = l.Stats()
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestOpenLocalFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.md"), doc("https://example.org/a", "A", "alpha words").Data, 0o600))
	l, err := web.OpenLocal(context.Background(), dir, nil, filepath.Join(t.TempDir(), "i.db"))
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Close()) }()
	rs, err := l.Search(context.Background(), web.Query{Text: "alpha"})
	require.NoError(t, err)
	require.Equal(t, []string{"https://example.org/a"}, urls(rs))

	_, err = web.OpenLocal(context.Background(), filepath.Join(dir, "missing"), nil, filepath.Join(t.TempDir(), "i.db"))
	require.Error(t, err)
}

func TestLocalSharedIndexFile(t *testing.T) {
	t.Parallel()
	// Several processes (here: Locals) opening and refreshing one index
	// file at once wait for each other instead of failing.
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "shared.db")
	fsys := benchCorpus(10)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			l, err := web.OpenLocal(ctx, "shared", fsys, dbPath)
			if err != nil {
				errs <- err
				return
			}
			defer func() { _ = l.Close() }()
			if _, err := l.Search(ctx, web.Query{Text: "river flood"}); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	l, err := web.OpenLocal(ctx, "shared", fsys, dbPath)
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Close()) }()
	require.Equal(t, 10, l.Stats().Unchanged)
}

func TestLocalRebuildsAnOldSchema(t *testing.T) {
	t.Parallel()
	for name, version := range map[string]int{
		"another program's schema":               99,
		"an index from before the grams columns": 1,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dbPath := filepath.Join(t.TempDir(), "old.db")
			db, err := sql.Open("sqlite", dbPath)
			require.NoError(t, err)
			_, err = db.ExecContext(t.Context(), fmt.Sprintf(`CREATE TABLE docs (path TEXT); PRAGMA user_version = %d`, version))
			require.NoError(t, err)
			require.NoError(t, db.Close())

			l, err := web.OpenLocal(ctx, "c", searchCorpus(), dbPath)
			require.NoError(t, err)
			defer func() { require.NoError(t, l.Close()) }()
			require.Equal(t, 7, l.Stats().Indexed)
		})
	}
}

func TestOpenLocalRejectsAForeignFile(t *testing.T) {
	t.Parallel()
	dbPath := filepath.Join(t.TempDir(), "not-a-db.db")
	require.NoError(t, os.WriteFile(dbPath, []byte(strings.Repeat("not sqlite ", 100)), 0o600))
	_, err := web.OpenLocal(context.Background(), "c", searchCorpus(), dbPath)
	require.ErrorContains(t, err, dbPath)
	require.ErrorContains(t, err, "delete it to rebuild")
}

func TestDefaultIndexPath(t *testing.T) { // not parallel: sets the environment
	dir := t.TempDir()
	t.Setenv("ASSAY_CACHE_DIR", dir)
	a, err := web.DefaultIndexPath("corpus", nil)
	require.NoError(t, err)
	require.Equal(t, dir, filepath.Dir(a))
	require.True(t, strings.HasPrefix(filepath.Base(a), "corpus-"))
	abs, err := filepath.Abs("corpus")
	require.NoError(t, err)
	b, err := web.DefaultIndexPath(abs, nil)
	require.NoError(t, err)
	require.Equal(t, a, b, "relative and absolute paths of one folder share an index")
	c, err := web.DefaultIndexPath("embedded:fixtures", fstest.MapFS{})
	require.NoError(t, err)
	require.NotEqual(t, a, c)
}

// benchCorpus returns n generated documents on overlapping topics.
func benchCorpus(n int) fstest.MapFS {
	topics := []string{"heat pump efficiency", "sleep and memory", "mars rover power", "coffee caffeine", "solar panel output", "river flood risk", "vaccine trial design"}
	filler := strings.Repeat("Background text that pads the document with ordinary words about methods, data and results. ", 40)
	fsys := fstest.MapFS{}
	for i := range n {
		t := topics[i%len(topics)]
		fsys[fmt.Sprintf("d%03d.md", i)] = doc(fmt.Sprintf("https://site%d.example.org/%d", i%9, i), fmt.Sprintf("On %s, part %d", t, i),
			fmt.Sprintf("%s\n\nThis document %d discusses %s in detail. %s", filler, i, t, filler))
	}
	return fsys
}

func BenchmarkLocalSearch(b *testing.B) {
	ctx := context.Background()
	l := openLocal(b, benchCorpus(50))
	q := web.Query{Text: "heat pump efficiency in cold climates", Limit: 5, PreferDomains: []string{"site1.example.org"}}
	for b.Loop() {
		rs, err := l.Search(ctx, q)
		if err != nil || len(rs) != 5 {
			b.Fatal(err, len(rs))
		}
	}
}

func BenchmarkLocalIndexCold(b *testing.B) {
	ctx := context.Background()
	fsys := benchCorpus(50)
	dir := b.TempDir()
	i := 0
	for b.Loop() {
		i++
		l, err := web.OpenLocal(ctx, "bench", fsys, filepath.Join(dir, fmt.Sprintf("%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		if l.Stats().Indexed != 50 {
			b.Fatal(l.Stats())
		}
		_ = l.Close()
	}
}

func ExampleLocal_Search() {
	ctx := context.Background()
	corpus := fstest.MapFS{
		"pumps.md":  doc("https://energy.example.gov/heat-pumps", "Heat pumps in cold climates", "Cold-climate heat pumps keep working at -15 °C."),
		"review.md": doc("https://reviews.example.com/heat-pumps", "Heat pump reviews", "We tested ten heat pumps in a cold winter."),
		"bread.md":  doc("https://baking.example.com/bread", "Sourdough", "Keep the starter warm."),
	}
	dir, err := os.MkdirTemp("", "corpus")
	if err != nil {
		panic(err)
	}
	defer func() { _ = os.RemoveAll(dir) }()

	idx, err := web.OpenLocal(ctx, "example", corpus, filepath.Join(dir, "index.db"))
	if err != nil {
		panic(err)
	}
	defer func() { _ = idx.Close() }()
	fmt.Println("indexed:", idx.Stats().Indexed)

	res, err := idx.Search(ctx, web.Query{Text: "heat pumps (cold climates)", ExcludeDomains: []string{"reviews.example.com"}})
	if err != nil {
		panic(err)
	}
	for _, r := range res {
		fmt.Println(r.Title, "|", r.URL)
	}
	// Output:
	// indexed: 3
	// Heat pumps in cold climates | https://energy.example.gov/heat-pumps
}

// FuzzLocalSearch checks that no query text makes the search fail: every
// word is quoted, so FTS5 syntax in user text is only text.
func FuzzLocalSearch(f *testing.F) {
	for _, s := range []string{"heat pump", `"AND OR NOT * ( ) : ^ -`, `title:x* NEAR(a b, 3) {body}: "`, "\x00\xff", "ünïcödé 热泵", strings.Repeat("word ", 100)} {
		f.Add(s)
	}
	l := openLocal(f, searchCorpus())
	f.Fuzz(func(t *testing.T, text string) {
		if _, err := l.Search(context.Background(), web.Query{Text: text}); err != nil {
			t.Fatalf("Search(%q): %v", text, err)
		}
	})
}

// A skipped file is named on the terminal as it is: the control and
// bidirectional formatting characters of its name are written as escapes.
func TestLocalSkippedNamesAreEscaped(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		name string
		file *fstest.MapFile
		want string
	}{
		"an escape sequence in a name with no front matter": {
			name: "evil\x1b[31mred.md", file: &fstest.MapFile{Data: []byte("no front matter\n")},
			want: `evil\x1b[31mred.md: no front matter with a url; not indexed`,
		},
		"a right-to-left override in a name": {
			name: "report\u202edm.txt", file: &fstest.MapFile{Data: []byte("plain\n")},
			want: `report\u202edm.txt: no front matter with a url; not indexed`,
		},
		"a line break in the name of a file too large": {
			name: "big\nfake line.md", file: &fstest.MapFile{Data: make([]byte, 8<<20+1)},
			want: `big\nfake line.md: larger than 8 MiB`,
		},
		"a plain name is as it was": {
			name: "notes/plain.md", file: &fstest.MapFile{Data: []byte("# no front matter\n")},
			want: "notes/plain.md: no front matter with a url; not indexed",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fsys := fstest.MapFS{
				"ok.md": doc("https://example.org/ok", "OK", "heat pumps"),
				tc.name: tc.file,
			}
			l, err := web.OpenLocal(context.Background(), "c", fsys, filepath.Join(t.TempDir(), "corpus.db"))
			require.NoError(t, err)
			defer func() { require.NoError(t, l.Close()) }()
			require.Equal(t, []string{tc.want}, l.Stats().Skipped)
		})
	}
}

// Corpus files that give one document's URL (a copy beside its original,
// one URL written another way) are one result, the best ranked, and take
// one place of the limit.
func TestLocalOneResultPerDocument(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		files fstest.MapFS
		limit int
		want  []string // URLs, best first
		title string   // of the first result
	}{
		"a copy of a file": {
			files: fstest.MapFS{
				"pumps.md":      doc("https://a.example.org/pumps", "Heat pumps", "heat pumps in cold climates"),
				"pumps copy.md": doc("https://a.example.org/pumps", "Heat pumps", "heat pumps in cold climates"),
				"furnace.md":    doc("https://b.example.org/furnace", "Furnaces", "furnaces heat homes in cold climates"),
			},
			limit: 2, want: []string{"https://a.example.org/pumps", "https://b.example.org/furnace"}, title: "Heat pumps",
		},
		"one URL written with another case, default port and a fragment": {
			files: fstest.MapFS{
				"a.md": doc("https://A.example.org:443/pumps#intro", "Pumps, the draft", "heat pumps"),
				"b.md": doc("https://a.example.org/pumps", "Heat pumps, heat pumps", "heat pumps heat pumps"),
				"c.md": doc("https://c.example.org/other", "Other", "heat"),
			},
			limit: 5, want: []string{"https://a.example.org/pumps", "https://c.example.org/other"}, title: "Heat pumps, heat pumps",
		},
		"other paths are other documents": {
			files: fstest.MapFS{
				"a.md": doc("https://a.example.org/pumps", "Pumps", "heat pumps"),
				"b.md": doc("https://a.example.org/Pumps", "Pumps", "heat pumps"),
			},
			limit: 5, want: []string{"https://a.example.org/pumps", "https://a.example.org/Pumps"}, title: "Pumps",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := openLocal(t, tc.files)
			rs, err := l.Search(context.Background(), web.Query{Text: "heat pumps cold", Limit: tc.limit})
			require.NoError(t, err)
			require.Equal(t, tc.want, urls(rs))
			require.Equal(t, tc.title, rs[0].Title)
		})
	}
}

// growingFS is a corpus of one file, grow.md, whose size says 10 bytes
// and whose read gives 64 MiB: a file that grows while it is read.
type growingFS struct{ fstest.MapFS }

func (g growingFS) Open(name string) (fs.File, error) {
	if name != "grow.md" {
		return g.MapFS.Open(name)
	}
	return &growingFile{left: 64 << 20}, nil
}

type growingFile struct{ left int }

func (f *growingFile) Stat() (fs.FileInfo, error) {
	return fstest.MapFS{"grow.md": {Data: make([]byte, 10)}}.Stat("grow.md")
}

func (f *growingFile) Read(p []byte) (int, error) {
	if f.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), f.left)
	clear(p[:n])
	f.left -= n
	return n, nil
}

func (f *growingFile) Close() error { return nil }

// A corpus file that is not a regular one (a named pipe would block the
// read for ever, a device such as /dev/zero never ends) or that grows past
// the limit while it is read is skipped with the reason, and the rest of
// the corpus is indexed.
func TestLocalSkipsFilesThatAreNotRegularOrGrow(t *testing.T) {
	t.Parallel()
	good := doc("https://example.org/x", "X", "heat pumps")
	tests := map[string]struct {
		fsys fs.FS
		want string
	}{
		"a named pipe": {
			fsys: fstest.MapFS{"pipe.md": {Data: good.Data, Mode: fs.ModeNamedPipe}},
			want: "pipe.md: not a regular file (a named pipe)",
		},
		"a character device": {
			fsys: fstest.MapFS{"zero.md": {Data: good.Data, Mode: fs.ModeDevice | fs.ModeCharDevice}},
			want: "zero.md: not a regular file (a device)",
		},
		"a socket": {
			fsys: fstest.MapFS{"sock.txt": {Data: good.Data, Mode: fs.ModeSocket}},
			want: "sock.txt: not a regular file (a socket)",
		},
		"a file that grows as it is read": {
			fsys: growingFS{fstest.MapFS{"grow.md": {Data: make([]byte, 10)}}},
			want: "grow.md: larger than 8 MiB",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fsys := tc.fsys
			if m, ok := fsys.(fstest.MapFS); ok {
				m["ok.md"] = good
			} else {
				fsys.(growingFS).MapFS["ok.md"] = good
			}
			l, err := web.OpenLocal(context.Background(), "c", fsys, filepath.Join(t.TempDir(), "corpus.db"))
			require.NoError(t, err)
			defer func() { require.NoError(t, l.Close()) }()
			st := l.Stats()
			require.Equal(t, []string{tc.want}, st.Skipped)
			require.Equal(t, 1, st.Indexed)
		})
	}
}
