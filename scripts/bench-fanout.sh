#!/usr/bin/env bash
# Whole-process fan-out benchmark: `assay judge` from start to exit over 200
# samples x 3 judges (faithfulness: 2 calls, context_precision: 1,
# source_relevance: 1 per source) = 800 model calls at --concurrency
# CONCURRENCY (32), against fakellm answering every call after 50 ms.
# Ideal: 800 x 50 ms / 32 = 1.25 s. Each run also times bareclient, a bare
# net/http client making the same 800 calls with no other work: the floor
# this machine and server allow, so what assay takes beyond it is assay's
# own; and `assay bench` making the same calls into a run folder (goal:
# within 2% of judge). Prints the wall time of each run and its ratio to
# the ideal, then the medians.
#
#   bash scripts/bench-fanout.sh
#   RUNS=10 CONCURRENCY=128 bash scripts/bench-fanout.sh
set -euo pipefail
runs=${RUNS:-3}
conc=${CONCURRENCY:-32}
ideal=$(awk -v c="$conc" 'BEGIN { printf "%.4f", 800 * 0.05 / c }')
port=${PORT:-18089}
CGO_ENABLED=0 go build -trimpath -o bin/assay ./cmd/assay
go build -o bin/fakellm ./internal/llmtest/fakellm
CGO_ENABLED=0 go build -trimpath -o bin/bareclient ./internal/llmtest/bareclient
data=$(mktemp -d)
for i in $(seq 1 200); do
  printf '{"id":"s%d","question":"What does study %d find about sleep and memory?","answer":"Study %d finds that sleep helps memory. Participants slept eight hours.","contexts":["Study %d reports that sleep consolidates memory in adults."]}\n' "$i" "$i" "$i" "$i"
done >"$data/samples.jsonl"
bin/fakellm -addr "127.0.0.1:$port" -latency 50ms 2>/dev/null &
pid=$!
trap 'kill $pid; rm -rf "$data"' EXIT
for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
export OPENAI_BASE_URL="http://127.0.0.1:$port/v1"
# What bench keeps (the run store) stays under $data.
export HOME="$data/home" XDG_CACHE_HOME="$data/home/.cache" XDG_DATA_HOME="$data/home/.local/share"
# timed NAME CMD...: runs CMD, appends "NAME seconds ratio" to the runs file.
timed() {
  local name=$1 start end
  shift
  start=$EPOCHREALTIME
  "$@"
  end=$EPOCHREALTIME
  awk -v s="$start" -v e="$end" -v n="$name" -v i="$ideal" 'BEGIN { t = e - s; printf "%s %.3f %.3f\n", n, t, t / i }' >>"$data/runs"
}
for r in $(seq 1 "$runs"); do
  timed floor bin/bareclient -calls 800 -concurrency "$conc"
  timed assay bin/assay judge --llm openai:fake --no-cache --concurrency "$conc" \
    --metric faithfulness,context_precision,source_relevance --format json "$data/samples.jsonl" >/dev/null 2>"$data/err"
  tail -1 "$data/err"
  timed bench bin/assay bench -q --llm openai:fake --no-cache --concurrency "$conc" \
    --metric faithfulness,context_precision,source_relevance --out "$data/run-$r" "$data/samples.jsonl" >/dev/null 2>"$data/err"
  tail -3 "$data/runs" | awk -v r="$r" -v i="$ideal" '{ printf "run %d, %s: %s s, %sx ideal (%s s)\n", r, $1, $2, $3, i }'
done
# The medians, and how many assay runs were within 10% of the ideal.
median() { sort -n | awk '{ x[NR] = $1 } END { print NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2 }'; }
floor=$(awk '$1 == "floor" { print $3 }' "$data/runs" | median)
assay=$(awk '$1 == "assay" { print $3 }' "$data/runs" | median)
within=$(awk '$1 == "assay" && $3 <= 1.10 { n++ } END { print n + 0 }' "$data/runs")
bench=$(awk '$1 == "bench" { print $3 }' "$data/runs" | median)
printf 'assay judge at --concurrency %d: median %.3fx ideal; %d of %d runs within 10%%\n' "$conc" "$assay" "$within" "$runs"
printf 'assay bench: median %.3fx ideal, %.1f%% over judge (goal <= 2%%)\n' "$bench" "$(awk -v b="$bench" -v a="$assay" 'BEGIN { print (b / a - 1) * 100 }')"
printf 'floor (bareclient, bare net/http): median %.3fx ideal; assay adds %.3f\n' "$floor" "$(awk -v a="$assay" -v f="$floor" 'BEGIN { print a - f }')"
