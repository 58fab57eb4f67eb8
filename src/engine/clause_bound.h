// The bound the engine joins with for a distance clause  dist(x, y) <= eps  (or  < eps)  that the
// PostgreSQL glue's custom scan hands to it: the exact bound where the engine computes the
// clause's own distance, a widened one where the clause's operator computes otherwise (another
// extension's, in single precision or in another order of operations), so that the engine's
// pairs are a superset of those the operator accepts and the operator decides each of them.
#pragma once

namespace simjoin {

// The engine's bound for an exact form: eps for dist <= eps, the next double below eps for
// dist < eps (d < c iff d <= prev(c) for doubles); NaN when no distance can match (eps < 0, or
// NaN, which callers handle first: every pair then goes to the clause).
double exact_bound(double eps, bool strict);

// The engine's bound for an operator the engine's arithmetic only approximates: a widened eps
// such that every pair the operator accepts at `eps` lies within it in the engine's double
// arithmetic on `dim` coordinates. float32: the operator sums in single precision (pgvector);
// cosine: its cosine distance, joined by the engine as Euclidean on normalized vectors. NaN if no
// engine run is needed (nothing can match).
double widened_bound(double eps, int dim, bool float32, bool cosine);

}  // namespace simjoin
