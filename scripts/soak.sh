#!/usr/bin/env bash
# Soak: `assay bench` over ROWS records (faithfulness: 2 model calls each)
# against fakellm on the loopback, answering after LATENCY with a share of
# its calls failing as MIX says (500s, hangs that never answer, connection
# resets), at --concurrency CONC and every other flag at its default.
# Prints whether every (record, metric) pair has exactly one result (lost,
# duplicated), the neutral defaults, the exit code, the wall time against
# the ideal (ROWS x 2 x LATENCY / CONC) and the peak RSS. It stops by
# itself: the bench is ended after LIMIT seconds (default 10 x the ideal,
# at least 120 s) and fakellm with the script.
#
#   bash scripts/soak.sh              # 20,000 rows (BENCHMARKS.md)
#   ROWS=2000 bash scripts/soak.sh    # a quicker check
set -euo pipefail
rows=${ROWS:-20000}
conc=${CONC:-32}
latency_ms=${LATENCY_MS:-200}
mix=${MIX:-500=0.05,hang=0.01,reset=0.01}
seed=${SEED:-1}
port=${PORT:-18090}
ideal=$(awk -v r="$rows" -v l="$latency_ms" -v c="$conc" 'BEGIN { printf "%.1f", r * 2 * l / 1000 / c }')
limit=${LIMIT:-$(awk -v i="$ideal" 'BEGIN { l = int(10 * i); print l < 120 ? 120 : l }')}

CGO_ENABLED=0 go build -trimpath -o bin/assay ./cmd/assay
go build -o bin/fakellm ./internal/llmtest/fakellm
work=$(mktemp -d)
fake=
cleanup() {
  if [ -n "$fake" ]; then kill "$fake" 2>/dev/null || true; wait "$fake" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

for i in $(seq 1 "$rows"); do
  printf '{"id":"r%d","question":"What does study %d find about sleep and memory?","answer":"Study %d finds that sleep helps memory. Participants slept eight hours.","contexts":["Study %d reports that sleep consolidates memory in adults."]}\n' "$i" "$i" "$i" "$i"
done >"$work/data.jsonl"

bin/fakellm -addr "127.0.0.1:$port" -latency "${latency_ms}ms" -mix "$mix" -seed "$seed" 2>"$work/fakellm.log" &
fake=$!
for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done

echo "soak: $rows rows x faithfulness (2 calls each) at --concurrency $conc, ${latency_ms} ms latency, faults $mix; ideal ${ideal} s; stopped after ${limit} s"
set +e
OPENAI_BASE_URL="http://127.0.0.1:$port/v1" ASSAY_DATA_DIR="$work/data" ASSAY_PROGRESS_EVERY=${EVERY:-30s} \
  /usr/bin/time -f '%e %M' -o "$work/time" \
  timeout -k 30 "$limit" bin/assay bench --llm openai:fake --no-cache --concurrency "$conc" \
  --metric faithfulness --out "$work/run" "$work/data.jsonl" >"$work/out" 2>"$work/err"
code=$?
set -e
kill "$fake"
wait "$fake" 2>/dev/null || true
fake=

results="$work/run/results.jsonl"
lines=$(wc -l <"$results")
pairs=$(grep -o '"id":"[^"]*","metric":"[^"]*"' "$results" | sort -u | wc -l)
defaults=$(grep -c '"defaulted":true' "$results" || true)
read -r wall rss <"$work/time"
grep -E 'records,' "$work/err" | tail -n 4 || true
grep -E '^judge: |^assay: ' "$work/err" || true
tail -n 1 "$work/fakellm.log"
awk -v rows="$rows" -v lines="$lines" -v pairs="$pairs" -v defs="$defaults" -v code="$code" \
  -v wall="$wall" -v ideal="$ideal" -v rss="$rss" 'BEGIN {
  printf "soak: exit %d; %d results for %d pairs: %d lost, %d duplicated; %d neutral defaults; %.1f s, %.2fx the ideal %.1f s; peak RSS %.1f MB\n",
    code, lines, rows, rows - pairs, lines - pairs, defs, wall, wall / ideal, ideal, rss / 1024 }'
