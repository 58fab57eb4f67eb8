// simjoin_fuzz: the distance forms of a query's join, one per family the SimilarityJoin custom
// scan recognizes (simjoin arrays, cube, cube_enlarge, point, PostGIS): the tables, the keys
// (columns, or computed and shifted by outer values), the distance, its bound (one per query, per
// row, or scaled with arithmetic on the distance) and the join's clauses.
// simjoin's arrays follow pgvector's operators: <-> Euclidean, <+> taxicab, <=> cosine distance
// (Chebyshev only as chebyshev_distance()), and <#>, the negative inner product, which the custom
// scan leaves to PostgreSQL (drawn rarely: a check that it is not taken for a distance).
#include <cmath>

#include "fuzz.h"
#include "query_forms.h"

namespace fuzz {

namespace {

// A key as geography. One whose coordinates PostGIS's cast makes NaN (NaN or infinite ones)
// becomes NULL: PostGIS's geography distance of such a point is not a function of its arguments
// (it depends on the calls before it: the same pair gives 11475670.43192 alone and
// 11475670.42987115 after other pairs), so PostgreSQL's own plan returns other rows for another
// order of the outer rows, and no two plans can be compared.
std::string geography_key(const std::string& key) {
  const std::string cast = "(" + key + ")::geography";
  return "(CASE WHEN ST_AsText(" + cast + ") NOT LIKE '%NaN%' THEN " + cast + " END)";
}

// x, or x shifted by s (an outer value) when s is not empty.
std::string plus(const std::string& x, const std::string& s) {
  return s.empty() ? x : "(" + x + " + " + s + ")";
}

// A 2-D point key of table alias x: its column col, or ctor(x1 shifted by s, x2).
std::string point_key(bool column, const std::string& x, const std::string& s, const std::string& col,
                      const std::string& ctor) {
  return column ? x + "." + col : ctor + "(" + plus(x + ".x1", s) + ", " + x + ".x2)";
}

// The distance family of a join.
enum class Family { SimjoinOp, SimjoinFn, CubeOp, CubeFn, CubeEnlarge, Point, Postgis };

}  // namespace

std::string FormGenerator::const_eps() {
  const double s = S();
  switch (rng_.weighted({30, 10, 8, 8, 4, 3, 3, 3, 3, 5, 4, 4})) {
    case 0: return fmt_double(s * static_cast<double>(rng_.range(1, 3)));
    case 1: return fmt_double(s * std::sqrt(2.0));
    case 2: return fmt_double(s / 2);
    case 3: return "0";
    case 4: return "-1";
    case 5: return "NULL::float8";
    case 6: return "'NaN'::float8";
    case 7: return "'Infinity'::float8";
    case 8: return "1e9";
    case 9: return fmt_double(s) + "::real";
    case 10: return fmt_double(2 * s) + "::numeric";
    default: return "(SELECT max(e) FROM fz_eps WHERE e < 1e8)";
  }
}

std::string FormGenerator::cosine_eps() {
  switch (rng_.weighted({6, 4, 4, 4, 3, 3, 3, 6, 6, 3, 2, 2, 2, 2})) {
    case 0: return "0";
    case 1: return "1e-15";  // parallel vectors whose rounding leaves them just above 0
    case 2: return "0.001";
    case 3: return "0.05";
    case 4: return "0.3";
    case 5: return "1";  // orthogonal lattice vectors: exactly 1
    case 6: return "2";  // antiparallel: 2 or just below
    // the distance of two lattice directions (exactly that of lattice points a power of two apart)
    case 7: return "(ARRAY[1,2]::float8[] <=> ARRAY[2,1]::float8[])";
    case 8: return "(ARRAY[1,0,1]::float8[] <=> ARRAY[1,1,0]::float8[])";
    case 9: return "cosine_distance(ARRAY[3,1]::float8[], ARRAY[-1,2]::float8[])";
    case 10: return "1.9::real";
    case 11: return "0.5::numeric";
    case 12: return "'NaN'::float8";
    default: return "'Infinity'::float8";
  }
}

std::string FormGenerator::shift_const() {
  return rng_.pick(Strings{"0", fmt_double(S()), fmt_double(-S() / 2)});
}

std::string FormGenerator::filter(const std::string& x) {
  switch (rng_.range(0, 8)) {
    case 0: return x + ".c1 < " + std::to_string(rng_.range(1, 4));
    case 1: return x + ".c2 IS NOT NULL";
    case 2: return x + ".name > 'm'";
    case 3: return x + ".f < 2";
    case 4: return x + ".id % 3 <> 0";
    case 5: return x + ".num IS NULL OR " + x + ".num > 0.5";
    case 6: return "length(" + x + ".name) > 2";
    case 7: return x + ".x1 >= 0";
    default: return x + ".c1 = " + std::to_string(rng_.range(0, 2));
  }
}

std::string FormGenerator::cross_clause() {
  return rng_.pick(Strings{"a.c1 = b.c1", "a.name < b.name", "a.id <> b.id", "a.id < b.id",
                           "(a.c1 = b.c1 OR a.f < b.f)", "a.num <= b.num", "a.c2 IS DISTINCT FROM b.c2",
                           "length(a.name) >= length(b.name)", "a.x1 + b.x1 > 1", "md5(a.name) < md5(b.name)",
                           "abs(a.c1 - b.c1) <= 1", "a.c1 = b.c1 AND a.c2 = b.c2", "a.name = b.name",
                           "a.f <> b.f OR a.id = b.id"});
}

Core FormGenerator::core(const CoreOptions& o) {
  Core c;
  const Table* L = &table();
  const Table* R = rng_.chance(0.35) ? L : &table();
  // PostgreSQL's own plan is a nested loop: two large sides would take seconds per query
  for (int tries = 0; tries < 8 && L->rows >= 1000 && R->rows >= 1000 && !(L == R && rng_.chance(0.2)); ++tries)
    R = &table();
  // simjoin's distances raise on vectors of other dimensions: mostly join tables of one dimension
  for (int tries = 0; tries < 8 && R->dim != L->dim && rng_.chance(0.9); ++tries) R = &table();
  std::vector<int> weights = {30, 10, env_.cube ? 10 : 0, env_.cube ? 4 : 0, env_.cube ? 6 : 0, 8,
                              env_.postgis ? 8 : 0};
  const auto fam = static_cast<Family>(rng_.weighted(weights));
  const std::string sh = o.shift;
  // shift terms for the left and right keys: the outer value on one side (or both) when there is
  // one, otherwise a constant or nothing
  std::string lsh, rsh;
  if (!sh.empty()) {
    const int where = static_cast<int>(rng_.range(0, 2));
    lsh = where != 1 ? sh : "";
    rsh = where != 0 ? sh : "";
  } else if (rng_.chance(0.15)) {
    rsh = shift_const();
  }
  const bool computed = !sh.empty() || !rsh.empty() || rng_.chance(0.15);
  std::string lk, rk, dist, cond;
  // Cosine distances lie in [0, 2]: a constant bound is often redrawn on that scale (lattice
  // multiples are too, or past 2: every pair with a direction).
  const bool cosine_family = (fam == Family::SimjoinOp || fam == Family::SimjoinFn) && rng_.chance(0.3);
  const std::string E = cosine_family && o.const_eps && rng_.chance(0.6) ? cosine_eps() : o.eps;
  // Beyond d <= eps: a bound per row (a column of one side, on the lattice's scale), or
  // monotone arithmetic on the distance with the bound scaled alike (pairs at eps then round
  // onto the scaled bound or past it).
  const int variant = static_cast<int>(rng_.weighted({76, 12, 12}));
  const std::string B = variant != 1 ? E
                        : rng_.pick(Strings{"b.f * " + fmt_double(S()), "a.f * " + fmt_double(S()),
                                            "(" + E + ") * b.f", "b.num * " + fmt_double(S()),
                                            "(b.c2 * " + fmt_double(S()) + ")::real"});
  auto compare = [&](const std::string& d0) {
    std::string d = d0, bound = B;
    if (variant == 2) {
      const std::string k = rng_.pick(Strings{"1000", "0.7", "0.1", "3", "1e-3"});
      switch (rng_.range(0, 3)) {
        case 0: d = "(" + d + ") * " + k; bound = "(" + bound + ") * " + k; break;
        case 1: d = k + " * (" + d + ")"; bound = k + " * (" + bound + ")"; break;
        case 2: d = "(" + d + ") / " + k; bound = "(" + bound + ") / " + k; break;
        default: d = "(" + d + ") + " + k; bound = "(" + bound + ") + " + k; break;
      }
    }
    switch (rng_.range(0, 3)) {
      case 0: return d + " <= " + bound;
      case 1: return d + " < " + bound;
      case 2: return bound + " >= " + d;
      default: return rng_.chance(0.5) ? bound + " > " + d : d + " <= " + bound;
    }
  };
  const bool swap = rng_.chance(0.3);  // the right key first
  auto ordered = [&](const std::string& x, const std::string& y) { return swap ? y + ", " + x : x + ", " + y; };
  auto opd = [&](const std::string& x, const std::string& op, const std::string& y) {
    return swap ? y + " " + op + " " + x : x + " " + op + " " + y;
  };
  switch (fam) {
    case Family::SimjoinOp:
    case Family::SimjoinFn: {
      const bool real = L->has_w && R->has_w && rng_.chance(0.4);
      const int scalar = computed && rng_.chance(0.6) ? static_cast<int>(rng_.range(1, 2)) : 0;
      const std::string cast = real ? "::real[]" : "::float8[]";
      auto key = [&](const std::string& x, const std::string& s) {
        if (scalar == 1) return "ARRAY[" + plus(x + ".x1", s) + "]" + cast;
        if (scalar == 2) return "ARRAY[" + plus(x + ".x1", s) + ", " + x + ".x2]" + cast;
        const std::string v = x + (real ? ".w" : ".v");
        if (s.empty()) return v;
        if (rng_.chance(0.1)) return "fz_shift_vec(" + v + ", " + s + ")" + cast;  // a SQL function (slow)
        // coordinates shifted (NULL vectors stay NULL)
        std::string arr = "CASE WHEN " + v + " IS NULL THEN NULL ELSE ARRAY[";
        for (int d = 1; d <= L->dim; ++d)
          arr += (d > 1 ? ", " : "") + plus(v + "[" + std::to_string(d) + "]", d == 1 || rng_.chance(0.5) ? s : "");
        return arr + "]" + cast + " END";
      };
      lk = key("a", lsh);
      rk = key("b", rsh);
      // 0 Euclidean, 1 taxicab, 2 Chebyshev (a function only: no operator), 3 cosine, 4 the
      // negative inner product (<#>: not a distance, left to PostgreSQL)
      const int m = cosine_family ? 3 : static_cast<int>(rng_.weighted({10, 8, 8, 0, 1}));
      if (fam == Family::SimjoinOp && m != 2) {
        const std::string op = m == 0 ? "<->" : m == 1 ? "<+>" : m == 3 ? "<=>" : "<#>";
        dist = opd(lk, op, rk);
        c.form = "simjoin " + op + (real ? " real[]" : " float8[]");
      } else {
        const std::string fn = m == 0   ? "euclidean_distance"
                               : m == 1 ? "manhattan_distance"
                               : m == 2 ? "chebyshev_distance"
                               : m == 3 ? "cosine_distance"
                                        : "negative_inner_product";
        dist = fn + "(" + ordered(lk, rk) + ")";
        c.form = "simjoin " + fn + (real ? " real[]" : " float8[]");
      }
      if (m == 4) c.form += " (not accelerated)";
      cond = compare(dist);
      break;
    }
    case Family::CubeOp:
    case Family::CubeFn:
    case Family::CubeEnlarge: {
      const bool col = L->has_cube && R->has_cube && !computed && rng_.chance(0.8);
      const bool from_v = !col && rng_.chance(0.4) && lsh.empty() && rsh.empty();
      auto key = [&](const std::string& x, const std::string& s) {
        if (col) return x + ".cb";
        if (from_v) return "cube(" + x + ".v)";
        return rng_.chance(0.5) ? "cube(ARRAY[" + plus(x + ".x1", s) + ", " + x + ".x2])"
                                : "cube(" + plus(x + ".x1", s) + ")";
      };
      lk = key("a", lsh);
      rk = key("b", rsh);
      if (!col && !from_v) {  // keep both keys of the same dimension
        const bool two = lk.find("ARRAY") != std::string::npos;
        rk = two ? "cube(ARRAY[" + plus("b.x1", rsh) + ", b.x2])" : "cube(" + plus("b.x1", rsh) + ")";
      }
      const int m = static_cast<int>(rng_.range(0, 2));
      const std::string op = m == 0 ? "<->" : m == 1 ? "<#>" : "<=>";
      if (fam == Family::CubeOp) {
        dist = opd(lk, op, rk);
        cond = compare(dist);
        c.form = "cube " + op;
      } else if (fam == Family::CubeFn) {
        const std::string fn = m == 0 ? "cube_distance" : m == 1 ? "distance_taxicab" : "distance_chebyshev";
        dist = fn + "(" + ordered(lk, rk) + ")";
        cond = compare(dist);
        c.form = "cube " + fn;
      } else {
        const std::string n = rng_.chance(0.7) ? std::to_string(L->dim) : std::to_string(rng_.range(0, 5));
        const std::string r = rng_.chance(0.8) ? E : const_eps();
        const std::string box = rng_.chance(0.5) ? "cube_enlarge(" + lk + ", " + r + ", " + n + ") @> " + rk
                                                 : rk + " <@ cube_enlarge(" + lk + ", " + r + ", " + n + ")";
        dist = opd(lk, op, rk);
        cond = rng_.chance(0.7) ? box + " AND " + compare(dist) : box;
        c.form = "cube_enlarge @>";
      }
      break;
    }
    case Family::Point: {
      const bool col = L->has_point && R->has_point && !computed && rng_.chance(0.8);
      lk = point_key(col, "a", lsh, "p", "point");
      rk = point_key(col, "b", rsh, "p", "point");
      dist = opd(lk, "<->", rk);
      cond = compare(dist);
      c.form = "point <->";
      break;
    }
    case Family::Postgis: {
      const bool col = L->has_geom && R->has_geom && !computed && rng_.chance(0.8);
      lk = point_key(col, "a", lsh, "g", "ST_MakePoint");
      rk = point_key(col, "b", rsh, "g", "ST_MakePoint");
      // geography: the same points as longitude and latitude (SRID 4326; PostGIS coerces those
      // out of range), the bound in metres (one degree of a great circle on PostGIS's sphere:
      // lattice neighbours near the bound), on the spheroid or the sphere
      std::string spheroid, bound = B;
      const bool geography = rng_.chance(0.35);
      // geometry: geometries with an extent (the custom scan's bounding-box candidates) on
      // either side.
      bool boxes = false;
      auto extent = [&](const std::string& k) {
        if (!rng_.chance(0.3)) return k;
        boxes = true;
        const std::string r = rng_.pick(std::vector<std::string>{"0.25", "0.5", "1"});
        switch (rng_.range(0, 2)) {
          case 0:
            return "ST_Buffer(" + k + ", " + r + ", 2)";
          case 1:
            return "ST_Expand(" + k + ", " + r + ")";
          default:
            return "ST_Collect(" + k + ", ST_Translate(" + k + ", " + r + ", -" + r + "))";
        }
      };
      if (geography) {
        bound = "(" + B + ") * 111195";
        lk = geography_key(lk);
        rk = geography_key(rk);
        if (rng_.chance(0.6)) spheroid = rng_.chance(0.5) ? ", true" : ", false";
      } else {
        lk = extent(lk);
        rk = extent(rk);
      }
      dist = "ST_Distance(" + ordered(lk, rk) + spheroid + ")";
      cond = "ST_DWithin(" + ordered(lk, rk) + ", " + bound + spheroid + ")";
      c.form = geography ? "postgis geography ST_DWithin"
               : boxes   ? "postgis ST_DWithin (boxes)"
                         : "postgis ST_DWithin";
      break;
    }
  }
  if (computed) c.form += " (computed keys)";
  if (variant == 1) c.form += " (per-row bound)";
  if (variant == 2 && fam != Family::Postgis) c.form += " (arithmetic on the distance)";
  c.dist = dist;
  c.left = L;
  c.right = R;
  c.tables = {L->name};
  if (R != L) c.tables.push_back(R->name);

  // extra clauses across sides and filters on each side; a self-join gets identical filters
  // on both sides (the shared-scan path) or different ones
  Strings on = {cond};
  const int nextra = static_cast<int>(rng_.weighted({45, 35, 20}));
  for (int k = 0; k < nextra; ++k) on.push_back(cross_clause());
  Strings where;
  if (o.allow_filters && rng_.chance(0.4)) {
    const std::string f = filter("a");
    where.push_back("(" + f + ")");
    if (L == R && rng_.chance(0.6)) {
      std::string g = f;
      for (size_t p = 0; (p = g.find("a.", p)) != std::string::npos; p += 2) g[p] = 'b';
      where.push_back("(" + g + ")");
    } else if (rng_.chance(0.5)) {
      where.push_back("(" + filter("b") + ")");
    }
  }
  // the left side sometimes a subquery or a partition-wise filter
  std::string lfrom = L->name + " a", rfrom = R->name + " b";
  if (rng_.chance(0.1)) lfrom = "(SELECT * FROM " + L->name + " WHERE " + filter(L->name) + ") a";
  if (o.left_join) {
    c.from = lfrom + " LEFT JOIN " + rfrom + " ON " + join(on, " AND ");
  } else if (o.comma_join) {
    c.from = lfrom + ", " + rfrom;
    for (auto& x : on) where.push_back(x);
  } else {
    // some ON clauses moved into WHERE (same meaning for an inner join)
    Strings on2, w2;
    for (size_t k = 0; k < on.size(); ++k) (k > 0 && rng_.chance(0.3) ? w2 : on2).push_back(on[k]);
    c.from = lfrom + " JOIN " + rfrom + " ON " + join(on2, " AND ");
    for (auto& x : w2) where.push_back(x);
  }
  c.where = join(where, " AND ");
  return c;
}

}  // namespace fuzz
