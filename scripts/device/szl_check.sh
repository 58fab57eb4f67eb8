#!/usr/bin/env bash
# On the GPU machine (device tool, one call of at most 10 minutes; carry .device-gtest, made here
# with `cp -r /usr/src/googletest .device-gtest`), from the repository's root: the Set-of-Z-Lists
# join on the GPU. Output under $OUT:
#   build      engine tests and simjoin_bench for Hopper (sm_90), -j16
#   gtest      every '*Szl*' test (CPU and GPU) and the other GPU tests
#   sanitizer  compute-sanitizer memcheck, racecheck and synccheck on a few GpuSzl tests
#   sort       the GPU index build with each curve sort (radix sorts on key words, merge sort with
#              z_compare) at d = 16, 64, 256, uniform and clustered
#   bench      the paper's workloads: SZL against the grid and brute force on the GPU, one line each
#   calibrate  grid, SZL and brute force on the GPU over CALIBRATION_SETS with their sampled work
#              (estimate: and choice: lines), for scripts/fit_algorithm_speeds.py --gpu
#   auto       the same sets with every algorithm and auto, one run each, side by side
#   scripts/device/szl_check.sh [build] [gtest] [sanitizer] [sort] [bench] [calibrate] [auto]
set -u -o pipefail
cd "$(dirname "$0")/../.."
steps=" ${*:-build gtest sanitizer sort bench} "
B=build-szl
DEADLINE=${DEADLINE:-540}  # seconds after the start: no benchmark run begins later than this
source scripts/device/common.sh

if [[ $steps == *" build "* ]]; then
  source scripts/device/gtest.sh
  setup_gtest
  make -j16 BUILD=$B $B/engine_tests $B/simjoin_bench >"$OUT/build.txt" 2>&1 ||
    { tail -30 "$OUT/build.txt"; exit 1; }
  echo "build done $(elapsed)"
fi

