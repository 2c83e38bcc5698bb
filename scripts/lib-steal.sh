# Sourced by the load scripts: the share of the VM's time its host took
# (the steal column of /proc/stat) between steal_start and steal_report,
# printed beside the figures, since a host that takes the CPU away for
# milliseconds moves latency percentiles more than any code does.
steal_read() { awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print $9, t }' /proc/stat; }
steal_start() { steal0=$(steal_read); }
# steal_pct A B: the steal between two steal_read lines, as "1.2%".
steal_pct() {
  awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " "); d = y[2] - x[2]; if (d > 0) printf "%.1f%%", 100 * (y[1] - x[1]) / d; else printf "unknown" }'
}
steal_report() {
  echo "host steal: $(steal_pct "$steal0" "$(steal_read)") of the VM's CPU time while measuring (/proc/stat)"
}
