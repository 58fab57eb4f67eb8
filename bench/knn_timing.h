// simjoin_bench --nearest K: times run_knn_join (engine/knn/knn_join.h) on the bench's inputs.
#pragma once

#include <cstddef>
#include <string>

#include "engine/types.h"

// " name_s=seconds" for each of the join's phases.
std::string phases(const simjoin::JoinStats& stats);

// Runs the k-nearest-neighbour join of left with right (self-join: null) `repeat` times on the
// spec's device, metric, threads and eps (the limit), one line each; with `verify` also on the
// CPU engine, comparing every pair bit for bit. Returns the process's exit status.
int time_knn_join(const simjoin::PointSet& left, const simjoin::PointSet* right,
                  const simjoin::JoinSpec& spec, std::size_t k, int repeat, bool verify);
