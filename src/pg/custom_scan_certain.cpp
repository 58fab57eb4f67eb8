// The certain bounds of the rechecked forms (custom_scan_internal.h: has_certain_bound): an
// engine pair within one satisfies the distance clause for sure and skips its recheck; only the
// pairs between it and the candidate bound go to the operator (custom_scan_pairs.cpp).
#include "custom_scan_keys.h"

#include "certain_bound.h"

namespace simjoin::pg::cs {

bool has_certain_bound(int kind, Expr* clause, List* scale, int radius_side) {
  if (scale != NIL || radius_side >= 0) return false;
  if (kind == KEY_POINT) return true;
  return kind == KEY_GEOGRAPHY && geography_clause_certain(clause);
}

double certain_bound(const FormInfo& form, double eps, const KeyRef& ref) {
  if (form.kind == KEY_POINT) return planar_certain_bound(eps);
  if (form.kind == KEY_GEOGRAPHY) return geography_certain_bound(eps, ref);
  return -1;
}

double certain_recheck_share(const FormInfo& form) {
  if (form.kind == KEY_GEOGRAPHY) return geography_recheck_share();
  if (form.kind != KEY_POINT) return 1;
  return recheck_share(planar_certain_bound(1), engine_bound(form, 1, KeyRef{2}));
}

}  // namespace simjoin::pg::cs
