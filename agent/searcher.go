package agent

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/assaylabs/assay/eval"
	"github.com/assaylabs/assay/fixtures"
	"github.com/assaylabs/assay/internal/termtext"
	"github.com/assaylabs/assay/web"
)

// EmbeddedCorpus is the name of the corpus a research job searches when
// it is given no folder: the documents embedded in the binary.
const EmbeddedCorpus = "embedded:fixtures/corpus"

// openSearcher opens the job's search backend: searxng:URL, or the local
// corpus (job.Corpus, or the embedded one), indexed under
// $ASSAY_CACHE_DIR when set. Files of a corpus folder that cannot be
// searched are named on job.Log; a folder with nothing to search is an
// input error. The returned func closes the searcher.
func openSearcher(ctx context.Context, job ResearchJob) (Searcher, func(), error) {
	if err := checkSearch(job.Search); err != nil {
		return nil, nil, err
	}
	if u, ok := strings.CutPrefix(job.Search, "searxng:"); ok {
		return &web.SearxNG{BaseURL: u}, func() {}, nil
	}
	dir, fsys := job.Corpus, fs.FS(nil)
	if dir == "" {
		sub, err := fs.Sub(fixtures.Corpus, "corpus")
		if err != nil {
			return nil, nil, err
		}
		dir, fsys = EmbeddedCorpus, sub
	}
	dbPath := ""
	if d := job.Env("ASSAY_CACHE_DIR"); d != "" {
		p, err := web.DefaultIndexPath(dir, fsys)
		if err != nil {
			return nil, nil, corpusInput(err)
		}
		dbPath = filepath.Join(d, filepath.Base(p))
	}
	l, err := web.OpenLocal(ctx, dir, fsys, dbPath)
	if err != nil && ctx.Err() != nil {
		// The run was stopped (--timeout, an interrupt) while it indexed:
		// nothing is wrong with the corpus nor its index.
		return nil, nil, fmt.Errorf("research stopped while indexing the corpus: %w", context.Cause(ctx))
	}
	if err != nil {
		return nil, nil, corpusInput(err)
	}
	if fsys == nil { // a folder of the user's, not the embedded corpus
		if err := corpusErr(dir, l.Stats()); err != nil {
			_ = l.Close()
			return nil, nil, &eval.InputError{Msg: err.Error()}
		}
		if !job.Quiet {
			for _, s := range firstFew(l.Stats().Skipped) {
				fmt.Fprintf(job.Log, "assay: --corpus %s: skipped %s\n", termtext.Visible(dir), s) // s is escaped already
			}
		}
	}
	return l, func() { _ = l.Close() }, nil
}

// corpusInput is an input error about --corpus.
func corpusInput(err error) error {
	return &eval.InputError{Field: "--corpus", Msg: err.Error(), Err: err}
}

// corpusErr says why a corpus folder has nothing to search, or returns nil.
func corpusErr(dir string, st web.Stats) error {
	if st.Indexed+st.Unchanged > 0 {
		return nil
	}
	if st.Files == 0 {
		return fmt.Errorf("--corpus %s: no Markdown, HTML or text files (.md, .markdown, .txt, .html, .htm) to search", dir)
	}
	return fmt.Errorf("--corpus %s: none of its %d file(s) can be searched (each needs front matter with a url):\n  %s",
		dir, st.Files, strings.Join(firstFew(st.Skipped), "\n  "))
}

// firstFew keeps a long list of skipped files readable.
func firstFew(skipped []string) []string {
	const n = 10
	if len(skipped) <= n {
		return skipped
	}
	return append(slices.Clone(skipped[:n]), fmt.Sprintf("... and %d more", len(skipped)-n))
}
