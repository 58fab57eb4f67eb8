// simjoin_fuzz: random tables. Rows come from generate_series through deterministic hash
// formulas (hashint8), so a table's reproduction is a few statements, plus a few explicit rows
// that carry the special values (NULL vectors, NaN, infinities, -0, huge values, wild rows), and
// copies of some rows with their vectors scaled (the cosine distance's parallel and antiparallel
// pairs: generated coordinates are never negative).
#include <cmath>
#include <cstdio>

#include "fuzz.h"

namespace fuzz {

std::string fmt_double(double x) {
  if (std::isnan(x)) return "'NaN'::float8";
  if (std::isinf(x)) return x > 0 ? "'Infinity'::float8" : "'-Infinity'::float8";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", x);
  std::string s = buf;
  if (x < 0) s = "(" + s + ")";
  return s;
}

namespace {

std::string num(long long x) { return std::to_string(x); }

// Coordinate k of generated row i (SQL expression over the column alias i).
std::string coord(Rng& rng, const Table& t, int k, long long salt, const std::string& style,
                  int modulus, double scale) {
  std::string h = "(hashint8(i * 37 + " + num(k * 1000003LL + salt) + ") & 2147483647)";
  if (t.lattice) {
    if (style == "numeric")  // exact decimal multiples, rounded once to float8
      return "((" + h + " % " + num(modulus) + ") * " + fmt_double(t.spacing) + "::numeric)::float8";
    return "((" + h + " % " + num(modulus) + ")::float8 * " + fmt_double(t.spacing) + "::float8)";
  }
  (void)rng;
  return "(" + h + "::float8 / 2147483647.0 * " + fmt_double(scale) + ")";
}

std::string vec_literal(const std::vector<std::string>& xs) {
  std::string s = "'{";
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? "," : "") + xs[i];
  return s + "}'";
}

}  // namespace

