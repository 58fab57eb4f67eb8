#!/usr/bin/env bash
# On the GPU machine (device tool, one call of at most 10 minutes; carry .device-gtest, made here
# with `cp -r /usr/src/googletest .device-gtest`), from the repository's root: the neighbour
# aggregates and DBSCAN folded on the device (cuda/gpu_aggregates.h). Output under $OUT:
#   build      the engine library and simjoin_bench for Hopper (sm_90), -j16, and agg_tests: the
#              GPU aggregate tests and the CPU aggregate tests alone (not every engine test)
#   gtest      agg_tests: GpuNeighbourStats*, GpuDbscan* (GPU against the CPU engine), and the
#              CPU NeighbourStats* / Dbscan* / PairFoldHost* tests
#   sanitizer  compute-sanitizer memcheck (leaks too), racecheck and synccheck on small tests
#   bench      simjoin_bench --device gpu: DBSCAN of 10M uniform 2-D points and of 1M clustered
#              32-D points, neighbour stats of 1M points; the engine call (device fold) and the
#              host fold over the same GPU join (--host-fold) side by side
#   all-gpu    (not by default) every engine test, to see that the other GPU tests still pass
#   scripts/device/agg_check.sh [build] [gtest] [sanitizer] [bench] [all-gpu]
set -u -o pipefail
cd "$(dirname "$0")/../.."
steps=" ${*:-build gtest sanitizer bench} "
B=build-agg
DEADLINE=${DEADLINE:-530}  # seconds after the start: no benchmark run begins later than this
source scripts/device/common.sh

TESTS="test/engine/gpu_neighbour_stats_test test/engine/gpu_dbscan_test test/engine/gpu_backend_install
       test/engine/neighbour_stats_test test/engine/dbscan_test test/engine/pair_fold_host_test"
if [[ $steps == *" build "* ]]; then
  source scripts/device/gtest.sh
  setup_gtest
  objects=$(for t in $TESTS; do echo "$B/$t.o"; done)
  nvcc=$(ls /usr/local/cuda/bin/nvcc 2>/dev/null || command -v nvcc)
  { make -j16 BUILD=$B $B/libsimjoin_engine.a $B/simjoin_bench $objects &&
    g++ -pthread $objects $B/libsimjoin_engine.a -o $B/agg_tests -lgtest -lgtest_main \
      -L"$(dirname "$(dirname "$nvcc")")/lib64" -lcudart_static -ldl -lrt; } >"$OUT/build.txt" 2>&1 ||
    { tail -30 "$OUT/build.txt"; exit 1; }
  echo "build done $(elapsed)"
fi

if [[ $steps == *" gtest "* ]]; then
  for part in "gpu:GpuNeighbourStats*:GpuDbscan*:*GpuNeighbourStats*:*GpuDbscan*:240" \
              "cpu:NeighbourStats*:Dbscan*:*/NeighbourStats*:*/Dbscan*:PairFoldHost*:60"; do
    name=${part%%:*} rest=${part#*:}
    filter=${rest%:*} limit=${rest##*:}
    timeout "$limit" $B/agg_tests --gtest_brief=1 --gtest_filter="$filter" >"$OUT/gtest-$name.txt" 2>&1
    echo "gtest $name rc=$? $(elapsed)"
    grep -E "^\[  FAILED|^\[  PASSED|^\[  SKIPPED|tests ran|Failure|differ|point [0-9]" \
      "$OUT/gtest-$name.txt" | head -40
  done
fi

if [[ $steps == *" sanitizer "* ]]; then
  small='GpuNeighbourStats.EmptyAndOnePointInputs:GpuDbscan.BorderBetweenTwoClusters:GpuDbscan.NonFinitePoints'
  wide="$small:*GpuNeighbourStatsRandom.MatchesCpuEngine/d3_Euclidean_Blobs_SelfAll:*GpuNeighbourStatsRandom.MatchesCpuEngine/d3_Manhattan_Uniform_RightBigger:*GpuDbscanRandom.MatchesCpuEngine/2"
  # racecheck needs about 2 minutes for the small tests (each GPU case runs three field sets)
  run_sanitizers $B/agg_tests "$small" "$wide" 240 90
fi

# run TIMEOUT ARGS...: simjoin_bench on the GPU (a timeout says so); skipped when the deadline is
# near, cut short to it.
run() {
  local limit=$1 remaining
  shift
  remaining=$(left)
  if [ "$remaining" -lt 5 ]; then echo "SKIPPED (deadline): $*"; return; fi
  [ "$remaining" -lt "$limit" ] && limit=$remaining
  timeout "$limit" $B/simjoin_bench --device gpu "$@" | grep -v '^$' | grep -v '^estimate:' ||
    echo "TIMEOUT/FAIL($limit s): $*"
}

if [[ $steps == *" bench "* ]]; then
  {
    # DBSCAN, 10M uniform 2-D points in [0, 100]^2 (about 8 neighbours a point at eps 0.05).
    run 120 --data uniform --n 10000000 --dim 2 --eps 0.05 --algorithm grid --dbscan 5 --host-fold
    # DBSCAN, 1M points in 100 gaussian blobs (sigma 0.5) in [0, 100]^32.
    run 120 --data clustered --n 1000000 --dim 32 --eps 3 --dbscan 20 --host-fold
    # Neighbour stats of 1M points: 2-D uniform (about 80 partners a point), 3-D clustered.
    run 60 --data uniform --n 1000000 --dim 2 --eps 0.5 --algorithm grid --stats --host-fold
    run 60 --data clustered --n 1000000 --dim 3 --eps 0.1 --stats --host-fold
  } 2>&1 | tee "$OUT/bench.txt"
  echo "bench done $(elapsed)"
fi

if [[ $steps == *" all-gpu "* ]]; then
  make -j16 BUILD=$B $B/engine_tests >"$OUT/build-all.txt" 2>&1 || { tail -30 "$OUT/build-all.txt"; exit 1; }
  timeout 300 $B/engine_tests --gtest_brief=1 --gtest_filter='Gpu*:*Gpu*' >"$OUT/gtest-all-gpu.txt" 2>&1
  echo "all-gpu rc=$? $(elapsed)"
  grep -E "^\[  FAILED|^\[  PASSED|tests ran" "$OUT/gtest-all-gpu.txt" | head -30
fi
