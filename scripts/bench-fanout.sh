#!/usr/bin/env bash
# Whole-process fan-out benchmark: `assay judge` from start to exit over 200
# samples x 3 judges (faithfulness: 2 calls, context_precision: 1,
# source_relevance: 1 per source) = 800 model calls at --concurrency 32,
# against fakellm answering every call after 50 ms. Ideal: 800 x 50 ms / 32
# = 1.25 s. Prints the wall time of each run and its ratio to the ideal.
set -euo pipefail
runs=${RUNS:-3}
port=${PORT:-18089}
CGO_ENABLED=0 go build -trimpath -o bin/assay ./cmd/assay
go build -o bin/fakellm ./internal/llmtest/fakellm
data=$(mktemp -d)
for i in $(seq 1 200); do
  printf '{"id":"s%d","question":"What does study %d find about sleep and memory?","answer":"Study %d finds that sleep helps memory. Participants slept eight hours.","contexts":["Study %d reports that sleep consolidates memory in adults."]}\n' "$i" "$i" "$i" "$i"
done >"$data/samples.jsonl"
bin/fakellm -addr "127.0.0.1:$port" -latency 50ms 2>/dev/null &
pid=$!
trap 'kill $pid; rm -rf "$data"' EXIT
for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
for r in $(seq 1 "$runs"); do
  start=$EPOCHREALTIME
  OPENAI_BASE_URL="http://127.0.0.1:$port/v1" bin/assay judge --llm openai:fake --no-cache --concurrency 32 \
    --metric faithfulness,context_precision,source_relevance --format json "$data/samples.jsonl" >/dev/null 2>"$data/err"
  end=$EPOCHREALTIME
  awk -v s="$start" -v e="$end" -v r="$r" 'BEGIN { t = e - s; printf "run %d: %.3f s, %.3fx ideal (1.25 s)\n", r, t, t / 1.25 }' | tee -a "$data/runs"
  tail -1 "$data/err"
done
# The median and how many runs were within 10% of the ideal.
awk '{ print $5 + 0 }' "$data/runs" | sort -n | awk '{ x[NR] = $1; if ($1 <= 1.10) n++ }
  END { m = NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2; printf "median %.3fx ideal; %d of %d runs within 10%%\n", m, n, NR }'
