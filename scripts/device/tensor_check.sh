#!/usr/bin/env bash
# On the GPU machine (device tool; carry .device-gtest), from the repository's root: the joins on
# tensor cores, the kernels that keep the dot products in registers against those that stage them
# through shared memory. Output under $OUT:
#   build     engine_tests and simjoin_bench for sm_90
#   test      the tensor-core and kNN tests, then every GPU test (TEST_FILTER to narrow)
#   sanitize  compute-sanitizer memcheck, racecheck and synccheck on the tensor and kNN tests
#   bench     the same joins with each kernel, one after the other (docs/benchmarks/tensor_cores.md,
#             knn.md)
#   prune     the joins with tile pruning and without, one after the other (tensor_cores.md)
#   scripts/device/tensor_check.sh [build] [test] [sanitize] [bench] [prune]
set -u -o pipefail
cd "$(dirname "$0")/../.."
source scripts/device/common.sh
source scripts/device/gtest.sh
B=build-dev
steps=" ${*:-build test sanitize bench} "
run_bench() { "$B/simjoin_bench" "$@" 2>&1 | grep -E "^(knn|data=|choice)" | cut -c1-400; }

if [[ $steps == *" build "* ]]; then
  GTEST_SRC=.device-gtest setup_gtest
  make -j16 BUILD=$B CUDA_ARCH="$CUDA_ARCH" $B/engine_tests $B/simjoin_bench \
    >"$OUT/build.txt" 2>&1 ||
    { tail -30 "$OUT/build.txt"; exit 1; }
  echo "build $(elapsed)"
fi

if [[ $steps == *" test "* ]]; then
  timeout 420 $B/engine_tests --gtest_filter="${TEST_FILTER:-Gpu*:Dims/Gpu*}" \
    >"$OUT/gpu-tests.txt" 2>&1
  echo "gpu tests rc=$? $(grep -E '^\[  PASSED  \]' "$OUT/gpu-tests.txt") $(elapsed)"
  grep -E '^\[  (FAILED|SKIPPED) \]' "$OUT/gpu-tests.txt" | head -20
fi

if [[ $steps == *" sanitize "* ]]; then
  run_sanitizers $B/engine_tests \
    'GpuTensorJoin.DuplicatesNonFiniteRowsAndCountFill:GpuKnnJoin.Lattice*' \
    'GpuTensorJoin.*:GpuKnnJoin.Lattice*:GpuKnnJoin.Self*' ${SMALL_LIMIT:-120} ${WIDE_LIMIT:-240}
fi

if [[ $steps == *" bench "* ]]; then
  for registers in 1 0; do
    echo "== SIMJOIN_GPU_TENSOR_REGISTERS=$registers"
    export SIMJOIN_GPU_TENSOR_REGISTERS=$registers
    for eps in 0.05 0.08; do
      run_bench --data exponential --n 2000000 --dim 32 --eps $eps --device gpu --algorithm brute \
        --self --unique --repeat 2
    done
    run_bench --data exponential --n 1000000 --dim 64 --eps 0.15 --device gpu --algorithm brute \
      --self --unique --repeat 2
    run_bench --data exponential --n 500000 --dim 128 --eps 0.289 --device gpu --algorithm brute \
      --self --unique --repeat 2
    run_bench --data exponential --n 500000 --dim 128 --eps 0.289 --device gpu --algorithm brute \
      --self --repeat 2
  done
  unset SIMJOIN_GPU_TENSOR_REGISTERS
  echo "== auto"
  for eps in 0.05 0.08; do
    run_bench --data exponential --n 2000000 --dim 32 --eps $eps --device gpu --algorithm auto \
      --self --unique --repeat 2
  done
  for rows in 16 0; do
    echo "== SIMJOIN_GPU_KNN_PICK_ROWS=$rows"
    SIMJOIN_GPU_KNN_PICK_ROWS=$rows run_bench --data exponential --n 1000000 --dim 128 \
      --nearest 10 --device gpu --eps inf --repeat 2
  done
  echo "bench $(elapsed)"
fi

if [[ $steps == *" prune "* ]]; then
  for prune in 1 0; do
    echo "== SIMJOIN_GPU_TENSOR_PRUNE=$prune"
    export SIMJOIN_GPU_TENSOR_PRUNE=$prune
    run_bench --data clustered --n 1000000 --dim 128 --eps 6 --device gpu --algorithm brute \
      --self --unique --repeat 2
    run_bench --data clustered --n 200000 --dim 768 --eps 18 --device gpu --algorithm brute \
      --self --unique --repeat 2
    run_bench --data units --n 200000 --dim 100 --metric cosine --eps 0.3 --device gpu \
      --algorithm brute --self --unique --repeat 2
    run_bench --data exponential --n 500000 --dim 128 --eps 0.289 --device gpu --algorithm brute \
      --self --unique --repeat 2
    run_bench --data exponential --n 1000000 --dim 768 --eps 0.8378 --device gpu \
      --algorithm brute --self --repeat 2
    # Fashion-MNIST (carry .device-data: Debian's dataset-fashion-mnist as a CSV, 70,000 x 784).
    if [ -f .device-data/fashion_mnist_70k.csv.gz ]; then
      [ -f /tmp/fmnist.csv ] || gunzip -c .device-data/fashion_mnist_70k.csv.gz >/tmp/fmnist.csv
      for eps in 800 1200; do
        run_bench --data csv:/tmp/fmnist.csv --n 70000 --eps $eps --device gpu --algorithm brute \
          --self --unique --repeat 2
      done
    fi
  done
  unset SIMJOIN_GPU_TENSOR_PRUNE
  echo "== auto"
  run_bench --data clustered --n 1000000 --dim 128 --eps 6 --device gpu --algorithm auto \
    --self --unique --repeat 2
  run_bench --data clustered --n 200000 --dim 768 --eps 18 --device gpu --algorithm auto \
    --self --unique --repeat 2
  for eps in 800 1200; do
    [ -f /tmp/fmnist.csv ] && run_bench --data csv:/tmp/fmnist.csv --n 70000 --eps $eps \
      --device gpu --algorithm auto --self --unique --repeat 2
  done
  echo "prune $(elapsed)"
fi
