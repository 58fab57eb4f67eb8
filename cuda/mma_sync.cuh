// Warp-level tensor-core instructions and asynchronous copies, as PTX (sm_80 and later): the
// FP16 m16n8k16 product with FP32 accumulation on registers, ldmatrix's loads of its operands
// from shared memory, and cp.async's global-to-shared copies that run behind the arithmetic.
//
// Fragment layout of m16n8k16 (lane = 4 g + t, g = lane / 4, t = lane % 4):
//   A (16 x 16, row-major): a[0] rows g, columns 2t, 2t+1; a[1] row g + 8; a[2] row g, columns
//     2t + 8, 2t + 9; a[3] row g + 8, columns 2t + 8, 2t + 9 (two halves a register);
//   B (16 x 8, given as 8 rows of 16, i.e. the candidates' rows): b[0] row g, columns 2t, 2t+1;
//     b[1] row g, columns 2t + 8, 2t + 9;
//   C (16 x 8, floats): c[0], c[1] row g, columns 2t, 2t+1; c[2], c[3] row g + 8.
#pragma once

#include <cstdint>

namespace simjoin::gpu::mma {

// c += a b (m16n8k16, FP16 operands, FP32 accumulators).
__device__ __forceinline__ void product_m16n8k16(float (&c)[4], const std::uint32_t (&a)[4],
                                                 std::uint32_t b0, std::uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ std::uint32_t shared_address(const void* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

// Four 8 x 8 matrices of halves from shared memory: lanes 8i .. 8i + 7 give the addresses of
// matrix i's rows (16 bytes each); r[i] is this lane's part of matrix i (row g, columns 2t, 2t+1).
__device__ __forceinline__ void load_matrices_x4(std::uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
}

// Starts copying 16 bytes from global to shared memory (both 16-byte aligned).
__device__ __forceinline__ void copy_async_16(void* shared, const void* global) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared_address(shared)),
               "l"(global));
}

// Closes the group of copies started since the last commit.
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::); }

// Waits until at most PENDING committed groups of this thread's copies are still in flight.
template <int PENDING>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
}

}  // namespace simjoin::gpu::mma
