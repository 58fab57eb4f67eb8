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

// Monotone arithmetic on the distance, as in  d * k <= c  or  (d + s) / k <= c: one operation
// increasing in x (Multiply and Divide by k > 0, Add and Subtract s, all finite).
enum class ScaleOp { Multiply, Divide, Add, Subtract };

// The bound on x implied by  fl(x op k) <= c  in double arithmetic (fl: the operation rounded to
// nearest, as PostgreSQL's float8 operators compute it): every double x with fl(x op k) <= c, and
// so with fl(x op k) < c, is at most the result. Rounding to nearest is monotone, so
// fl(x op k) <= c implies x op k < the next double above c, so x is below that mapped back
// through the inverse operation (a real r); r rounded to nearest is at least every double below
// r. Applied outermost operation first, it turns  f(d) <= c  into  d <= bound. NaN when nothing
// can be derived (c NaN, k not valid for op): the caller checks every pair.
double inverse_bound(double c, ScaleOp op, double k);

}  // namespace simjoin
