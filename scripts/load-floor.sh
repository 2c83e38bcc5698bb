#!/usr/bin/env bash
# The floor under scripts/load-context-node.sh: two servers that read each
# request's body and answer a fixed 416-byte JSON reply (the size of
# /v1/context-score's answer to fixtures/context/good.json), doing no
# other work, driven as that script drives assay and node:
#   - go:   tools/harness/fixedreply, Go's net/http;
#   - node: Node's http module.
# For each: the most requests per second a closed loop of WORKERS
# connections gets, with the server's CPU time per request (/proc), in
# ROUNDS alternated rounds; then the latency at RATE requests/s in an
# open loop, REPEAT times each, alternated. The servers are pinned to
# CPU 1, the generator to CPU 0. What a server that does nothing gets
# here bounds what assay's context score can: its p99 at 1,000/s, and
# how far the ratio to node can move with the work a request does.
#
#   bash scripts/load-floor.sh
#   ROUNDS=5 REPEAT=3 bash scripts/load-floor.sh
set -euo pipefail
. "$(dirname "$0")/lib-steal.sh"
secs=${SECONDS_:-5}
workers=${WORKERS:-8}
rate=${RATE:-1000}
rounds=${ROUNDS:-3}
repeat=${REPEAT:-3}
gport=${PORT:-18193}
nport=${NODE_PORT:-18194}
body=fixtures/context/good.json
command -v node >/dev/null || { echo "node not found: install Debian's nodejs" >&2; exit 2; }
srv=() gen=()
if [ "$(nproc)" -ge 2 ]; then srv=(taskset -c 1) gen=(taskset -c 0); fi
go -C tools/harness build -o ../../bin/loadserve ./loadserve
go -C tools/harness build -o ../../bin/fixedreply ./fixedreply
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
cat >"$work/server.js" <<JS
const http = require("http");
const reply = Buffer.from('{"pad":"' + "x".repeat(406) + '"}');
http.createServer((req, res) => {
  req.on("data", () => {});
  req.on("end", () => {
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": reply.length });
    res.end(reply);
  });
}).listen($nport, "127.0.0.1");
JS
"${srv[@]}" bin/fixedreply -addr "127.0.0.1:$gport" 2>"$work/go.log" &
pids+=($!)
"${srv[@]}" node "$work/server.js" 2>"$work/node.log" &
pids+=($!)
declare -A pid=([go]=${pids[0]} [node]=${pids[1]}) port=([go]=$gport [node]=$nport)
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$gport/" -d '{}' && curl -s -o /dev/null "http://127.0.0.1:$nport/" -d '{}' && break; sleep 0.1; done
echo "load: $(nproc) cores, servers on CPU 1, generator on CPU 0; $(node --version), $(go version | cut -d' ' -f3)"
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
load() { "${gen[@]}" bin/loadserve -url "http://127.0.0.1:${port[$1]}" -path / -mode context -body "$body" -duration "${secs}s" "${@:2}"; }
for name in go node; do load $name -rate 0 -workers "$workers" >/dev/null; done # warm up
steal_start
for round in $(seq 1 "$rounds"); do
  for name in go node; do
    t0=$(cpu "${pid[$name]}")
    out=$(load $name -rate 0 -workers "$workers")
    t1=$(cpu "${pid[$name]}")
    n=$(sed -E 's/.*: ([0-9]+) requests.*/\1/' <<<"$out")
    r=$(sed -E 's/.*\(([0-9.]+)\/s offered.*/\1/' <<<"$out")
    echo "$r" >"$work/$name.rps"
    awk -v n="$n" -v r="$r" -v t="$((t1 - t0))" -v hz="$hz" -v name=$name -v round="$round" 'BEGIN { printf "round %d %-4s closed loop: %6.0f/s, %5.1f us of CPU a request\n", round, name, r, t / hz * 1e6 / n }'
  done
  awk -v g="$(cat "$work/go.rps")" -v n="$(cat "$work/node.rps")" 'BEGIN { printf "%.2f\n", g / n }' >>"$work/ratios"
done
sort -n "$work/ratios" | awk '{ r[NR] = $1 } END { m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2; printf "most requests per second, go over node in %d rounds: median %.2fx (%s to %s)\n", NR, m, r[1], r[NR] }'
for i in $(seq 1 "$repeat"); do
  for name in go node; do
    printf '%-4s at %d/s: ' $name "$rate"
    load $name -rate "$rate" | sed -E 's/.*(latency [^;]*);.*/\1/'
  done
done
steal_report
