#!/usr/bin/env bash
# Start-up cost: `assay --help` run RUNS times (default 50). Prints the
# median and best wall time of a run, and the median time spent in
# package initialisation (GODEBUG=inittrace=1, summed over packages) with
# the five packages that take longest. Goal: --help at most 12 ms on an
# idle machine.
#
# What a process costs to start differs between machines by more than
# the goal: on one 2-core VM a Go hello world starts in 1-2 ms, on
# another (whose page faults cost 10 us) in 8-10 ms. So each run of
# --help takes turns with two programs built here, which say where this
# machine's floor is:
#   - a Go hello world;
#   - core: a program that links only the libraries nearly every
#     command needs (cobra, goldmark with its extensions, YAML, SQLite)
#     and does nothing, so it pays their package initialisation alone.
# The last line is the cost of a first touch of a 4 KB page of memory,
# which is most of what a start pays beyond the CPU's work.
#
#   bash scripts/bench-startup.sh
#   ASSAY=/tmp/assay-old bash scripts/bench-startup.sh   # another build, as it is
set -euo pipefail
runs=${RUNS:-50}
assay=${ASSAY:-bin/assay}
if [ -z "${ASSAY:-}" ]; then CGO_ENABLED=0 go build -trimpath -o bin/assay ./cmd/assay; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/hello" "$work/core" "$work/touch"
cat >"$work/hello/main.go" <<'GO'
package main

import "os"

func main() { _, _ = os.Stdout.WriteString("hello\n") }
GO
cat >"$work/core/main.go" <<'GO'
package main

import (
	"os"

	_ "github.com/spf13/cobra"
	_ "github.com/yuin/goldmark/extension"
	_ "go.yaml.in/yaml/v3"
	_ "modernc.org/sqlite"
)

func main() { _, _ = os.Stdout.WriteString("core\n") }
GO
cat >"$work/touch/main.go" <<'GO'
package main

import (
	"fmt"
	"time"
)

// Touches 64 MB, a byte a page, and prints the time a page in us.
func main() {
	b := make([]byte, 64<<20)
	start := time.Now()
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	fmt.Printf("%.2f\n", float64(time.Since(start).Microseconds())/float64(len(b)/4096))
}
GO
# Built in this module, so that core links the versions assay links.
for p in hello core touch; do CGO_ENABLED=0 go build -trimpath -o "$work/$p/$p" "$work/$p/main.go"; done
median() { sort -n | awk '{ x[NR] = $1 } END { print NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2 }'; }
# wall FILE CMD...: appends CMD's wall time in ms to FILE.
wall() {
  local out=$1 start end
  shift
  start=$EPOCHREALTIME
  "$@" >/dev/null
  end=$EPOCHREALTIME
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", (e - s) * 1000 }' >>"$out"
}
"$assay" --help >/dev/null # page the binaries in
"$work/hello/hello" >/dev/null
"$work/core/core" >/dev/null
for _ in $(seq 1 "$runs"); do
  wall "$work/wall" "$assay" --help
  wall "$work/hello.wall" "$work/hello/hello"
  wall "$work/core.wall" "$work/core/core"
  GODEBUG=inittrace=1 "$assay" --help 2>"$work/trace" >/dev/null
  awk '/^init / { s += $5 } END { printf "%.3f\n", s }' "$work/trace" >>"$work/init"
  awk '/^init / { print $2, $5 }' "$work/trace" >>"$work/pkgs"
done
printf '%s --help, %d runs: wall median %.1f ms (best %.1f ms); package init median %.1f ms\n' "$assay" "$runs" \
  "$(median <"$work/wall")" "$(sort -n "$work/wall" | head -1)" "$(median <"$work/init")"
echo "slowest package inits (mean ms):"
awk -v n="$runs" '{ t[$1] += $2 } END { for (p in t) printf "  %6.2f %s\n", t[p] / n, p }' "$work/pkgs" | sort -rn | head -5
ls -l "$assay" | awk '{ printf "binary: %.1f MB\n", $5 / 1e6 }'
echo "this machine's floor, in turns with --help:"
printf '  a Go hello world: wall median %.1f ms\n' "$(median <"$work/hello.wall")"
printf '  core (cobra, goldmark, YAML, SQLite linked, nothing run): wall median %.1f ms\n' "$(median <"$work/core.wall")"
printf '  first touch of a 4 KB page: %s us\n' "$("$work/touch/touch")"
