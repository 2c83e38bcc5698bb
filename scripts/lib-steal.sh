# Sourced by the load scripts: the share of the VM's time its host took
# (the steal column of /proc/stat) between steal_start and steal_report,
# printed beside the figures, since a host that takes the CPU away for
# milliseconds moves latency percentiles more than any code does.
steal_read() { awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print $9, t }' /proc/stat; }
steal_start() { steal0=$(steal_read); }
steal_report() {
  local now
  now=$(steal_read)
  awk -v a="$steal0" -v b="$now" 'BEGIN { split(a, x, " "); split(b, y, " "); d = y[2] - x[2]; if (d > 0) printf "host steal: %.1f%% of the VM'"'"'s CPU time while measuring (/proc/stat)\n", 100 * (y[1] - x[1]) / d }'
}
