#!/usr/bin/env bash
# Load: `assay serve` on the loopback, driven at a fixed rate by
# tools/harness/loadserve (an open loop: latency measured from when each request
# was due).
#   1. POST /v1/context-score at RATE requests/s for SECONDS: p50, p90,
#      p99, max and the status codes (goal p99 <= 1 ms, 0 errors).
#   2. POST /v1/traces at RATE samples/s (one per request) for SECONDS,
#      --sample-rate SAMPLE, judged by faithfulness against fakellm
#      answering after LATENCY_MS: latency, sampled, shed (429) and, once
#      the queue drains, lost (accepted, never judged).
# Everything stops by itself and is removed with the script.
#
#   bash scripts/load-serve.sh
#   RATE=2000 SECONDS_=5 bash scripts/load-serve.sh
#   PIN=1 bash scripts/load-serve.sh   # the server on CPU 1, the generator
#                                        and fakellm on CPU 0 (taskset)
set -euo pipefail
rate=${RATE:-1000}
secs=${SECONDS_:-10}
sample=${SAMPLE:-0.1}
latency_ms=${LATENCY_MS:-50}
queue=${QUEUE:-1024}
port=${PORT:-18181}
server_cpu=() load_cpu=()
if [ "${PIN:-0}" = 1 ]; then server_cpu=(taskset -c 1) load_cpu=(taskset -c 0); fi
fport=${FAKE_PORT:-18182}

CGO_ENABLED=0 go build -trimpath -o bin/assay ./cmd/assay
go build -o bin/fakellm ./internal/llmtest/fakellm
# The load generator is its own module (tools/harness), out of the
# main module's build.
go -C tools/harness build -o ../../bin/loadserve ./loadserve
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

"${load_cpu[@]}" bin/fakellm -addr "127.0.0.1:$fport" -latency "${latency_ms}ms" 2>"$work/fakellm.log" &
pids+=($!)
OPENAI_BASE_URL="http://127.0.0.1:$fport/v1" OPENAI_API_KEY=load ASSAY_DATA_DIR="$work/data" \
  "${server_cpu[@]}" bin/assay serve --addr "127.0.0.1:$port" --llm openai:fake --no-cache --sample-rate "$sample" \
  --trace-metric faithfulness --queue "$queue" 2>"$work/serve.log" &
pids+=($!)
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done

echo "load: $(nproc) cores${server_cpu:+ (the server pinned to CPU 1, the rest to CPU 0)}; assay serve with fakellm at ${latency_ms} ms, --sample-rate $sample, --queue $queue"
"${load_cpu[@]}" bin/loadserve -url "http://127.0.0.1:$port" -mode context -rate "$rate" -duration "${secs}s" -body fixtures/context/good.json
"${load_cpu[@]}" bin/loadserve -url "http://127.0.0.1:$port" -mode traces -rate "$rate" -duration "${secs}s" -sample-rate "$sample"
curl -s "http://127.0.0.1:$port/metrics" | grep -E '^assay_(shed_total|traces_total|judgements_total|trace_queue_depth|panics_total)' || true
