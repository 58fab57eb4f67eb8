// The float32 prefilter's host constants and the float copy of the points (see float_filter.cuh).
#include "float_filter.cuh"

#include <cmath>
#include <limits>

#include "cuda_check.h"
#include "engine/join/filter_scale.h"

namespace simjoin::gpu {
namespace {

constexpr double kU = 0x1p-24;                          // float unit roundoff
constexpr double kUa = kU * (1.0 + 0x1p-20);            // >= u + v + uv (copy to float)
constexpr double kHostSlack = 1.0 + 0x1p-40;            // covers the host's own double rounding
constexpr double kFloatMinSub = 0x1p-149;               // smallest positive subnormal float

__global__ void float_copy_kernel(FloatCopyArgs a) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const double* p = a.coords + i * a.dim;
  float* out = a.out + i * a.dim;
  double m = 0.0;
  for (int j = 0; j < a.dim; ++j) {
    const double shifted = __dsub_rn(p[j], a.centre[j]);
    out[j] = __double2float_rn(shifted);
    m = fmax(m, fabs(shifted));  // ignores NaN: a point with a NaN never matches anyway
  }
  // Ma >= max_j |a_j - c_j|: |fl64(a_j - c_j)| >= |a_j - c_j| (1 - 2^-53).
  a.mag[i] = __double2float_ru(__dmul_ru(m, 1.0 + 0x1p-50));
}

}  // namespace

FloatFilter make_float_filter(double bound, Metric metric, int dim, double margin) {
  FloatFilter f;
  // Disabled: the float sums are still computed, but a +inf limit rejects nothing.
  const auto disabled = [] {
    FloatFilter off;
    off.enabled = false;
    off.k = 0.0f;
    off.r = std::numeric_limits<float>::infinity();
    off.scale = 1.0f;
    off.tiny = 0.0f;
    return off;
  };
  if (!(bound >= 0.0) || !std::isfinite(bound) || dim <= 0) return disabled();
  const double m = margin;
  const double d = dim;
  const auto up = [&](double x) { return m > 0.0 ? round_up_to_float(x * kHostSlack) : float(x); };
  // (1+u)^d <= exp(d u); B as in the header (bound widened for the double rounding of S_d).
  const double scale_d = m > 0.0 ? std::exp(d * kU) : 1.0;
  if (metric == Metric::Euclidean) {
    const double root_b =
        std::sqrt(bound + d * m * std::numeric_limits<double>::denorm_min()) *
        (1.0 + m * (d + 4) * 0x1p-52);
    const double k = (1.0 + m * kU) * std::sqrt(d) * m * kUa;
    const double r = (1.0 + m * kU) * (root_b + std::sqrt(d) * m * kFloatMinSub);
    f.k = up(k);
    f.r = up(r);
    f.scale = up(scale_d);
    f.tiny = up(scale_d * d * m * 0x1p-150);
  } else {
    const double b = bound * (1.0 + m * (d + 4) * 0x1p-52);
    const double per_term = metric == Metric::Manhattan ? d : 1.0;  // d e or e
    f.k = up(per_term * m * kUa);
    f.r = up(b + per_term * m * kFloatMinSub);
    f.scale = up(metric == Metric::Manhattan ? scale_d : 1.0 + m * kU);
    f.tiny = 0.0f;
  }
  f.enabled = std::isfinite(f.r) && std::isfinite(f.k) && std::isfinite(f.scale);
  return f.enabled ? f : disabled();
}

void make_float_copy(const FloatCopyArgs& args, cudaStream_t stream) {
  if (args.n == 0) return;  // dim 0 too: every Ma is then 0
  constexpr int kBlock = 256;
  float_copy_kernel<<<static_cast<unsigned>((args.n + kBlock - 1) / kBlock), kBlock, 0, stream>>>(
      args);
  CUDA_CHECK_LAUNCH();
}

}  // namespace simjoin::gpu
