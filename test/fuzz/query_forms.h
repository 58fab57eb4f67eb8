// simjoin_fuzz: the distance form of a query's join (query_forms.cpp), which queries.cpp wraps
// in a shape. Both draw from the query's Rng in turn, so a seed gives the same queries.
#pragma once

#include <string>
#include <vector>

#include "model.h"

namespace fuzz {

using Strings = std::vector<std::string>;

inline std::string join(const Strings& xs, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? sep : "") + xs[i];
  return s;
}

// A join of two tables (or one with itself) on a distance form, for a shape to wrap.
struct Core {
  std::string from;   // FROM ... (joins and ON clauses), without WHERE
  std::string where;  // conditions for WHERE ("" when none)
  std::string dist;   // the distance expression (for projections and aggregates)
  std::string form;   // coverage key
  const Table* left = nullptr;
  const Table* right = nullptr;
  Strings tables;
};

// What the shape asks of the join.
struct CoreOptions {
  std::string eps;        // SQL expression of the bound
  bool const_eps = false;  // eps is from const_eps(): a cosine form may draw its own instead
  std::string shift;      // an outer value the keys must use ("" when none)
  bool comma_join = false;
  bool allow_filters = true;
  bool left_join = false;  // LEFT JOIN: the distance stays in ON
};

// Draws the forms of one query; the shape generator shares its Rng.
class FormGenerator {
 public:
  FormGenerator(Rng& rng, const Round& round, const Env& env) : rng_(rng), round_(round), env_(env) {}

  // Picks the family of distance, the tables and the key expressions, and writes the join.
  Core core(const CoreOptions& o);
  // A constant bound: lattice multiples (pairs exactly at eps), 0, negative, NULL, NaN,
  // Infinity, all pairs; as float8, float4, numeric or untyped.
  std::string const_eps();
  // A constant bound for the cosine distance (in [0, 2]): 0, just above 0, small, 1 (orthogonal),
  // 2 (antiparallel), the distance of two lattice directions, NaN, Infinity.
  std::string cosine_eps();
  const Table& table() { return rng_.pick(round_.tables); }

 private:
  double S() const { return round_.spacing; }
  std::string shift_const();
  std::string filter(const std::string& x);  // a single-side filter on alias x
  std::string cross_clause();                // a clause across both sides

  Rng& rng_;
  const Round& round_;
  const Env& env_;
};

}  // namespace fuzz
