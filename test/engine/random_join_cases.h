// The parameters of the randomized join tests, shared by the CPU and GPU suites: dimension,
// metric, data (uniform or gaussian blobs) and shape (self-join All / Unique, or two inputs with
// either side bigger), and the inputs they give.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "join_scenarios.h"
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

// How many points a side has when it is the smaller or the bigger one of a case.
struct SideSizes {
  std::size_t smaller = 0;
  std::size_t bigger = 0;
};

// The inputs of one case: `left` is the smaller side for Shape::RightBigger, `right` for
// Shape::LeftBigger (self-joins use the bigger left); eps from a sample of left.
struct RandomJoinInputs {
  Points left;
  Points right;
  bool self = false;
  SelfPairs mode = SelfPairs::All;
  Metric metric = Metric::Euclidean;
  double eps = 0.0;
  const Points* right_input() const { return self ? nullptr : &right; }
};

inline RandomJoinInputs random_join_inputs(const RandomJoinParam& param, SideSizes left_sizes,
                                           SideSizes right_sizes) {
  const auto [dim, metric, data, shape] = param;
  const unsigned seed = seed_of(param);
  RandomJoinInputs in;
  in.left = make_points(data, shape == Shape::RightBigger ? left_sizes.smaller : left_sizes.bigger,
                        dim, seed);
  in.right = make_points(
      data, shape == Shape::LeftBigger ? right_sizes.smaller : right_sizes.bigger, dim, seed + 100);
  in.self = shape == Shape::SelfAll || shape == Shape::SelfUnique;
  in.mode = shape == Shape::SelfUnique ? SelfPairs::Unique : SelfPairs::All;
  in.metric = metric;
  in.eps = eps_from_sample(in.left, metric);
  return in;
}

// Every metric, data kind and shape for the given dimensions (::testing::Values of ints).
template <typename Dims>
auto random_join_params(const Dims& dims) {
  return ::testing::Combine(
      dims,
      ::testing::Values(Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev, Metric::Cosine),
      ::testing::Values(Data::Uniform, Data::Blobs),
      ::testing::Values(Shape::SelfAll, Shape::SelfUnique, Shape::LeftBigger, Shape::RightBigger));
}

inline std::string random_join_name(const ::testing::TestParamInfo<RandomJoinParam>& info) {
  const char* metrics[] = {"Euclidean", "Manhattan", "Chebyshev", "Cosine"};
  const char* data[] = {"Uniform", "Blobs"};
  const char* shapes[] = {"SelfAll", "SelfUnique", "LeftBigger", "RightBigger"};
  return "d" + std::to_string(std::get<0>(info.param)) + "_" +
         metrics[static_cast<int>(std::get<1>(info.param))] + "_" +
         data[static_cast<int>(std::get<2>(info.param))] + "_" +
         shapes[static_cast<int>(std::get<3>(info.param))];
}

}  // namespace simjoin::testing
