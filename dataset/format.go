package dataset

import (
	"path/filepath"
	"strings"
)

// Format is how a dataset is written. The zero value is no format: where
// an API takes one, it picks it from the file name (see [FormatOf]).
type Format string

// The dataset formats [Read] and [Records] take.
const (
	// FormatJSON is a JSON array of records, one record (an object, which
	// may span several lines), or JSON Lines: which of the three is told
	// from the content. It is the format of standard input.
	FormatJSON Format = "json"
	// FormatJSONL is JSON Lines: one object a line, blank lines skipped;
	// a file that starts with "[" is a JSON array of records.
	FormatJSONL Format = "jsonl"
	// FormatCSV is CSV with a header row.
	FormatCSV Format = "csv"
	// FormatTSV is CSV whose cells are separated by tabs, with a header
	// row: what pandas' to_csv(sep="\t") and a spreadsheet's "tab
	// delimited text" write. Its header, cells and quotes are read as
	// CSV's.
	FormatTSV Format = "tsv"
)

// FormatOf picks a dataset's format from its file name's extension, in any
// case: ".csv" is CSV, ".tsv" TSV, ".json" JSON, and anything else JSON
// Lines.
func FormatOf(name string) Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv":
		return FormatCSV
	case ".tsv":
		return FormatTSV
	case ".json":
		return FormatJSON
	}
	return FormatJSONL
}
