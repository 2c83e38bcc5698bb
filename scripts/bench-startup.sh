#!/usr/bin/env bash
# Start-up cost: `assay --help` run RUNS times (default 50). Prints the
# median and best wall time of a run, and the median time spent in
# package initialisation (GODEBUG=inittrace=1, summed over packages) with
# the five packages that take longest. Goal: --help at most 12 ms on an
# idle machine.
#
#   bash scripts/bench-startup.sh
#   ASSAY=/tmp/assay-old bash scripts/bench-startup.sh   # another build, as it is
set -euo pipefail
runs=${RUNS:-50}
assay=${ASSAY:-bin/assay}
if [ -z "${ASSAY:-}" ]; then CGO_ENABLED=0 go build -trimpath -o bin/assay ./cmd/assay; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
median() { sort -n | awk '{ x[NR] = $1 } END { print NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2 }'; }
"$assay" --help >/dev/null # page the binary in
for _ in $(seq 1 "$runs"); do
  start=$EPOCHREALTIME
  "$assay" --help >/dev/null
  end=$EPOCHREALTIME
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", (e - s) * 1000 }' >>"$work/wall"
  GODEBUG=inittrace=1 "$assay" --help 2>"$work/trace" >/dev/null
  awk '/^init / { s += $5 } END { printf "%.3f\n", s }' "$work/trace" >>"$work/init"
  awk '/^init / { print $2, $5 }' "$work/trace" >>"$work/pkgs"
done
printf '%s --help, %d runs: wall median %.1f ms (best %.1f ms); package init median %.1f ms\n' "$assay" "$runs" \
  "$(median <"$work/wall")" "$(sort -n "$work/wall" | head -1)" "$(median <"$work/init")"
echo "slowest package inits (mean ms):"
awk -v n="$runs" '{ t[$1] += $2 } END { for (p in t) printf "  %6.2f %s\n", t[p] / n, p }' "$work/pkgs" | sort -rn | head -5
ls -l "$assay" | awk '{ printf "binary: %.1f MB\n", $5 / 1e6 }'
