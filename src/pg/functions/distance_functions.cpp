// SQL distance functions on real[], float8[] and integer arrays: the same exact_distance() the
// engines use, and the inner product (an operator PostgreSQL evaluates; the engines do not
// accelerate it).
extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "utils/array.h"

PG_FUNCTION_INFO_V1(simjoin_euclidean_distance);
PG_FUNCTION_INFO_V1(simjoin_manhattan_distance);
PG_FUNCTION_INFO_V1(simjoin_chebyshev_distance);
PG_FUNCTION_INFO_V1(simjoin_cosine_distance);
PG_FUNCTION_INFO_V1(simjoin_inner_product);
PG_FUNCTION_INFO_V1(simjoin_negative_inner_product);
PG_FUNCTION_INFO_V1(simjoin_planner_support);
}

#include "engine/distance.h"
#include "pg/functions/vector_input.h"

namespace {

using simjoin::Metric;

// f(a, b) of both arguments widened to double; ERROR on NULL elements, nesting or unequal lengths.
template <typename F>
Datum of_two_vectors(FunctionCallInfo fcinfo, const F& f) {
  // Detoasted once here; the reads below then see plain arrays and copy nothing.
  const Datum a = PointerGetDatum(PG_GETARG_ARRAYTYPE_P(0));
  const Datum b = PointerGetDatum(PG_GETARG_ARRAYTYPE_P(1));
  const int dim_a = simjoin::pg::vector_length(a, nullptr, nullptr);
  const int dim_b = simjoin::pg::vector_length(b, nullptr, nullptr);
  if (dim_a != dim_b)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("simjoin: vectors of different dimensions (%d and %d)", dim_a, dim_b)));
  double* va = static_cast<double*>(palloc(sizeof(double) * (dim_a + 1)));
  double* vb = static_cast<double*>(palloc(sizeof(double) * (dim_a + 1)));
  simjoin::pg::read_vector(a, dim_a, va, nullptr, nullptr);
  simjoin::pg::read_vector(b, dim_b, vb, nullptr, nullptr);
  const double result = f(va, vb, static_cast<std::size_t>(dim_a));
  pfree(va);
  pfree(vb);
  PG_RETURN_FLOAT8(result);
}

Datum distance_of_arguments(FunctionCallInfo fcinfo, Metric metric) {
  return of_two_vectors(fcinfo, [metric](const double* a, const double* b, std::size_t dim) {
    return simjoin::exact_distance(a, b, dim, metric);
  });
}

}  // namespace

extern "C" Datum simjoin_euclidean_distance(PG_FUNCTION_ARGS) {
  return distance_of_arguments(fcinfo, Metric::Euclidean);
}
extern "C" Datum simjoin_manhattan_distance(PG_FUNCTION_ARGS) {
  return distance_of_arguments(fcinfo, Metric::Manhattan);
}
extern "C" Datum simjoin_chebyshev_distance(PG_FUNCTION_ARGS) {
  return distance_of_arguments(fcinfo, Metric::Chebyshev);
}
extern "C" Datum simjoin_cosine_distance(PG_FUNCTION_ARGS) {
  return distance_of_arguments(fcinfo, Metric::Cosine);
}
extern "C" Datum simjoin_inner_product(PG_FUNCTION_ARGS) {
  return of_two_vectors(fcinfo, simjoin::dot_product);
}
extern "C" Datum simjoin_negative_inner_product(PG_FUNCTION_ARGS) {
  return of_two_vectors(fcinfo, [](const double* a, const double* b, std::size_t dim) {
    return -simjoin::dot_product(a, b, dim);
  });
}

// Answers no planner request; being called is its purpose (see simjoin--1.0.sql).
extern "C" Datum simjoin_planner_support(PG_FUNCTION_ARGS) { PG_RETURN_POINTER(nullptr); }
