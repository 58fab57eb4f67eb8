#!/usr/bin/env bash
# Differential fuzzing of the SimilarityJoin custom scan and similarity_join(): builds
# build/simjoin_fuzz, starts a throwaway cluster (scripts/pg_cluster.sh; with
# SIMJOIN_EXISTING_SERVER=1 it uses the server PGHOST/PGPORT name instead), and runs the seeds
# one after another, each for its share of the time. With no seeds, or time left after them, it
# draws random seeds and prints them, so every seed of a long run is on record. simjoin must be
# installed already (this script never runs make install).
#
#   bash scripts/fuzz.sh [--seconds N] [--seeds "1 2 3"] [--device auto|cpu|gpu] [-- simjoin_fuzz args]
#
#   --seconds N   the whole run's time (default 120); given seeds share it equally, random seeds
#                 get at most SIMJOIN_FUZZ_SLICE seconds each (default 300)
#   --seeds LIST  seeds to run first
#   --device D    simjoin.device for both plans
# Failures are printed and appended to SIMJOIN_FUZZ_LOG (default build/fuzz-failures.log).
# Exit status 1 when a seed found a difference or a crash.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=120
seeds=""
device=""
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "usage: bash scripts/fuzz.sh [--seconds N] [--seeds \"1 2 3\"] [--device gpu] [-- args]" >&2; exit 2 ;;
  esac
done
slice_max=${SIMJOIN_FUZZ_SLICE:-300}
log=${SIMJOIN_FUZZ_LOG:-build/fuzz-failures.log}

make -s fuzz-build
mkdir -p "$(dirname "$log")"

if [ "${SIMJOIN_EXISTING_SERVER:-0}" != 1 ]; then
  # shellcheck source=scripts/pg_cluster.sh
  source scripts/pg_cluster.sh
  pg_cluster_start
  echo "fuzz.sh: throwaway cluster on port $PGPORT"
fi

args=()
[ -n "$device" ] && args+=(--device "$device")
args+=(--log "$log")

start=$(date +%s)
summaries=()
status=0
run_seed() {  # seed, seconds
  local out rc=0
  echo "fuzz.sh: seed $1 for $2 s"
  out=$(mktemp)
  build/simjoin_fuzz --seed "$1" --seconds "$2" "${args[@]}" ${extra[@]+"${extra[@]}"} | tee "$out" || rc=$?
  summaries+=("$(grep '^fuzz: seed ' "$out" | tail -1 || echo "fuzz: seed $1: no summary (exit $rc)")")
  rm -f "$out"
  [ "$rc" -eq 0 ] || status=1
}

given=($seeds)
if [ ${#given[@]} -gt 0 ]; then
  share=$(( seconds / ${#given[@]} ))
  [ "$share" -ge 1 ] || share=1
  for s in "${given[@]}"; do run_seed "$s" "$share"; done
fi
while :; do
  left=$(( seconds - ($(date +%s) - start) ))
  [ "$left" -ge 10 ] || break
  s=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
  echo "fuzz.sh: random seed $s"
  run_seed "$s" $(( left < slice_max ? left : slice_max ))
done

echo "fuzz.sh: summaries"
for line in "${summaries[@]}"; do echo "  $line"; done
[ "$status" -eq 0 ] || echo "fuzz.sh: failures were found (also in $log)"
exit "$status"