Table generate_table(Rng& rng, const Env& env, const Round& round, const std::string& name) {
  Table t;
  t.name = name;
  t.key_type = rng.chance(0.6) ? "int" : "bigint";
  t.dim = rng.chance(0.95) ? round.dim : static_cast<int>(rng.range(1, 4));
  t.spacing = round.spacing;
  t.lattice = rng.chance(0.75);
  // sizes: mostly small (PostgreSQL's nested loop must stay fast), sometimes empty or one row,
  // sometimes large enough for several result batches (65536 pairs each) and spills.
  switch (rng.weighted({6, 6, 55, 20, 2})) {
    case 0: t.rows = 0; break;
    case 1: t.rows = 1; break;
    case 2: t.rows = static_cast<int>(rng.range(2, 120)); break;
    case 3: t.rows = static_cast<int>(rng.range(120, 300)); break;
    default: t.rows = static_cast<int>(rng.range(600, 1200)); break;
  }
  const int key_style = static_cast<int>(rng.weighted({4, 3, 2, 2}));  // pk, unique, dups, NULLs
  t.primary_key = key_style == 0;
  t.key_unique = key_style <= 1;
  t.key_nonnull = key_style <= 2;
  t.partitioned = rng.chance(0.15);
  t.has_w = rng.chance(0.5);
  t.has_cube = env.cube && rng.chance(0.45);
  t.has_point = rng.chance(0.35);
  t.has_geom = env.postgis && rng.chance(0.35);
  t.has_jsonb = rng.chance(0.2);
  t.special_rows = rng.chance(0.45);
  t.error_rows = t.special_rows && rng.chance(0.12);
  t.analyzed = rng.chance(0.85);
  const bool long_text = rng.chance(0.4);
  const int modulus = t.dim == 1 ? static_cast<int>(rng.range(3, 60)) : static_cast<int>(rng.range(2, 12));
  const double scale = rng.pick(std::vector<double>{1, 1, 10, 1e-3, 1e6});
  const std::string style = rng.chance(0.5) ? "numeric" : "float";
  const long long salt = rng.range(0, 1 << 20);
  const int srid = 0;  // ST_MakePoint's, so that computed keys compare with the column

  std::string& s = t.sql;
  std::string cols = "id " + t.key_type + (t.primary_key ? " PRIMARY KEY" : "") +
                     ", c1 int, c2 int, f float8, x1 float8, x2 float8, name text, num numeric, v float8[]";
  if (t.has_w) cols += ", w real[]";
  if (t.has_cube) cols += ", cb cube";
  if (t.has_point) cols += ", p point";
  if (t.has_geom) cols += ", g geometry";
  if (t.has_jsonb) cols += ", j jsonb";
  s += "CREATE TABLE " + name + " (" + cols + ")" + (t.partitioned ? " PARTITION BY RANGE (id)" : "") + ";\n";
  const long long step = rng.chance(0.7) ? 1 : 3;
  if (t.partitioned) {
    const long long b1 = step * std::max(1, t.rows / 3), b2 = step * std::max(2, 2 * t.rows / 3);
    const bool three = rng.chance(0.5);
    s += "CREATE TABLE " + name + "_p1 PARTITION OF " + name + " FOR VALUES FROM (MINVALUE) TO (" + num(b1) + ");\n";
    if (three) {
      s += "CREATE TABLE " + name + "_p2 PARTITION OF " + name + " FOR VALUES FROM (" + num(b1) + ") TO (" + num(b2) + ");\n";
      s += "CREATE TABLE " + name + "_p3 PARTITION OF " + name + " FOR VALUES FROM (" + num(b2) + ") TO (MAXVALUE);\n";
    } else {
      s += "CREATE TABLE " + name + "_p2 PARTITION OF " + name + " FOR VALUES FROM (" + num(b1) + ") TO (MAXVALUE);\n";
    }
    if (!t.key_nonnull) s += "CREATE TABLE " + name + "_pd PARTITION OF " + name + " DEFAULT;\n";
  }
  if (long_text && !t.partitioned && rng.chance(0.3))
    s += "ALTER TABLE " + name + " ALTER name SET STORAGE EXTERNAL;\n";

  std::string id;
  switch (key_style) {
    case 0: case 1: id = "i * " + num(step) + (rng.chance(0.2) ? " - 50" : ""); break;
    case 2: id = "i % " + num(std::max(1, t.rows / 3)); break;
    default: id = "CASE WHEN i % 7 = 3 THEN NULL ELSE i % " + num(std::max(2, t.rows / 2)) + " END"; break;
  }
  std::string v = "ARRAY[";
  for (int k = 0; k < t.dim; ++k) v += std::string(k ? ", " : "") + coord(rng, t, k, salt, style, modulus, scale);
  v += "]::float8[]";
  std::string w = rng.chance(0.5) ? "v::real[]" : "ARRAY[";
  if (w != "v::real[]") {
    for (int k = 0; k < t.dim; ++k) w += std::string(k ? ", " : "") + coord(rng, t, k, salt + 77, style, modulus, scale);
    w += "]::real[]";
  }
  const std::string x1 = coord(rng, t, 7, salt, style, modulus, scale);
  const std::string x2 = coord(rng, t, 8, salt, style, modulus, scale);
  std::string name_expr = "chr(97 + i % 26) || (i % 7)::text";
  if (long_text)
    name_expr = "CASE WHEN i % 23 = 0 THEN repeat(md5(i::text), 70) "
                "WHEN i % 29 = 0 THEN (SELECT string_agg(md5((i * 1000 + j)::text), '') FROM generate_series(1, 80) j) "
                "WHEN i % 31 = 0 THEN NULL ELSE " + name_expr + " END";
  const int k1 = static_cast<int>(rng.range(2, 6));
  std::string sel = "SELECT " + id + ", (hashint8(i + " + num(salt) + ") & 2147483647) % " + num(k1) +
                    ", CASE WHEN i % 5 = 0 THEN NULL ELSE i % 7 END, " +
                    (rng.chance(0.3) ? "CASE WHEN i % 17 = 0 THEN 'NaN'::float8 ELSE (i % 11)::float8 / 4 END"
                                     : "(i % 11)::float8 / 4") +
                    ", " + x1 + ", " + x2 + ", " + name_expr +
                    ", CASE WHEN i % 19 = 0 THEN NULL ELSE round((i % 13)::numeric / 7, 6) END, v";
  if (t.has_w) sel += ", " + w;
  if (t.has_cube)
    sel += rng.chance(0.3) ? ", CASE WHEN i % 13 = 0 THEN cube_enlarge(cube(v), 0.5, " + num(t.dim) + ") ELSE cube(v) END"
                           : ", cube(v)";
  if (t.has_point) sel += ", point(v[1], coalesce(v[2], 0))";
  if (t.has_geom) sel += ", ST_SetSRID(ST_MakePoint(v[1], coalesce(v[2], 0)), " + num(srid) + ")";
  if (t.has_jsonb) sel += ", jsonb_build_object('i', i, 'k', i % 3)";
  if (t.rows > 0)
    s += "INSERT INTO " + name + " " + sel + " FROM (SELECT i, " + v + " AS v FROM generate_series(1, " +
         num(t.rows) + ") s(i)) q;\n";

  // Explicit rows with the special values.
  if (t.special_rows) {
    std::vector<std::vector<std::string>> vs;
    auto fill = [&](const std::string& x) { return std::vector<std::string>(t.dim, x); };
    vs.push_back(fill("NaN"));
    vs.push_back(fill("Infinity"));
    vs.push_back(fill("-0"));
    vs.push_back(fill("0"));
    vs.push_back(fill("1e300"));
    vs.push_back(fill("-1e200"));
    vs.push_back(fill("1e-300"));
    auto mixed = fill("1");
    mixed[0] = "-Infinity";
    vs.push_back(mixed);
    vs.push_back(fill("-3"));  // antiparallel to the diagonal
    auto unit = fill("0");     // a zero vector but for one subnormal coordinate
    unit[0] = "5e-324";
    vs.push_back(unit);
    const int count = static_cast<int>(rng.range(2, 5));
    long long next_id = 900000;
    std::string ins = "INSERT INTO " + name + " (id, c1, c2, f, x1, x2, name, v" +
                      std::string(t.has_w ? ", w" : "") + (t.has_cube ? ", cb" : "") +
                      (t.has_point ? ", p" : "") + (t.has_geom ? ", g" : "") + ") VALUES\n";
    std::vector<std::string> rows;
    auto add_row = [&](const std::string& vec, const std::string& wvec, const std::string& cb,
                       const std::string& pt, const std::string& geom) {
      std::string idv = t.key_unique ? num(next_id++) : (t.key_nonnull ? num(rng.range(0, 5)) : "NULL");
      std::string r = "  (" + idv + ", " + num(rng.range(0, 3)) + ", NULL, " +
                      rng.pick(std::vector<std::string>{"1", "'NaN'", "'-Infinity'", "-0"}) + ", " +
                      rng.pick(std::vector<std::string>{"0", "'NaN'", "'Infinity'", "3e38", "-1e-40"}) + ", 0, " +
                      rng.pick(std::vector<std::string>{"NULL", "''", "'zz'", "repeat('q', 3000)"}) + ", " + vec;
      if (t.has_w) r += ", " + wvec;
      if (t.has_cube) r += ", " + cb;
      if (t.has_point) r += ", " + pt;
      if (t.has_geom) r += ", " + geom;
      rows.push_back(r + ")");
    };
    add_row("NULL", "NULL", "NULL", "NULL", "NULL");
    for (int c = 0; c < count; ++c) {
      const auto& x = rng.pick(vs);
      std::vector<std::string> wx = x;
      for (auto& e : wx)
        if (e == "1e300") e = "3e38"; else if (e == "-1e200") e = "-3e38"; else if (e == "1e-300" || e == "5e-324") e = "1e-45";
      const std::string lit = vec_literal(x);
      const std::string pt = "point((" + lit + "::float8[])[1], 0)";
      add_row(lit, vec_literal(wx), "cube(" + lit + "::float8[])", pt,
              "ST_MakePoint((" + lit + "::float8[])[1], 0)");
    }
    if (t.has_geom) {
      add_row("NULL", "NULL", "NULL", "NULL", "'LINESTRING(0 0, 1 1)'::geometry");
      add_row("NULL", "NULL", "NULL", "NULL", "'POINT EMPTY'::geometry");
      add_row("NULL", "NULL", "NULL", "NULL", "ST_MakePoint(0, 0, 5)");
    }
    if (t.has_cube) add_row("NULL", "NULL", "'(0,0,0,0,0),(1,1,1,1,1)'::cube", "NULL", "NULL");
    if (t.error_rows) {
      std::vector<std::string> other(t.dim + 1, "0");
      add_row(vec_literal(other), vec_literal(other), "'(1)'::cube", "point(0, 0)", "NULL");
      std::vector<std::string> with_null = fill("0");
      with_null.back() = "NULL";
      add_row(vec_literal(with_null), vec_literal(with_null), "NULL", "NULL", "NULL");
    }
    for (size_t r = 0; r < rows.size(); ++r) ins += rows[r] + (r + 1 < rows.size() ? ",\n" : ";\n");
    s += ins;
  }
  // Duplicated rows (the same vectors under the same or new keys).
  if (t.rows > 1 && rng.chance(0.3)) {
    std::string cols_list = "c1, c2, f, x1, x2, name, num, v";
    if (t.has_w) cols_list += ", w";
    if (t.has_cube) cols_list += ", cb";
    if (t.has_point) cols_list += ", p";
    if (t.has_geom) cols_list += ", g";
    if (t.has_jsonb) cols_list += ", j";
    s += "INSERT INTO " + name + " SELECT " + (t.key_unique ? "id + 500000" : "id") + ", " + cols_list +
         " FROM " + name + " WHERE id % 5 = 1;\n";
  }
  // Copies of some rows with their vectors scaled (v by k, w by k or -1 when k is out of float4's
  // range): parallel vectors of other lengths, antiparallel ones, tiny and huge ones. Only rows
  // whose coordinates are 0 or in [1e-50, 1e50] (no overflow or underflow error); the arrays keep
  // their lengths and NULL elements (error rows stay error rows).
  if (t.rows > 1 && rng.chance(0.35)) {
    const int ncopies = static_cast<int>(rng.range(1, 2));
    for (int c = 0; c < ncopies; ++c) {
      const std::string k = rng.pick(std::vector<std::string>{"-1", "2", "-0.5", "3", "0.1", "-1024", "1e-250", "1e250", "-7"});
      const bool k_fits_float4 = k != "1e-250" && k != "1e250";
      auto scaled = [&](const std::string& col, const std::string& f, const std::string& type) {
        return "ARRAY(SELECT x * " + f + " FROM unnest(" + col + ") WITH ORDINALITY u(x, n) ORDER BY n)::" + type;
      };
      std::string cols_list = "c1, c2, f, x1, x2, name, num, " + scaled("v", k, "float8[]");
      if (t.has_w) cols_list += ", " + scaled("w", k_fits_float4 ? k : "-1", "real[]");
      if (t.has_cube) cols_list += ", cb";
      if (t.has_point) cols_list += ", p";
      if (t.has_geom) cols_list += ", g";
      if (t.has_jsonb) cols_list += ", j";
      const long long r = rng.range(0, 6);
      s += "INSERT INTO " + name + " SELECT " + (t.key_unique ? "id + " + num(700000 + 100000 * c) : "id") + ", " +
           cols_list + " FROM " + name + " WHERE id % 7 = " + num(r) + " AND v IS NOT NULL" +
           " AND NOT EXISTS (SELECT FROM unnest(v) x WHERE NOT (x = 0 OR abs(x) BETWEEN 1e-50 AND 1e50));\n";
    }
  }
  if (rng.chance(0.15)) s += "CREATE INDEX ON " + name + " (c1);\n";
  if (t.has_cube && rng.chance(0.5)) s += "CREATE INDEX ON " + name + " USING gist (cb);\n";
  if (t.has_geom && rng.chance(0.5)) s += "CREATE INDEX ON " + name + " USING gist (g);\n";
  if (t.analyzed) s += "ANALYZE " + name + ";\n";
  return t;
}

