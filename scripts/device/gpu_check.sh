#!/usr/bin/env bash
# The GPU backend's check on a machine with an NVIDIA GPU (the device tool's machine, or any CUDA
# box): build, the engine's GoogleTest suite (every GPU test must pass, none may skip),
# compute-sanitizer memcheck and racecheck on a reduced filter, then the issue-3 benchmarks.
# Logs and summary.txt go to $OUT (default ./device-logs).
#
#   scripts/device/gpu_check.sh [build] [test] [bandwidth] [bench-quick] [bench] [bench-issue3]
#                               [bench-tiles] [bench-chunks] [sanitize] [memcheck]
#                                                                   (no argument: all but bench)
# GoogleTest: the system's, or built from a googletest source tree in $GTEST_SRC (default
# .device-gtest: `cp -r /usr/src/googletest/googletest .device-gtest/` and carry it).
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-logs}
BUILD=${BUILD:-build-dev}
JOBS=${JOBS:-16}
SUMMARY=$OUT/summary.txt
mkdir -p "$OUT"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build test sanitize bandwidth bench-quick)
wants() { local s; for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
note() { echo "$*" | tee -a "$SUMMARY"; }
failed=0

source scripts/device/gtest.sh

if wants build; then
  nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
  note "device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader)"
  start=$SECONDS
  setup_gtest
  make -j"$JOBS" BUILD="$BUILD" "$BUILD/engine_tests" "$BUILD/simjoin_bench" > "$OUT/build.log" 2>&1
  rc=$?
  note "build: rc=$rc in $((SECONDS - start)) s"
  [ $rc -eq 0 ] || { tail -30 "$OUT/build.log"; exit 1; }
  cuobjdump --dump-resource-usage "$BUILD/cuda/grid_join_kernel.o" "$BUILD/cuda/grid_tile_kernel.o" \
    "$BUILD/cuda/brute_force_kernel.o" > "$OUT/resource-usage.txt" 2>&1
fi

# GoogleTest's summary of a log: passed, failed and skipped counts.
gtest_counts() {
  local passed failed skipped
  passed=$(grep -oE '^\[  PASSED  \] [0-9]+' "$1" | grep -oE '[0-9]+$')
  failed=$(grep -cE '^\[  FAILED  \] .*\.' "$1")
  skipped=$(grep -cE '^\[  SKIPPED \] .*\.' "$1")
  echo "passed=${passed:-0} failed=$failed skipped=$skipped"
}

if wants test; then
  start=$SECONDS
  timeout "${TEST_LIMIT:-420}" "$BUILD/engine_tests" --gtest_filter="${TEST_FILTER:-Gpu*:Dims/Gpu*}" > "$OUT/gpu-tests.log" 2>&1
  rc=$?
  note "gpu tests: rc=$rc $(gtest_counts "$OUT/gpu-tests.log") in $((SECONDS - start)) s"
  grep -E '^\[  (FAILED|SKIPPED) \]' "$OUT/gpu-tests.log" | head -20
  grep -qE '^\[  SKIPPED \] .*\.' "$OUT/gpu-tests.log" && rc=1
  [ $rc -eq 0 ] || failed=1
  if [ "${SKIP_CPU_TESTS:-0}" = 0 ]; then  # CI runs these; SKIP_CPU_TESTS=1 saves device time
    start=$SECONDS
    timeout 300 "$BUILD/engine_tests" --gtest_filter='-Gpu*:Dims/Gpu*' > "$OUT/cpu-tests.log" 2>&1
    note "other engine tests: rc=$? $(gtest_counts "$OUT/cpu-tests.log") in $((SECONDS - start)) s"
  fi
fi

if wants bandwidth; then
  # The ceilings: device-to-device copy (bytes read + written) and device-to-host into pinned memory.
  timeout 120 python3 - > "$OUT/bandwidth.log" 2>&1 <<'PY'
import torch
def timed(fn, reps):
    fn(); torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps): fn()
    stop.record(); torch.cuda.synchronize()
    return start.elapsed_time(stop) / 1e3 / reps
n = 1 << 31
x = torch.empty(n, dtype=torch.uint8, device="cuda").random_(); y = torch.empty_like(x)
print(f"device-to-device copy: {2 * n / timed(lambda: y.copy_(x), 20) / 1e9:.0f} GB/s (read + write)")
h = torch.empty(n, dtype=torch.uint8, pin_memory=True)
print(f"device-to-host, pinned: {n / timed(lambda: h.copy_(x, non_blocking=True), 5) / 1e9:.1f} GB/s")
print(f"host-to-device, pinned: {n / timed(lambda: x.copy_(h, non_blocking=True), 5) / 1e9:.1f} GB/s")
PY
  while read -r line; do note "bandwidth: $line"; done < "$OUT/bandwidth.log"
fi

