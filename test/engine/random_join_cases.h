// The parameters of the randomized join tests, shared by the CPU and GPU suites: dimension,
// metric, data (uniform or gaussian blobs) and shape (self-join All / Unique, or two inputs with
// either side bigger).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "test_support.h"

namespace simjoin::testing {

enum class Shape { SelfAll, SelfUnique, LeftBigger, RightBigger };
enum class Data { Uniform, Blobs };
using RandomJoinParam = std::tuple<int, Metric, Data, Shape>;

inline Points make_points(Data data, std::size_t n, std::size_t dim, unsigned seed) {
  return data == Data::Uniform ? uniform_points(n, dim, 0.0, 1.0, seed)
                               : blob_points(n, dim, 5, 0.5, seed);
}

// A seed that differs for every parameter combination.
inline unsigned seed_of(const RandomJoinParam& param) {
  const auto [dim, metric, data, shape] = param;
  return static_cast<unsigned>(dim * 31 + static_cast<int>(metric) * 7 +
                               static_cast<int>(data) * 3 + static_cast<int>(shape));
}

inline std::string random_join_name(const ::testing::TestParamInfo<RandomJoinParam>& info) {
  const char* metrics[] = {"Euclidean", "Manhattan", "Chebyshev"};
  const char* data[] = {"Uniform", "Blobs"};
  const char* shapes[] = {"SelfAll", "SelfUnique", "LeftBigger", "RightBigger"};
  return "d" + std::to_string(std::get<0>(info.param)) + "_" +
         metrics[static_cast<int>(std::get<1>(info.param))] + "_" +
         data[static_cast<int>(std::get<2>(info.param))] + "_" +
         shapes[static_cast<int>(std::get<3>(info.param))];
}

}  // namespace simjoin::testing