Round generate_round(Rng& rng, const Env& env, int ntables) {
  Round r;
  r.dim = static_cast<int>(rng.chance(0.9) ? rng.range(1, 4) : rng.range(5, 20));
  r.spacing = rng.pick(std::vector<double>{1, 0.5, 0.1, 0.25, 0.3, 3, 1e-3, 0.2, 7});
  for (int k = 0; k < ntables; ++k) r.tables.push_back(generate_table(rng, env, r, "t" + std::to_string(k)));

  // eps values for correlated subqueries and LATERAL: lattice multiples, 0, negative, NULL,
  // NaN, Infinity, and one repeated (the rescan with the same eps).
  const double S = r.spacing;
  std::vector<std::string> pool = {fmt_double(S), fmt_double(2 * S), fmt_double(S * std::sqrt(2.0)),
                                   fmt_double(0.5 * S), "0", "-1", "NULL", "'NaN'", "'Infinity'",
                                   fmt_double(3 * S), fmt_double(10 * S), "1e9",
                                   "(ARRAY[1,2]::float8[] <=> ARRAY[2,1]::float8[])", "0.05"};
  std::vector<std::string> eps;
  const int neps = static_cast<int>(rng.range(2, 5));
  for (int k = 0; k < neps; ++k) eps.push_back(k < 2 ? pool[static_cast<size_t>(rng.range(0, 4))] : rng.pick(pool));
  if (rng.chance(0.3)) eps.push_back(eps[0]);
  r.aux_sql += "CREATE TABLE fz_eps (e float8);\nINSERT INTO fz_eps VALUES ";
  for (size_t k = 0; k < eps.size(); ++k) r.aux_sql += (k ? ", (" : "(") + eps[k] + ")";
  r.aux_sql += ";\n";
  std::vector<std::string> shifts = {"0", fmt_double(S), fmt_double(-S), fmt_double(10 * S), fmt_double(0.5 * S)};
  const int nshift = static_cast<int>(rng.range(2, 4));
  r.aux_sql += "CREATE TABLE fz_shift (s float8);\nINSERT INTO fz_shift VALUES ";
  for (int k = 0; k < nshift; ++k) r.aux_sql += (k ? ", (" : "(") + (k == 0 ? std::string("0") : rng.pick(shifts)) + ")";
  r.aux_sql += ";\nANALYZE fz_eps;\nANALYZE fz_shift;\n";
  r.aux_sql +=
      "CREATE FUNCTION fz_shift_vec(v float8[], s float8) RETURNS float8[] LANGUAGE sql IMMUTABLE STRICT "
      "PARALLEL SAFE AS 'SELECT array_agg(x + s ORDER BY n) FROM unnest(v) WITH ORDINALITY u(x, n)';\n";

  // Session settings of the round (both sides): memory (spills), parallel plans, join methods.
  std::string& st = r.settings_sql;
  st += std::string("SET work_mem = '") + rng.pick(std::vector<std::string>{"4MB", "4MB", "64kB", "256kB"}) + "';\n";
  if (rng.chance(0.25))
    st += "SET max_parallel_workers_per_gather = 2;\nSET parallel_setup_cost = 0;\nSET parallel_tuple_cost = 0;\n"
          "SET min_parallel_table_scan_size = 0;\n" +
          // a side read by parallel workers alone: every row through their queues
          std::string(rng.chance(0.5) ? "SET parallel_leader_participation = off;\n" : "");
  else
    st += "SET max_parallel_workers_per_gather = 0;\n";
  if (rng.chance(0.2)) st += "SET enable_hashjoin = off;\nSET enable_mergejoin = off;\n";
  if (rng.chance(0.1)) st += "SET enable_material = off;\n";
  st += std::string("SET simjoin.threads = ") + rng.pick(std::vector<std::string>{"0", "0", "1", "2"}) + ";\n";
  return r;
}

}  // namespace fuzz
