#!/usr/bin/env bash
# Cached rerun benchmark: `assay bench` from start to exit over 200 samples
# x 3 judges (faithfulness: 2 calls, context_precision: 1,
# source_relevance: 1 per source) = 800 model calls at --concurrency 32
# against fakellm answering every call after LATENCY_MS (50). Each round
# runs it cold (an empty reply cache) and then again, identical, into a new
# run folder: every call then comes from the cache. Prints each round's
# wall times and their ratio, then the medians (goal: cached at least 20x
# faster than cold).
#
# Wall time moves with the machine's load; the CPU time (user + system) of
# each run is printed beside it.
#
#   bash scripts/bench-cache.sh
#   RUNS=5 bash scripts/bench-cache.sh
#   ASSAY=/tmp/assay-old bash scripts/bench-cache.sh   # another build, as it is
set -euo pipefail
runs=${RUNS:-3}
port=${PORT:-18093}
latency_ms=${LATENCY_MS:-50}
assay=${ASSAY:-bin/assay}
if [ -z "${ASSAY:-}" ]; then CGO_ENABLED=0 go build -trimpath -o bin/assay ./cmd/assay; fi
go build -o bin/fakellm ./internal/llmtest/fakellm
work=$(mktemp -d)
for i in $(seq 1 200); do
  printf '{"id":"s%d","question":"What does study %d find about sleep and memory?","answer":"Study %d finds that sleep helps memory. Participants slept eight hours.","contexts":["Study %d reports that sleep consolidates memory in adults."]}\n' "$i" "$i" "$i" "$i"
done >"$work/samples.jsonl"
bin/fakellm -addr "127.0.0.1:$port" -latency "${latency_ms}ms" 2>/dev/null &
pid=$!
trap 'kill $pid; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
# Everything the runs write (the reply cache, the run store, the run
# folders) stays under $work.
export OPENAI_BASE_URL="http://127.0.0.1:$port/v1" OPENAI_API_KEY=bench HOME="$work/home" XDG_CACHE_HOME="$work/home/.cache" XDG_DATA_HOME="$work/home/.local/share"
# timed NAME DIR: one bench run into the folder DIR; appends
# "NAME seconds cpu-seconds".
timed() {
  local name=$1 out=$2 start end
  start=$EPOCHREALTIME
  /usr/bin/time -f '%U %S' -o "$work/cpu" "$assay" bench -q --llm openai:fake --concurrency 32 \
    --metric faithfulness,context_precision,source_relevance --out "$out" "$work/samples.jsonl" >/dev/null 2>"$work/err" ||
    { cat "$work/err" >&2; exit 1; }
  end=$EPOCHREALTIME
  read -r user sys <"$work/cpu"
  awk -v s="$start" -v e="$end" -v n="$name" -v u="$user" -v y="$sys" 'BEGIN { printf "%s %.4f %.3f\n", n, e - s, u + y }' >>"$work/runs"
}
for r in $(seq 1 "$runs"); do
  export ASSAY_CACHE_DIR="$work/cache-$r"
  timed cold "$work/run-$r-cold"
  timed cached "$work/run-$r-cached"
  grep -o 'calls [0-9]* (retries [0-9]*, cache hits [0-9]*)' "$work/err" | head -1 || true
  tail -2 "$work/runs" | awk -v r="$r" '{ t[NR] = $2; c[NR] = $3 } END { printf "round %d: cold %.3f s (CPU %.2f s), cached %.3f s (CPU %.2f s), %.1fx\n", r, t[1], c[1], t[2], c[2], t[1] / t[2] }'
done
median() { sort -n | awk '{ x[NR] = $1 } END { print NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2 }'; }
cold=$(awk '$1 == "cold" { print $2 }' "$work/runs" | median)
cached=$(awk '$1 == "cached" { print $2 }' "$work/runs" | median)
cpu=$(awk '$1 == "cached" { print $3 }' "$work/runs" | median)
awk -v c="$cold" -v h="$cached" -v n="$runs" -v u="$cpu" 'BEGIN { printf "median of %d: cold %.3f s, cached %.3f s (CPU %.2f s): cached %.1fx faster (goal >= 20x)\n", n, c, h, u, c / h }'
