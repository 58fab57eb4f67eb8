#!/usr/bin/env bash
# On the GPU machine (device tool; carry .device and .device-gtest), from the repository's root:
# sessions ended mid-join with the GPU service on a real GPU (test/session_death, simjoin.device
# = gpu), then the engine's GPU tests of streaming and edge cases and compute-sanitizer memcheck
# over them (the engine's threads now counted and abandoned at exit: engine/parallel/worker_thread.h).
#   ROUNDS (default 200) sessions ended; output and logs under $OUT.
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-logs}
mkdir -p "$OUT"
source scripts/device/pg_up.sh || exit 1
source scripts/device/gtest.sh && setup_gtest
export CUDA_ARCH="-gencode arch=compute_90,code=sm_90"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
{ make -j16 all build/engine_tests && make install; } >"$OUT/build.txt" 2>&1 || { tail -20 "$OUT/build.txt"; exit 1; }
restart_preloaded 60 || exit 1
psql -X -c "SELECT * FROM simjoin_devices()" | tee "$OUT/devices.txt"
SIMJOIN_EXISTING_SERVER=1 SIMJOIN_SERVER_LOG=/tmp/pg.log SIMJOIN_TEST_LOGS=$OUT \
  timeout 300 bash test/session_death/session_death.sh --clusters preloaded --session-devices gpu \
  --rounds "${ROUNDS:-200}" --rows 1000000 --seed 3 2>&1 | tee "$OUT/session_death.txt"
grep -E "simjoin|terminated by signal" /tmp/pg.log | grep -v "statement:" | tail -5
timeout 120 build/engine_tests --gtest_filter='GpuStreaming*:GpuEdgeCases*:ThreadAbandonment*:PairStream*' --gtest_brief=1 \
  >"$OUT/gtest.txt" 2>&1; echo "gtest rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/gtest.txt" | tr '\n' ' ')"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 150 "$sanitizer" --tool memcheck --leak-check full build/engine_tests --gtest_filter='GpuStreaming*:GpuEdgeCases*' \
  >"$OUT/memcheck.txt" 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|LEAK SUMMARY|PASSED|FAILED' "$OUT/memcheck.txt" | tail -3 | tr '\n' ' ')"