if [[ $steps == *" gtest "* ]]; then
  # The SZL tests first (CPU and GPU), then the other GPU tests (nothing else broke).
  for part in "szl:*Szl*:150" "gpu:Gpu*:*Gpu*:-*Szl*:200"; do
    name=${part%%:*} rest=${part#*:}
    filter=${rest%:*} limit=${rest##*:}
    timeout "$limit" $B/engine_tests --gtest_brief=1 --gtest_filter="$filter" >"$OUT/gtest-$name.txt" 2>&1
    echo "gtest $name rc=$? $(elapsed)"
    grep -E "^\[  FAILED|^\[  PASSED|^\[  SKIPPED|tests ran" "$OUT/gtest-$name.txt" | head -30
  done
fi

if [[ $steps == *" sanitizer "* ]]; then
  small='GpuSzlJoin.CountThenFillInManyBatches:GpuSzlRandomJoin.MatchesOracleAndCpuSzl/d7_Euclidean_Blobs_SelfAll'
  wide="$small:GpuSzlJoin.EmptyInputsAndOnePoint:GpuSzlJoin.NonFinitePointsNeverMatch:GpuSzlRandomJoin.MatchesOracleAndCpuSzl/d64_Manhattan_Uniform_*"
  run_sanitizers $B/engine_tests "$small" "$wide" 45 75
fi

if [[ $steps == *" sort "* ]]; then
  for data in uniform clustered; do
    for args in "--n 1000000 --dim 16" "--n 500000 --dim 64" "--n 250000 --dim 256"; do
      timeout 60 $B/simjoin_bench --data $data --range 1 $args --eps 0.1 --device gpu --zsort |
        sed "s/^/$data /"
    done
  done 2>&1 | tee "$OUT/sort.txt"
  echo "sort done $(elapsed)"
fi

# run TIMEOUT ARGS...: one simjoin_bench line on the GPU (a timeout says so); skipped when the
# deadline is near, cut short to it.
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
    # Uniform 16-D in the unit cube (--range 1), eps 0.1: n = 64k and 256k (brute force too).
    for n in 65536 262144; do
      for algorithm in szl grid brute; do
        run 30 --data uniform --range 1 --n $n --dim 16 --eps 0.1 --algorithm $algorithm
      done
    done
    # The same SZL join walking through the ids (no curve-ordered copies).
    SIMJOIN_GPU_SZL_COPIES=0 run 30 --data uniform --range 1 --n 262144 --dim 16 --eps 0.1 --algorithm szl
    # Uniform 16-D, n = 256k: growing eps (0.1 above).
    for eps in 0.01 0.05 0.2 0.35; do
      for algorithm in szl grid; do
        run 30 --data uniform --range 1 --n 262144 --dim 16 --eps $eps --algorithm $algorithm
      done
    done
    # Exponential (lambda 40), 2M points: 32-D at eps 0.07 and 64-D at eps 0.14 (about 1e6 pairs
    # each, estimated from a sample).
    for set in "32 0.07" "64 0.14"; do
      read -r dim eps <<<"$set"
      for algorithm in szl grid; do
        run 45 --data exponential --n 2000000 --dim $dim --eps $eps --algorithm $algorithm
      done
    done
    # 100-D clustered (100 blobs in [0, 100]^100, sigma 0.5), 500k points, about 1e6 pairs.
    for algorithm in szl grid; do
      run 40 --data clustered --n 500000 --dim 100 --eps 5.5 --algorithm $algorithm
    done
    # Fashion-MNIST (Zalando, 70,000 images of 784 pixels 0-255; carry .device-data, made from
    # Debian's dataset-fashion-mnist as a CSV): SZL and grid on all 70k, brute force on 20k.
    if [ -f .device-data/fashion_mnist_70k.csv.gz ]; then
      [ -f /tmp/fmnist.csv ] || gunzip -c .device-data/fashion_mnist_70k.csv.gz >/tmp/fmnist.csv
      for eps in 800 1200; do
        for algorithm in szl grid; do
          run 45 --data csv:/tmp/fmnist.csv --n 70000 --eps $eps --algorithm $algorithm
        done
        for algorithm in szl grid brute; do
          run 45 --data csv:/tmp/fmnist.csv --n 20000 --eps $eps --algorithm $algorithm
        done
      done
    fi
    # Two inputs: 1M probes against 256k points, 16-D uniform.
    for algorithm in szl grid; do
      run 30 --data uniform --range 1 --n 262144 --two 1048576 --dim 16 --eps 0.1 --algorithm $algorithm
    done
    # Uniform 16-D, eps 0.1: n = 1M and 4M (largest last: the deadline cuts these first).
    for n in 1048576 4194304; do
      for algorithm in szl grid; do
        run 45 --data uniform --range 1 --n $n --dim 16 --eps 0.1 --algorithm $algorithm
      done
    done
  } 2>&1 | tee "$OUT/bench.txt"
  echo "bench done $(elapsed)"
fi

# The calibration and auto sets (simjoin_bench arguments; brute force where n*m*d <= 2e13).
CALIBRATION_SETS=(
  "--data uniform --range 1 --n 262144 --dim 16 --eps 0.1"
  "--data uniform --range 1 --n 262144 --dim 16 --eps 0.2"
  "--data uniform --range 1 --n 1048576 --dim 16 --eps 0.1"
  "--data uniform --range 1 --n 262144 --two 1048576 --dim 16 --eps 0.1"
  "--data uniform --n 2000000 --dim 2 --eps 0.05"
  "--data clustered --n 1000000 --dim 3 --eps 0.1"
  "--data exponential --n 500000 --dim 32 --eps 0.05"
  "--data clustered --n 200000 --dim 100 --eps 5.5"
  "--data uniform --range 1 --n 65536 --dim 64 --eps 1"
  "--data uniform --range 1 --n 20000 --dim 256 --eps 3"
  "--data csv:/tmp/fmnist.csv --n 20000 --eps 1200"
  "--data csv:/tmp/fmnist.csv --n 70000 --eps 800"
)
algorithm_runs() {  # STEP ALGORITHMS...: every set with each algorithm, all output lines kept
  local step=$1 set algorithm n two dim
  shift
  [ -f /tmp/fmnist.csv ] || gunzip -c .device-data/fashion_mnist_70k.csv.gz >/tmp/fmnist.csv
  for set in "${CALIBRATION_SETS[@]}"; do
    n=$(sed -E 's/.*--n ([0-9]+).*/\1/' <<<"$set")
    two=$(grep -oE -- '--two [0-9]+' <<<"$set" | cut -d' ' -f2)
    dim=$(grep -oE -- '--dim [0-9]+' <<<"$set" | cut -d' ' -f2)
    for algorithm in "$@"; do
      if [ "$algorithm" = brute ] &&
         ! awk -v a="$n" -v b="${two:-$n}" -v d="${dim:-784}" 'BEGIN { exit !(a * b * d <= 2e13) }'; then
        continue
      fi
      [ "$(left)" -lt 5 ] && { echo "SKIPPED (deadline): $set $algorithm"; continue; }
      timeout 60 $B/simjoin_bench --device gpu $set --algorithm $algorithm || echo "TIMEOUT/FAIL: $set $algorithm"
    done
  done 2>&1 | tee "$OUT/$step.txt"
  echo "$step done $(elapsed)"
}
[[ $steps == *" calibrate "* ]] && algorithm_runs calibrate grid szl brute
[[ $steps == *" auto "* ]] && algorithm_runs auto grid szl brute auto

