#!/usr/bin/env bash
# Seed 002's context score served two ways on this machine, driven the
# same way with the same request (fixtures/context/good.json):
#   - `assay serve`'s POST /v1/context-score;
#   - the seed's own TypeScript (its CompositeQualityScorer, cut out of
#     ../shared/seeds/002_*.txt at run time, its types stripped with esbuild)
#     behind Node's http module, answering the same POST.
# For each: the most requests per second a closed loop of WORKERS
# connections gets (goal: Assay at least 1.5x Node), then p99 latency at
# RATE requests/s in an open loop (goal: p99 at most 1 ms at 1,000/s).
# The closed loop's client is fasthttp's (loadserve -rate 0), cheap
# enough that the server's core is the one that runs out: each CPU line
# says how busy the server was, near 100% when the figure is its most.
# The server is pinned to CPU 1 and the generator to CPU 0 (taskset).
# Beside each closed loop: the server's CPU time (user + system, from
# /proc) per request answered, which moves less than the rate when
# other work shares the machine. With ROUNDS=N the closed loops take
# turns N times (assay, node, assay, ...) and the median of the ratios
# is printed; with REPEAT=N the open loops take turns N times (p99 moves
# from run to run with the host). ASSAY=FILE serves a binary built before (another commit's)
# instead of building this tree's.
# Needs node on PATH and the seeds (ASSAY_SEEDS_DIR, default ../shared/seeds).
#
#   bash scripts/load-context-node.sh
#   SECONDS_=10 WORKERS=16 RATE=1000 bash scripts/load-context-node.sh
#   ASSAY=/tmp/assay-main ROUNDS=5 REPEAT=3 bash scripts/load-context-node.sh
set -euo pipefail
. "$(dirname "$0")/lib-steal.sh"
secs=${SECONDS_:-5}
workers=${WORKERS:-8}
rate=${RATE:-1000}
rounds=${ROUNDS:-1}
repeat=${REPEAT:-1}
port=${PORT:-18191}
nport=${NODE_PORT:-18192}
seeds=${ASSAY_SEEDS_DIR:-../shared/seeds}
body=fixtures/context/good.json
command -v node >/dev/null || { echo "node not found: install Debian's nodejs" >&2; exit 2; }
seed=$(ls "$seeds"/002_*.txt 2>/dev/null | head -1)
[ -n "$seed" ] || { echo "seed 002 not found in $seeds (set ASSAY_SEEDS_DIR)" >&2; exit 2; }
srv=() gen=()
if [ "$(nproc)" -ge 2 ]; then srv=(taskset -c 1) gen=(taskset -c 0); fi

assay=${ASSAY:-bin/assay}
[ -n "${ASSAY:-}" ] || CGO_ENABLED=0 go build -trimpath -o bin/assay ./cmd/assay
go -C tools/harness build -o ../../bin/loadserve ./loadserve
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# The seed's scorer: the code block that starts with its file name, less
# its imports (the logger becomes a no-op), types stripped.
awk '/^\/\/ packages\/evaluator\/src\/scorer.ts/ { on = 1; next } on && /^```/ { exit } on && !/^[[:space:]]*import / { print }' "$seed" >"$work/scorer.ts"
[ -s "$work/scorer.ts" ] || { echo "$seed: no scorer.ts code block" >&2; exit 2; }
go run github.com/evanw/esbuild/cmd/esbuild --loader=ts --format=cjs --target=es2022 --log-level=warning <"$work/scorer.ts" >"$work/scorer.js"
{
  echo 'const logger = { debug() {}, info() {} };'
  cat "$work/scorer.js"
  cat <<JS
const http = require("http");
const scorer = new CompositeQualityScorer();
http.createServer((req, res) => {
  const parts = [];
  req.on("data", (c) => parts.push(c));
  req.on("end", async () => {
    try {
      const out = await scorer.score(JSON.parse(Buffer.concat(parts)));
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(out));
    } catch (e) {
      res.writeHead(400);
      res.end(String(e));
    }
  });
}).listen($nport, "127.0.0.1");
JS
} >"$work/server.js"

