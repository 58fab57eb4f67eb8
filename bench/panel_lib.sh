# Sourced by the panels (bench/device_panel.sh, bench/choice_panel.sh): sizes, psql, and the
# timing of one query on one device in new sessions. Expects SCALE and ROUNDS.

# A row count times SCALE, at least 100.
n() { awk -v n="$1" -v s="$SCALE" 'BEGIN { printf "%d", n * s < 100 ? 100 : n * s }'; }
q() { psql -AtqX -v ON_ERROR_STOP=1 "$@"; }

# "best_ms count device algorithm estimate_s phases_s priced": the best of ROUNDS times of `sql`,
# each in a new session (its first join) with simjoin.device = $1, its result, and from the best
# run's simjoin.explain NOTICEs the device and algorithm the engine reported, the estimate of the
# algorithm it ran (auto's first, "-" when nothing was priced), the sum of its phases' times (the
# sink's, PostgreSQL's part, and choose's, the sampling, which the estimate does not price, left
# out), and the device choice's prices and sampled work
# (cpu,gpu,PostgreSQL's part in s, candidates, terms a candidate, pairs, indexed dimensions; "-"
# when it priced none).
# With SECOND=1 each session runs the query twice and the second run is timed. With NOTICE_LOG
# set, the best run's simjoin NOTICEs are appended to that file, each line prefixed with
# "$PANEL_TAG device time=Tms" (PANEL_TAG: "set rows dim form"; scripts/fit_service_speeds.py
# reads them).
best_ms() {
  local device=$1 sql=$2 best="" best_notice="" best_priced="" best_out="" out t count notice priced
  local runs=("-c" "$sql")
  [ "${SECOND:-0}" = 1 ] && runs=("-c" "$sql" "-c" "$sql")
  for _ in $(seq 1 "$ROUNDS"); do
    out=$(q -c "SET simjoin.device = $device; SET simjoin.gpu_error = error; SET simjoin.explain = on" \
            -c '\timing on' "${runs[@]}" 2>&1)
    count=$(echo "$out" | grep -vE '^(Time:|NOTICE|psql:)' | tail -1)
    notice=$(echo "$out" | grep -E 'NOTICE: +simjoin: device=' | tail -1)
    priced=$(echo "$out" | grep -E 'NOTICE: +simjoin: auto priced' | tail -1 |
             sed -E 's/.* at ([^s]+)s on the CPU.* and ([^s]+)s on the GPU, PostgreSQL.s part ([^s]+)s: [a-z]+ .sampled: ([^ ]+) candidates of ([^ ]+) terms, ([^ ]+) pairs, ([0-9]+) .*/\1,\2,\3,\4,\5,\6,\7/')
    t=$(echo "$out" | grep -oE 'Time: [0-9.]+' | tail -1 | cut -d' ' -f2)
    [ -z "$t" ] && { echo "ERROR: $out" >&2; t=999999; }
    if [ -z "$best" ] || awk -v a="$best" -v b="$t" 'BEGIN { exit !(b < a) }'; then
      best=$t best_notice=$notice best_priced=$priced best_out=$out
    fi
  done
  if [ -n "${NOTICE_LOG:-}" ]; then
    echo "$best_out" | grep -E 'NOTICE: +simjoin: ' | sed "s/^/${PANEL_TAG:-?} $device time=${best}ms /" >>"$NOTICE_LOG"
  fi
  echo "$best $count $(notice_fields "$best_notice") ${best_priced:--}"
}

# "device algorithm estimate_s phases_s" of a simjoin.explain NOTICE.
notice_fields() {
  echo "$1" | awk '{
    device = "?"; algorithm = "?"; estimate = "-"; phases = 0; in_time = 0; in_choice = 0
    for (i = 1; i <= NF; i++) {
      if ($i ~ /^device=/) { device = substr($i, 8); sub(/:$/, "", device) }
      else if ($i ~ /^algorithm=/) algorithm = substr($i, 11)
      else if ($i == "chose") in_choice = 1
      else if ($i == "time:") { in_time = 1; in_choice = 0 }
      else if (in_choice && estimate == "-" && $i ~ /candidates\//) {
        e = $i; sub(/.*candidates\//, "", e); sub(/s$/, "", e); estimate = e }
      else if (in_time && $i ~ /=[0-9.]+s$/ && $i !~ /^(sink|choose)=/) { v = $i; sub(/^[^=]*=/, "", v); sub(/s$/, "", v); phases += v }
    }
    printf "%s %s %s %.4f", device, algorithm, estimate, phases }'
}

# a / min(b, c), two decimals.
over_best() { awk -v a="$1" -v b="$2" -v c="$3" 'BEGIN { m = b < c ? b : c; printf "%.2f", a / m }'; }