# One benchmark line per run into bench.log (the bench prints phases, pairs and pairs/s).
bench() {
  local limit=$1
  shift
  echo "+ simjoin_bench $*" >> "$OUT/bench.log"
  timeout "$limit" "$BUILD/simjoin_bench" "$@" >> "$OUT/bench.log" 2>&1 ||
    echo "(rc=$? after at most $limit s)" >> "$OUT/bench.log"
}

if wants bench-quick; then
  bench 60 --data uniform --n 10000000 --dim 2 --eps 0.1427 --device gpu --algorithm grid --repeat 3
  bench 60 --data exponential --n 2000000 --dim 32 --eps 0.05 --device gpu --algorithm grid --repeat 2
fi

if wants bench; then
  u2=(--data uniform --n 10000000 --dim 2 --eps 0.1427)
  bench 60 "${u2[@]}" --device gpu --algorithm grid --repeat 3
  bench 60 "${u2[@]}" --device gpu --algorithm grid --unique --repeat 2
  bench 150 "${u2[@]}" --device cpu --algorithm grid --threads 16
  small2=(--data uniform --n 1000000 --dim 2 --eps 0.1427 --range 31.6228)
  bench 60 "${small2[@]}" --device gpu --algorithm grid --repeat 2
  bench 60 "${small2[@]}" --device gpu --algorithm brute
  for eps in 0.05 0.08; do
    e32=(--data exponential --n 2000000 --dim 32 --eps "$eps")
    bench 70 "${e32[@]}" --device gpu --algorithm grid
    e32=(--data exponential --n 250000 --dim 32 --eps "$eps")
    bench 60 "${e32[@]}" --device gpu --algorithm grid --repeat 2
    bench 90 "${e32[@]}" --device cpu --algorithm grid --threads 16
    bench 60 "${e32[@]}" --device gpu --algorithm brute
  done
  u6=(--data uniform --n 2000000 --dim 6 --eps 10)
  bench 60 "${u6[@]}" --device gpu --algorithm grid --repeat 2
  bench 120 "${u6[@]}" --device cpu --algorithm grid --threads 16
  bench 60 --data uniform --n 500000 --dim 6 --eps 10 --device gpu --algorithm grid --repeat 2
  bench 60 --data uniform --n 500000 --dim 6 --eps 10 --device gpu --algorithm brute
fi
if wants bench-issue3; then
  # The float prefilter + single-pass figures (docs/BENCHMARKS.md, GPU section), and the real
  # data set: GeoNames places (demo/data/cities500.csv.gz) as x, y, z km on a 6371 km sphere.
  python3 - demo/data/cities500.csv.gz "$OUT/cities_xyz.csv" <<'PY'
import csv, gzip, math, sys
with gzip.open(sys.argv[1], "rt", newline="") as f, open(sys.argv[2], "w") as out:
    rows = csv.reader(f)
    next(rows)
    out.write("x,y,z\n")
    for r in rows:
        lat, lon = math.radians(float(r[3])), math.radians(float(r[4]))
        out.write("%.17g,%.17g,%.17g\n" % (6371 * math.cos(lat) * math.cos(lon),
                                            6371 * math.cos(lat) * math.sin(lon), 6371 * math.sin(lat)))
PY
  for eps in ${BENCH_E32_EPS-0.05 0.08}; do
    bench 90 --data exponential --n 2000000 --dim 32 --eps "$eps" --device gpu --algorithm grid
  done
  bench 60 --data uniform --n 10000000 --dim 2 --eps 0.1427 --device gpu --algorithm grid --repeat 3
  bench 60 --data uniform --n 10000000 --dim 2 --eps 0.1427 --device gpu --algorithm grid --unique --repeat 2
  bench 60 --data uniform --n 2000000 --dim 6 --eps 10 --device gpu --algorithm grid --repeat 2
  SIMJOIN_GPU_FLOAT_FILTER=0 SIMJOIN_GPU_DIRECT_PAIRS=0 \
    bench 60 --data uniform --n 2000000 --dim 6 --eps 10 --device gpu --algorithm grid --repeat 2
  SIMJOIN_GPU_FLOAT_FILTER=0 \
    bench 60 --data exponential --n 250000 --dim 32 --eps 0.05 --device gpu --algorithm grid --repeat 2
  bench 60 --data exponential --n 250000 --dim 32 --eps 0.05 --device gpu --algorithm grid --repeat 2
  for eps in 1 5; do
    cities=(--data "csv:$OUT/cities_xyz.csv" --n 199568 --dim 3 --eps "$eps")
    bench 60 "${cities[@]}" --device gpu --algorithm grid --repeat 3
    bench 60 "${cities[@]}" --device cpu --algorithm grid --threads 16 --repeat 2
  done
  rm -f "$OUT/cities_xyz.csv"
