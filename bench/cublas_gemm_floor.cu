// What cuBLAS would give the tensor-core join: the dot products of n x n FP16 points of `dim`
// dimensions (FP32 accumulation, cublasGemmEx) in blocks of `block` queries, each block's
// n-wide result written to GPU memory and read back once by a minimal filter (count the entries
// above a threshold), which is the least a join on a library GEMM must do. Times the GEMMs
// alone and GEMM + filter over the whole n x n product; a self-join needs half of it.
//
//   nvcc -O3 -arch=sm_90 -o cublas_gemm_floor bench/cublas_gemm_floor.cu -lcublas
//   ./cublas_gemm_floor N DIM [BLOCK]
#include <cublas_v2.h>
#include <cuda_fp16.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                  \
  do {                                                                               \
    const auto status = (call);                                                      \
    if (static_cast<int>(status) != 0) {                                             \
      std::fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #call,     \
                   static_cast<int>(status));                                        \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

__global__ void fill_points(__half* points, std::size_t count, unsigned seed) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  unsigned x = static_cast<unsigned>(i) * 2654435761u + seed;
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  x ^= x >> 15;
  points[i] = __float2half(static_cast<float>(x & 0xffff) / 65536.0f - 0.5f);
}

__global__ void count_above(const float* dots, std::size_t count, float threshold,
                            unsigned long long* total) {
  unsigned long long mine = 0;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x)
    mine += dots[i] > threshold;
  for (int offset = 16; offset > 0; offset >>= 1) mine += __shfl_down_sync(~0u, mine, offset);
  if ((threadIdx.x & 31) == 0 && mine) atomicAdd(total, mine);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s N DIM [BLOCK]\n", argv[0]);
    return 2;
  }
  const std::size_t n = std::strtoull(argv[1], nullptr, 10);
  const int dim = std::atoi(argv[2]);
  const std::size_t block = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 8192;
  __half* points;
  float* dots;
  unsigned long long* total;
  CHECK(cudaMalloc(&points, sizeof(__half) * n * dim));
  CHECK(cudaMalloc(&dots, sizeof(float) * block * n));
  CHECK(cudaMalloc(&total, sizeof(unsigned long long)));
  fill_points<<<(n * dim + 255) / 256, 256>>>(points, n * dim, 7u);
  CHECK(cudaMemset(total, 0, sizeof(unsigned long long)));
  cublasHandle_t handle;
  CHECK(cublasCreate(&handle));
  const float alpha = 1.0f, beta = 0.0f;
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int filter = 0; filter < 2; ++filter) {
    for (int round = 0; round < 2; ++round) {  // the first round warms cuBLAS up
      CHECK(cudaEventRecord(start));
      for (std::size_t q0 = 0; q0 < n; q0 += block) {
        const int rows = static_cast<int>(std::min(block, n - q0));
        // Row-major points are column-major dim x n: dots(c, q) = points_c . points_q.
        CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), rows, dim,
                           &alpha, points, CUDA_R_16F, dim, points + q0 * dim, CUDA_R_16F, dim,
                           &beta, dots, CUDA_R_32F, static_cast<int>(n), CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT));
        if (filter) count_above<<<132 * 8, 256>>>(dots, std::size_t(rows) * n, 0.9f, total);
      }
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0.0f;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (round == 1) {
        const double flop = 2.0 * double(n) * double(n) * dim;
        std::printf("n=%zu dim=%d block=%zu %s: %.4f s for the n x n product (%.0f TFLOPS), "
                    "%.4f s for a self-join's half\n",
                    n, dim, block, filter ? "gemm+filter" : "gemm alone", ms / 1e3,
                    flop / (ms / 1e3) / 1e12, ms / 2e3);
      }
    }
  }
  CHECK(cublasDestroy(handle));
  return 0;
}