ASSAY_DATA_DIR="$work/data" "${srv[@]}" "$assay" serve --addr "127.0.0.1:$port" --no-cache 2>"$work/serve.log" &
pids+=($!)
"${srv[@]}" node "$work/server.js" 2>"$work/node.log" &
pids+=($!)
declare -A pid=([assay]=${pids[0]} [node]=${pids[1]})
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && curl -s -o /dev/null "http://127.0.0.1:$nport/" -d '{}' && break; sleep 0.1; done
echo "Assay's answer: $(curl -s "http://127.0.0.1:$port/v1/context-score" -H 'Content-Type: application/json' --data-binary @"$body" | head -c 300)"
echo "Node's answer:  $(curl -s "http://127.0.0.1:$nport/" -H 'Content-Type: application/json' --data-binary @"$body" | head -c 300)"
echo "load: $(nproc) cores, servers on CPU 1, generator on CPU 0${srv:+} ; $(node --version)"
# cpu PID: the process's CPU time so far, in clock ticks.
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
rps() { sed -E 's/.*\(([0-9.]+)\/s offered.*/\1/' "$1"; }
for name in assay node; do
  url="http://127.0.0.1:$port" path=/v1/context-score
  if [ $name = node ]; then url="http://127.0.0.1:$nport" path=/; fi
  # Warm up (Node's JIT, Go's pools).
  "${gen[@]}" bin/loadserve -url "$url" -path "$path" -mode context -rate 0 -workers "$workers" -duration 2s -body "$body" >/dev/null
done
steal_start
for round in $(seq 1 "$rounds"); do
  for name in assay node; do
    url="http://127.0.0.1:$port" path=/v1/context-score
    if [ $name = node ]; then url="http://127.0.0.1:$nport" path=/; fi
    printf '%s closed loop: ' $name
    t0=$(cpu "${pid[$name]}")
    "${gen[@]}" bin/loadserve -url "$url" -path "$path" -mode context -rate 0 -workers "$workers" -duration "${secs}s" -body "$body" | tee "$work/$name.max"
    t1=$(cpu "${pid[$name]}")
    n=$(sed -E 's/.*: ([0-9]+) requests.*/\1/' "$work/$name.max")
    awk -v n="$n" -v t="$((t1 - t0))" -v hz="$hz" -v secs="$secs" -v name=$name 'BEGIN { printf "%s CPU: %.1f us a request (%.2f s for %d; the server busy %.0f%% of the loop)\n", name, t / hz * 1e6 / n, t / hz, n, 100 * t / hz / secs }'
  done
  ratio=$(awk -v a="$(rps "$work/assay.max")" -v n="$(rps "$work/node.max")" 'BEGIN { printf "%.2f", a / n }')
  echo "$ratio" >>"$work/ratios"
  [ "$rounds" = 1 ] || echo "round $round: assay ${ratio}x node"
done
for _ in $(seq 1 "$repeat"); do
  for name in assay node; do
    url="http://127.0.0.1:$port" path=/v1/context-score
    if [ $name = node ]; then url="http://127.0.0.1:$nport" path=/; fi
    printf '%s at %d/s:    ' $name "$rate"
    # Each run says the host's steal while it ran: a tail that passes the
    # goal where the host took the CPU away is the host's.
    s0=$(steal_read)
    out=$("${gen[@]}" bin/loadserve -url "$url" -path "$path" -mode context -rate "$rate" -duration "${secs}s" -body "$body")
    echo "$out; host steal $(steal_pct "$s0" "$(steal_read)")"
  done
done
if [ "$rounds" = 1 ]; then
  awk -v a="$(rps "$work/assay.max")" -v n="$(rps "$work/node.max")" 'BEGIN { printf "most requests per second: assay %.0f, node %.0f: assay %.2fx node (goal >= 1.5x)\n", a, n, a / n }'
else
  sort -n "$work/ratios" | awk '{ r[NR] = $1 } END { m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2; printf "most requests per second, assay over node in %d rounds: median %.2fx (%s to %s) (goal >= 1.5x)\n", NR, m, r[1], r[NR] }'
fi
steal_report
