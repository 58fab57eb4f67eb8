# Sourced by the engine's device scripts (scripts/device/agg_check.sh, scripts/device/szl_check.sh) from the
# repository's root on the GPU machine: the log folder, the clock, the GPU's name, and the
# compute-sanitizer runs over a test binary.
OUT=${OUT:-$PWD/device-logs}
mkdir -p "$OUT"
export CUDA_ARCH="-gencode arch=compute_90,code=sm_90"
start=$(date +%s)
elapsed() { echo "[$(( $(date +%s) - start )) s]"; }
left() { echo $(( DEADLINE - ($(date +%s) - start) )); }  # seconds to the script's DEADLINE
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader

# run_sanitizers BINARY SMALL WIDE SMALL_LIMIT WIDE_LIMIT: memcheck (with the leak check) over the
# gtest filter WIDE, racecheck and synccheck over SMALL, each under its time limit in seconds;
# one line per tool, the log in $OUT/TOOL.txt.
run_sanitizers() {
  local binary=$1 small=$2 wide=$3 small_limit=$4 wide_limit=$5 tool extra filter limit
  local sanitizer
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck synccheck; do
    extra="" filter=$small limit=$small_limit
    [ "$tool" = memcheck ] && extra="--leak-check full" filter=$wide limit=$wide_limit
    timeout "$limit" "$sanitizer" --tool $tool $extra "$binary" --gtest_filter="$filter" \
      >"$OUT/$tool.txt" 2>&1
    echo "$tool rc=$? $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$OUT/$tool.txt" | tail -3 | tr '\n' ' ') $(elapsed)"
  done
}