fi
if wants bench-tiles; then
  # The tiled grid kernel against one query per thread (SIMJOIN_GPU_TILES=0), same process kind.
  for eps in 0.05 0.08; do
    bench 90 --data exponential --n 2000000 --dim 32 --eps "$eps" --device gpu --algorithm grid
    SIMJOIN_GPU_TILES=0 bench 90 --data exponential --n 2000000 --dim 32 --eps "$eps" --device gpu --algorithm grid
  done
  bench 60 --data exponential --n 250000 --dim 32 --eps 0.05 --device gpu --algorithm grid --repeat 2
  SIMJOIN_GPU_TILES=0 bench 60 --data exponential --n 250000 --dim 32 --eps 0.05 --device gpu --algorithm grid --repeat 2
  bench 60 --data uniform --n 10000000 --dim 2 --eps 0.1427 --device gpu --algorithm grid --repeat 3
  bench 60 --data uniform --n 2000000 --dim 6 --eps 10 --device gpu --algorithm grid --repeat 3
  SIMJOIN_GPU_TILES=1 bench 60 --data uniform --n 2000000 --dim 6 --eps 10 --device gpu --algorithm grid --repeat 2
fi
if wants bench-chunks; then
  # Inputs over the device-memory budget (chunked join) and the pinned chunk size.
  u2=(--data uniform --n 10000000 --dim 2 --eps 0.1427 --device gpu --algorithm grid)
  bench 60 "${u2[@]}" --repeat 2
  SIMJOIN_GPU_INPUT_BYTES=200000000 bench 60 "${u2[@]}" --repeat 2
  SIMJOIN_GPU_HOST_CHUNK_PAIRS=1048576 bench 60 "${u2[@]}" --repeat 2
  u6=(--data uniform --n 2000000 --dim 6 --eps 10 --device gpu --algorithm grid)
  bench 60 "${u6[@]}" --repeat 3
  SIMJOIN_GPU_HOST_CHUNK_PAIRS=1048576 bench 60 "${u6[@]}" --repeat 3
  SIMJOIN_GPU_INPUT_BYTES=400000000 bench 60 --data exponential --n 2000000 --dim 32 --eps 0.08 --device gpu --algorithm grid
  # The 16-core CPU grid on the same sets, same call (the 20x comparison).
  bench 120 --data uniform --n 10000000 --dim 2 --eps 0.1427 --device cpu --algorithm grid --threads 16 --repeat 2
  bench 120 --data uniform --n 2000000 --dim 6 --eps 10 --device cpu --algorithm grid --threads 16 --repeat 2
fi
if wants bench-quick || wants bench || wants bench-issue3 || wants bench-tiles || wants bench-chunks; then
  grep -vE '^\+' "$OUT/bench.log" | sed 's/^/bench: /' | cut -c1-400 | tee -a "$SUMMARY" > /dev/null
  cat "$OUT/bench.log"
fi
# One compute-sanitizer tool over the engine tests matching a filter, summarized in summary.txt.
#   sanitize_run TOOL LIMIT FILTER [TOOL OPTIONS...]
sanitize_run() {
  local tool=$1 limit=$2 filter=$3 start=$SECONDS rc
  shift 3
  timeout "$limit" compute-sanitizer --tool "$tool" "$@" --error-exitcode 9 \
    "$BUILD/engine_tests" --gtest_filter="$filter" > "$OUT/$tool.log" 2>&1
  rc=$?
  note "$tool: rc=$rc $(gtest_counts "$OUT/$tool.log") $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/$tool.log" | tail -1) in $((SECONDS - start)) s"
  [ $rc -eq 0 ] || failed=1
}

if wants sanitize || wants memcheck; then
  memcheck_filter='GpuDirectOutput.*:GpuFloatFilter.Lattice*:''GpuAvailability.*:GpuEdgeCases.*:GpuStreaming.SinkStopping*:GpuRandomJoinForcedK.*'
  memcheck_filter+=':Dims/GpuRandomJoin.*/d2_Euclidean_Blobs_*:Dims/GpuRandomJoin.*/d7_Chebyshev_*'
  memcheck_filter+=':Dims/GpuRandomJoin.*/d32_Manhattan_Uniform_*:Dims/GpuRandomJoin.*/d32_Cosine_Blobs_*'
  memcheck_filter+=':GpuChunkedJoinScenarios.*:Dims/GpuChunkedJoin.*/d2_Euclidean_Uniform_*:GpuGridKernelChoice.*'
  sanitize_run memcheck "${MEMCHECK_LIMIT:-300}" "${MEMCHECK_FILTER:-$memcheck_filter}" --leak-check full
fi
if wants sanitize; then
  racecheck_filter='GpuEdgeCases.NonFinite*:GpuEdgeCases.Lattice*:Dims/GpuRandomJoin.*/d3_*_Blobs_*'
  sanitize_run racecheck 300 "$racecheck_filter"
  # Barrier use of the tiled kernel (__syncthreads in loops whose bounds must be block-uniform).
  sanitize_run synccheck 300 "$racecheck_filter:GpuGridKernelChoice.*"
fi

exit $failed
