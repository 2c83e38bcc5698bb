#!/usr/bin/env bash
# What `assay bench` costs over `assay judge` for the same 800 model calls
# (200 samples x faithfulness, context_precision, source_relevance,
# --no-cache, --concurrency CONCURRENCY (128), fakellm at 50 ms), measured
# in pairs: each round runs judge then bench with each binary given, in
# turn, and the difference is taken within the pair, so that the load of
# a shared machine, which moves whole runs by 2x, moves both halves of a
# pair alike. Prints per binary the medians of judge's and bench's wall
# and CPU (user + system) and of the differences (goal of issue 34: bench
# within 2% of judge).
#
#   bash scripts/bench-pairs.sh                          # bin/assay, built here
#   RUNS=15 bash scripts/bench-pairs.sh /tmp/assay-before bin/assay
set -euo pipefail
runs=${RUNS:-10}
conc=${CONCURRENCY:-128}
port=${PORT:-18095}
if [ $# -eq 0 ]; then
  CGO_ENABLED=0 go build -trimpath -o bin/assay ./cmd/assay
  set -- bin/assay
fi
go build -o bin/fakellm ./internal/llmtest/fakellm
work=$(mktemp -d)
for i in $(seq 1 200); do
  printf '{"id":"s%d","question":"What does study %d find about sleep and memory?","answer":"Study %d finds that sleep helps memory. Participants slept eight hours.","contexts":["Study %d reports that sleep consolidates memory in adults."]}\n' "$i" "$i" "$i" "$i"
done >"$work/samples.jsonl"
bin/fakellm -addr "127.0.0.1:$port" -latency 50ms 2>/dev/null &
pid=$!
trap 'kill $pid; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
export OPENAI_BASE_URL="http://127.0.0.1:$port/v1" OPENAI_API_KEY=bench HOME="$work/home" XDG_CACHE_HOME="$work/home/.cache" XDG_DATA_HOME="$work/home/.local/share"
# timed BIN N CMD ARGS...: appends "BIN CMD N seconds cpu-seconds".
timed() {
  local bin=$1 n=$2 cmd=$3 start end
  shift 3
  start=$EPOCHREALTIME
  /usr/bin/time -f '%U %S' -o "$work/cpu" "$bin" "$cmd" "$@" --llm openai:fake --no-cache --concurrency "$conc" \
    --metric faithfulness,context_precision,source_relevance "$work/samples.jsonl" >/dev/null 2>"$work/err" ||
    { cat "$work/err" >&2; exit 1; }
  end=$EPOCHREALTIME
  read -r user sys <"$work/cpu"
  awk -v b="$bin" -v c="$cmd" -v n="$n" -v s="$start" -v e="$end" -v u="$user" -v y="$sys" 'BEGIN { printf "%s %s %d %.4f %.3f\n", b, c, n, e - s, u + y }' >>"$work/runs"
}
for r in $(seq 1 "$runs"); do
  for b in "$@"; do
    timed "$b" "$r" judge --format json
    rm -rf "$work/run"
    timed "$b" "$r" bench -q --out "$work/run"
  done
done
median() { sort -n | awk '{ x[NR] = $1 } END { print NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2 }'; }
for b in "$@"; do
  col() { awk -v b="$b" -v c="$1" -v f="$2" '$1 == b && $2 == c { print $f }' "$work/runs" | median; }
  diff() { awk -v b="$b" -v f="$1" '$1 == b { v[$3 " " $2] = $f; n[$3] = 1 } END { for (k in n) print (v[k " bench"] - v[k " judge"]) * 1000 }' "$work/runs" | median; }
  jw=$(col judge 4) bw=$(col bench 4) jc=$(col judge 5) bc=$(col bench 5) dw=$(diff 4) dc=$(diff 5)
  awk -v b="$b" -v c="$conc" -v n="$runs" -v jw="$jw" -v bw="$bw" -v jc="$jc" -v bc="$bc" -v dw="$dw" -v dc="$dc" 'BEGIN {
    printf "%s, --concurrency %d, medians of %d pairs: judge %.3f s (CPU %.2f s), bench %.3f s (CPU %.2f s); bench minus judge in a pair: %.1f ms (%.1f%% of judge), CPU %.0f ms (goal <= 2%%)\n",
      b, c, n, jw, jc, bw, bc, dw, dw / (jw * 10), dc }'
done
