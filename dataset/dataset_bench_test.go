package dataset

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// benchDataset is a dataset of n records of about 4 KB in the format of
// name's extension.
func benchDataset(b *testing.B, name string, n int) []byte {
	b.Helper()
	ctx := strings.Repeat("The tower was built in 1889 and stands 330 metres tall. ", 20)
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	switch {
	case strings.HasSuffix(name, ".csv"):
		_ = w.Write([]string{"id", "question", "answer", "contexts"})
	case strings.HasSuffix(name, ".json"):
		buf.WriteString("[\n")
	}
	for i := range n {
		id := "s" + strconv.Itoa(i)
		contexts := []string{ctx, ctx[:len(ctx)/2], ctx}
		switch {
		case strings.HasSuffix(name, ".csv"):
			c, _ := json.Marshal(contexts)
			_ = w.Write([]string{id, "How tall is it?", ctx[:300], string(c)})
		default:
			line, _ := json.Marshal(map[string]any{"id": id, "question": "How tall is it?", "answer": ctx[:300], "contexts": contexts})
			if strings.HasSuffix(name, ".json") && i > 0 {
				buf.WriteString(",\n")
			}
			buf.Write(line)
			buf.WriteByte('\n')
		}
	}
	w.Flush()
	if strings.HasSuffix(name, ".json") {
		buf.WriteString("]\n")
	}
	return buf.Bytes()
}

// BenchmarkReadDataset reads 2,000 records (about 6 MB) whole with Read
// and one at a time with Records, and reports the heap live after the
// last record beyond the input held in memory (heap-MB): Read's grows with
// the dataset, Records' is about one record and the IDs seen.
func BenchmarkReadDataset(b *testing.B) {
	const n = 2000
	for _, name := range []string{"d.jsonl", "d.json", "d.csv"} {
		data := benchDataset(b, name, n)
		heap := func() float64 {
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			return float64(ms.HeapAlloc) / (1 << 20)
		}
		b.Run("Read/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			base, live := heap(), 0.0
			for b.Loop() {
				recs, err := Read(name, bytes.NewReader(data))
				if err != nil || len(recs) != n {
					b.Fatal(err, len(recs))
				}
				live = max(live, heap())
				runtime.KeepAlive(recs)
			}
			b.ReportMetric(live-base, "heap-MB")
		})
		b.Run("Records/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			base, live := heap(), 0.0
			for b.Loop() {
				k := 0
				for _, err := range Records(name, bytes.NewReader(data)) {
					if err != nil {
						b.Fatal(err)
					}
					if k++; k == n {
						live = max(live, heap())
					}
				}
			}
			b.ReportMetric(live-base, "heap-MB")
		})
	}
}

// BenchmarkOpenAndReadAgain checks a dataset of 200 short records (the
// samples of scripts/bench-cache.sh) with Open and reads it again twice,
// as bench does: the check pass, the records handed to the judges, the
// texts of the samples report.html shows.
func BenchmarkOpenAndReadAgain(b *testing.B) {
	var buf bytes.Buffer
	for i := 1; i <= 200; i++ {
		n := strconv.Itoa(i)
		buf.WriteString(`{"id":"s` + n + `","question":"What does study ` + n + ` find about sleep and memory?","answer":"Study ` + n +
			` finds that sleep helps memory. Participants slept eight hours.","contexts":["Study ` + n + ` reports that sleep consolidates memory in adults."]}` + "\n")
	}
	path := filepath.Join(b.TempDir(), "samples.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		d, err := Open(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		for range 2 {
			for _, err := range d.Records() {
				if err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}
