#!/usr/bin/env bash
# Runs bench/sql/planner_panel.sql against the server that PGHOST / PGPORT (and PGUSER,
# PGDATABASE) name and prints its table: per query the rows, the custom scan's and PostgreSQL's
# plan's median times, their ratio, whether the SimilarityJoin custom scan was chosen and
# whether both plans returned the same result. Starts no server.
#
#   PGHOST=/tmp/sock PGPORT=5432 bench/planner_panel.sh [-v n=200000] [-v only=q01,q06] ...
#
# Arguments are passed to psql (-v n=, ncos=, rounds=, timeout=, only=, analyze=, reuse=; see
# the SQL script). The whole psql output (plans, EXPLAIN ANALYZE) is kept in $PANEL_LOG (default
# a new file under /tmp, printed at the end). PANEL_PARSE=FILE prints the table of an earlier
# log without running anything.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [ -n "${PANEL_PARSE:-}" ]; then
  log=$PANEL_PARSE
else
  if [ -z "${PGHOST:-}" ] || [ -z "${PGPORT:-}" ]; then
    echo "planner_panel.sh: set PGHOST and PGPORT to a running server" >&2
    exit 2
  fi
  log=${PANEL_LOG:-$(mktemp /tmp/planner_panel.XXXXXX.log)}
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  start=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
  echo "planner panel: psql output in $log" >&2
  psql -X -v ON_ERROR_STOP=0 "$@" -f "$here/sql/planner_panel.sql" >"$log" 2>&1 || true
  load_after=$(cut -d' ' -f1-3 /proc/loadavg)
  {
    echo "PANEL meta started $start"
    echo "PANEL meta finished $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "PANEL meta loadavg_before $load_before"
    echo "PANEL meta loadavg_after $load_after"
  } >>"$log"
fi

grep -q '^PANEL done' "$log" || echo "planner_panel.sh: the script did not finish; see $log" >&2

awk '
function median(list,    a, k, i, j, t) {
  k = split(list, a, " ")
  for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
  if (k % 2) return a[(k + 1) / 2]
  return (a[k / 2] + a[k / 2 + 1]) / 2
}
function fmt_ms(ms) {
  if (ms >= 10000) return sprintf("%.1f s", ms / 1000)
  if (ms >= 1000) return sprintf("%.2f s", ms / 1000)
  return sprintf("%.0f ms", ms)
}
/^PANEL meta / { k = $3; v = $4; for (i = 5; i <= NF; i++) v = v " " $i; meta[k] = v; next }
/^PANEL query / {
  q = $3; order[++nq] = q; t = $4; for (i = 5; i <= NF; i++) t = t " " $i; title[q] = t; next
}
/^PANEL chosen / { chosen[$3] = ($4 == "t" || $4 == "true") ? "yes" : "no"; next }
/^PANEL run / {
  q = $3; m = $4; ms = $6; err = $7; st = $8; res = $9 (($10 == "-") ? "" : ":" $10)
  if (err == "true") {
    if (st == "57014") timeout[q, m] = ms
    else failed[q, m] = st
    next
  }
  times[q, m] = times[q, m] " " ms; nruns[q, m]++
  if (!((q, m) in result)) result[q, m] = res
  else if (result[q, m] != res) unstable[q, m] = 1
  if (m == "custom") rows[q] = $9
  next
}
/^PANEL verify / {
  verify[$3] = ($4 == $6 && $5 == $7 && $4 != "-") ? "yes (check)" : "NO (check: " $4 " vs " $6 ")"
  if (!(($3, "custom") in result)) rows[$3] = $4
  next
}
END {
  printf "Planner panel: n = %s, ncos = %s, %s rounds, PostgreSQL %s, simjoin %s\n", meta["n"], meta["ncos"], meta["rounds"], meta["server_version"], meta["simjoin_version"]
  printf "settings: shared_buffers %s, work_mem %s, jit %s, max_parallel_workers_per_gather %s, statement_timeout %s\n", meta["shared_buffers"], meta["work_mem"], meta["jit"], meta["max_parallel_workers_per_gather"], meta["timeout"]
  if ("started" in meta) printf "run: %s to %s, load average before %s, after %s\n", meta["started"], meta["finished"], meta["loadavg_before"], meta["loadavg_after"]
  print ""
  print "| query | rows | custom scan (median) | PostgreSQL plan (median) | PostgreSQL / custom | custom scan chosen | results equal |"
  print "| --- | --- | --- | --- | --- | --- | --- |"
  for (i = 1; i <= nq; i++) {
    q = order[i]
    for (mi = 1; mi <= 2; mi++) {
      m = (mi == 1) ? "custom" : "native"
      if ((q, m) in failed) { med[m] = -1; cell[m] = "error " failed[q, m] }
      else if ((q, m) in timeout) { med[m] = -2; cell[m] = "> " fmt_ms(timeout[q, m]) }
      else if (nruns[q, m] > 0) { med[m] = median(substr(times[q, m], 2)); cell[m] = fmt_ms(med[m]) " (" nruns[q, m] ")" }
      else { med[m] = -1; cell[m] = "not run" }
    }
    if (med["custom"] > 0 && med["native"] > 0) ratio = sprintf("%.2fx", med["native"] / med["custom"])
    else if (med["custom"] > 0 && med["native"] == -2) ratio = sprintf("> %.0fx", timeout[q, "native"] / med["custom"])
    else ratio = "-"
    if ((q, "custom") in unstable || (q, "native") in unstable) eq = "NO (runs differ)"
    else if (((q, "custom") in result) && ((q, "native") in result)) eq = (result[q, "custom"] == result[q, "native"]) ? "yes" : "NO (" result[q, "custom"] " vs " result[q, "native"] ")"
    else if (q in verify) eq = verify[q]
    else eq = "not compared"
    printf "| %s %s | %s | %s | %s | %s | %s | %s |\n", q, title[q], rows[q], cell["custom"], cell["native"], ratio, chosen[q], eq
  }
  print ""
  print "rows: the result count (n) of the custom setting; times: median of the runs (count in brackets);"
  print "\"> T\": the plan reached statement_timeout (run once); \"yes (check)\": the plan timed out and the"
  print "check query of the script (an equivalent indexable query, or a slice) gave equal results."
}' "$log"
echo
echo "psql output (plans, EXPLAIN ANALYZE): $log"
