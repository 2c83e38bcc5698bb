// Command wordfreqgen writes heuristics/wordfreq.txt: the most frequent
// English words in the comments of the Go standard library source (BSD
// licensed), one a line, most frequent first. The list is a corpus-free
// stand-in for document frequency: a word's rank says how common it is in
// general technical English.
//
// Run from the repository root:
//
//	go run ./heuristics/internal/wordfreqgen -src "$(go env GOROOT)/src" -n 20000 > heuristics/wordfreq.txt
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

func main() {
	src := flag.String("src", "", "Go source tree to read (GOROOT/src)")
	n := flag.Int("n", 20000, "number of words to write")
	flag.Parse()
	if *src == "" {
		log.Fatal("wordfreqgen: -src is required")
	}
	counts := map[string]int{}
	err := filepath.WalkDir(*src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "vendor" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		return countComments(path, counts)
	})
	if err != nil {
		log.Fatalf("wordfreqgen: %v", err)
	}
	type wc struct {
		w string
		c int
	}
	var all []wc
	for w, c := range counts {
		all = append(all, wc{w, c})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].c != all[j].c {
			return all[i].c > all[j].c
		}
		return all[i].w < all[j].w
	})
	out := bufio.NewWriter(os.Stdout)
	defer func() {
		if err := out.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, "wordfreqgen:", err)
			os.Exit(1)
		}
	}()
	for i := 0; i < len(all) && i < *n; i++ {
		fmt.Fprintln(out, all[i].w)
	}
}

// countComments adds the words of the comments in one Go file to counts:
// runs of at least two ASCII letters, lower-case after the first, so
// CamelCase identifiers and acronyms drop out.
func countComments(path string, counts map[string]int) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile(path, -1, len(b)), b, nil, scanner.ScanComments)
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return nil
		}
		if tok != token.COMMENT {
			continue
		}
		for _, f := range strings.FieldsFunc(lit, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
			w := strings.Trim(f, "'")
			if len(w) < 2 || !isLowerWord(w) {
				continue
			}
			counts[strings.ToLower(w)]++
		}
	}
}

// isLowerWord reports whether w is ASCII letters, lower-case after the
// first: "The" counts (as "the"), "HTTPClient" and "fooBar" do not.
func isLowerWord(w string) bool {
	for i, r := range w {
		if r > unicode.MaxASCII || !unicode.IsLetter(r) || (i > 0 && unicode.IsUpper(r)) {
			return false
		}
	}
	return true
}
