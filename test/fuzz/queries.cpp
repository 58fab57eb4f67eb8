// simjoin_fuzz: random queries over a round's tables. Each query joins two tables (or one with
// itself) on one of the distance forms the SimilarityJoin custom scan recognizes (built by
// query_forms.cpp), wrapped in a shape: plain join, aggregates, correlated subqueries and LATERAL
// with a changing eps, keys computed from outer values, LEFT JOIN / EXISTS, ORDER BY ... LIMIT,
// LIMIT alone, cursors, prepared statements (generic and custom plans), similarity_join() against
// the plain join, DISTINCT ON's nearest partner, LATERAL's k nearest.
#include <cmath>

#include "fuzz.h"
#include "query_forms.h"

namespace fuzz {

namespace {

class ShapeGenerator {
 public:
  ShapeGenerator(Rng& rng, const Round& round, const Env& env) : rng_(rng), round_(round), forms_(rng, round, env) {}

  Query generate() {
    Query q;
    switch (rng_.weighted({16, 10, 12, 8, 9, 4, 4, 6, 4, 6, 8, 6, 4, 3, 3, 5, 5})) {
      case 0: plain(q); break;
      case 1: aggregate(q); break;
      case 2: correlated(q, false); break;
      case 3: lateral(q, false); break;
      case 4: rng_.chance(0.5) ? correlated(q, true) : lateral(q, true); break;
      case 5: left_join(q); break;
      case 6: exists(q); break;
      case 7: ordered_limit(q); break;
      case 8: unordered_limit(q); break;
      case 9: cursor(q); break;
      case 10: prepared(q); break;
      case 11: function(q); break;
      case 12: three_way(q); break;
      case 13: locking(q); break;
      case 14: dml(q); break;
      case 15: nearest(q); break;
      default: knn_lateral(q); break;
    }
    q.explain = q.kind != Kind::Function && rng_.chance(0.35);
    return q;
  }

 private:
  Rng& rng_;
  const Round& round_;
  FormGenerator forms_;  // the distance forms, drawn from rng_ too

  double S() const { return round_.spacing; }

  std::string where_clause(const Core& c) { return c.where.empty() ? "" : " WHERE " + c.where; }

  // Output columns of a join. orderable: only types with a btree order (no whole rows, points).
  Strings projection(const Core& c, bool orderable) {
    // (orderable: equal values must print alike, so no sums of numerics of different scales)
    Strings pool = {"a.id", "b.id", "a.c1", "b.c2", "a.name", "b.name", "a.f", "b.num", "a.v", "b.v",
                    c.dist, "length(a.name)", "md5(b.name)", "b.x1 - a.x1", "a.x2"};
    if (!orderable) {
      pool.insert(pool.end(), {"a.*", "b.*", "a", "b", "b.name || a.name", "a.num + b.num"});
      if (c.left->has_point) pool.push_back("a.p");
      if (c.right->has_geom) pool.push_back("b.g");
    }
    // cube's order is not total with NaN coordinates (cube_cmp compares them as equal to
    // anything), so an ordered projection sorts its text instead
    if (c.left->has_cube) pool.push_back(orderable ? "a.cb::text" : "a.cb");
    if (c.right->has_w) pool.push_back("b.w");
    if (c.left->has_jsonb) pool.push_back("a.j");
    Strings out;
    if (rng_.chance(0.7)) {
      out.push_back("a.id");
      out.push_back("b.id");
    }
    const int n = static_cast<int>(rng_.range(out.empty() ? 1 : 0, 3));
    for (int k = 0; k < n; ++k) out.push_back(rng_.pick(pool));
    return out;
  }

  Strings aggregates(const Core& c) {
    Strings pool = {"count(*)", "count(b.id)", "sum(a.id)", "min(" + c.dist + ")", "max(" + c.dist + ")",
                    "count(DISTINCT a.id)", "count(DISTINCT (a.id, b.id))", "sum(length(b.name))",
                    "bool_and(a.c1 = b.c1)", "max(b.name)", "min(a.name)",
                    "count(*) FILTER (WHERE a.c1 = b.c1 AND a.c2 = b.c2)",
                    "count(*) FILTER (WHERE a.name < b.name)", "sum(a.id * 3 + b.id) FILTER (WHERE a.c1 < b.c1)",
                    "sum(b.num)", "count(*) FILTER (WHERE a.f = b.f)"};
    Strings out = {rng_.chance(0.5) ? "count(*)" : rng_.pick(pool)};
    const int n = static_cast<int>(rng_.range(0, 2));
    for (int k = 0; k < n; ++k) out.push_back(rng_.pick(pool));
    return out;
  }

  std::string select_join(const Core& c, const Strings& proj) {
    return "SELECT " + join(proj, ", ") + " FROM " + c.from + where_clause(c);
  }

  void finish(Query& q, const Core& c, const std::string& shape) {
    q.form = c.form;
    q.shape = shape;
    q.tables = c.tables;
  }

  void plain(Query& q) {
    CoreOptions o;
    o.eps = forms_.const_eps();
    o.const_eps = true;
    o.comma_join = rng_.chance(0.2);
    const Core c = forms_.core(o);
    std::string sql = select_join(c, projection(c, false));
    if (rng_.chance(0.08)) sql = sql + " UNION ALL " + sql;
    if (rng_.chance(0.1)) sql = "WITH x AS MATERIALIZED (" + sql + ") SELECT * FROM x";
    q.sql = sql;
    q.steps = {{sql, StepMode::Multiset, {}}};
    finish(q, c, "plain join");
  }

  void aggregate(Query& q) {
    CoreOptions o;
    o.eps = forms_.const_eps();
    o.const_eps = true;
    const Core c = forms_.core(o);
    Strings aggs = aggregates(c);
    std::string sql;
    if (rng_.chance(0.15)) {  // the groups alone: GROUP BY or DISTINCT of one column
      const std::string g = rng_.pick(Strings{"a.c1", "b.c2", "a.id", "b.id", "a.name"});
      sql = rng_.chance(0.5) ? "SELECT DISTINCT " + g + " FROM " + c.from + where_clause(c)
                             : "SELECT " + g + " FROM " + c.from + where_clause(c) + " GROUP BY " + g;
    } else if (rng_.chance(0.4)) {
      const std::string g = rng_.pick(Strings{"a.c1", "b.c2", "a.id", "a.name"});
      sql = "SELECT " + g + ", " + join(aggs, ", ") + " FROM " + c.from + where_clause(c) + " GROUP BY " + g;
    } else {
      sql = "SELECT " + join(aggs, ", ") + " FROM " + c.from + where_clause(c);
    }
    q.sql = sql;
    q.steps = {{sql, StepMode::Multiset, {}}};
    finish(q, c, "aggregate");
  }

  // eps (and shifts) from the rows of fz_eps / fz_shift: the join is rescanned with new values.
  void outer_values(bool shift, std::string* from, std::string* cols, std::string* eps, std::string* sh) {
    if (shift) {
      *sh = rng_.chance(0.8) ? "s.s" : "(s.s * 2)";
      if (rng_.chance(0.3)) {
        *from = "fz_shift s, fz_eps e";
        *cols = "s.s, e.e";
        *eps = "e.e";
      } else {
        *from = "fz_shift s";
        *cols = "s.s";
        *eps = forms_.const_eps();
      }
    } else {
      *from = "fz_eps e";
      *cols = "e.e";
      *eps = rng_.pick(Strings{"e.e", "e.e", "e.e", "(e.e * 2)", "e.e::real"});
      sh->clear();
    }
  }

  // The core of a join whose eps or keys come from the rows of an outer query.
  Core outer_dependent_core(bool shift, std::string* from, std::string* outer_cols) {
    std::string eps, sh;
    outer_values(shift, from, outer_cols, &eps, &sh);
    CoreOptions o;
    o.eps = eps;
    o.shift = sh;
    return forms_.core(o);
  }

  void correlated(Query& q, bool shift) {
    std::string from, outer_cols;
    const Core c = outer_dependent_core(shift, &from, &outer_cols);
    Strings aggs = aggregates(c);
    std::string sub;
    if (aggs.size() == 1)
      sub = "(SELECT " + aggs[0] + " FROM " + c.from + where_clause(c) + ")";
    else
      sub = "(SELECT row(" + join(aggs, ", ") + ")::text FROM " + c.from + where_clause(c) + ")";
    q.sql = "SELECT " + outer_cols + ", " + sub + " FROM " + from;
    if (rng_.chance(0.3)) {  // the same subquery twice in one target list
      q.sql = "SELECT " + outer_cols + ", " + sub + ", " + sub + " FROM " + from;
    }
    q.steps = {{q.sql, StepMode::Multiset, {}}};
    finish(q, c, shift ? "correlated subquery, keys from outer values" : "correlated subquery, eps from outer rows");
    q.tables.push_back(shift ? "fz_shift" : "fz_eps");
  }

  void lateral(Query& q, bool shift) {
    std::string from, outer_cols;
    const Core c = outer_dependent_core(shift, &from, &outer_cols);
    std::string inner;
    if (rng_.chance(0.4))
      inner = "SELECT " + join(aggregates(c), ", ") + " FROM " + c.from + where_clause(c);
    else
      inner = select_join(c, projection(c, false));
    if (rng_.chance(0.6)) inner += " OFFSET 0";  // not pulled up: a subquery scan, rescanned
    const std::string lat = rng_.pick(Strings{", LATERAL (" + inner + ") x", " CROSS JOIN LATERAL (" + inner + ") x",
                                              " LEFT JOIN LATERAL (" + inner + ") x ON true"});
    q.sql = "SELECT * FROM " + from + lat;
    q.steps = {{q.sql, StepMode::Multiset, {}}};
    finish(q, c, shift ? "LATERAL, keys from outer values" : "LATERAL, eps from outer rows");
    q.tables.push_back(shift ? "fz_shift" : "fz_eps");
  }

  void left_join(Query& q) {
    CoreOptions o;
    o.eps = forms_.const_eps();
    o.const_eps = true;
    o.left_join = true;
    const Core c = forms_.core(o);
    q.sql = select_join(c, {"a.id", "b.id", c.dist});
    q.steps = {{q.sql, StepMode::Multiset, {}}};
    finish(q, c, "LEFT JOIN");
  }

  void exists(Query& q) {
    CoreOptions o;
    o.eps = forms_.const_eps();
    o.const_eps = true;
    o.comma_join = true;
    o.allow_filters = false;
    Core c = forms_.core(o);
    // FROM L a, R b WHERE cond  ->  FROM L a WHERE [NOT] EXISTS (SELECT 1 FROM R b WHERE cond)
    const size_t comma = c.from.find(", ");
    const std::string lfrom = c.from.substr(0, comma), rfrom = c.from.substr(comma + 2);
    const bool neg = rng_.chance(0.4);
    q.sql = "SELECT a.id, a.name FROM " + lfrom + " WHERE " + (neg ? "NOT " : "") + "EXISTS (SELECT 1 FROM " +
            rfrom + " WHERE " + c.where + ")";
    q.steps = {{q.sql, StepMode::Multiset, {}}};
    finish(q, c, neg ? "NOT EXISTS" : "EXISTS");
  }

  std::string order_all(size_t ncols) {
    Strings o;
    for (size_t k = 1; k <= ncols; ++k) o.push_back(std::to_string(k) + (rng_.chance(0.2) ? " DESC" : ""));
    return " ORDER BY " + join(o, ", ");
  }

  void ordered_limit(Query& q) {
    CoreOptions o;
    o.eps = forms_.const_eps();
    o.const_eps = true;
    const Core c = forms_.core(o);
    const Strings proj = projection(c, true);
    q.sql = select_join(c, proj) + order_all(proj.size()) + " LIMIT " + std::to_string(rng_.range(0, 50)) +
            (rng_.chance(0.3) ? " OFFSET " + std::to_string(rng_.range(1, 20)) : "");
    q.steps = {{q.sql, StepMode::Sequence, {}}};
    finish(q, c, "ORDER BY all columns LIMIT");
  }

  // DISTINCT ON's nearest partner per outer key, of any other row (a.id <> b.id) or any row; the
  // projected columns are the ORDER BY's, so ties beyond it give equal rows.
  void nearest(Query& q) {
    CoreOptions o;
    o.eps = forms_.const_eps();
    o.const_eps = true;
    o.left_join = rng_.chance(0.2);
    const Core c = forms_.core(o);
    std::string where = where_clause(c);
    if (rng_.chance(0.5)) where += (where.empty() ? " WHERE " : " AND ") + std::string("a.id <> b.id");
    q.sql = "SELECT DISTINCT ON (a.id) a.id, b.id, " + c.dist + " FROM " + c.from + where +
            " ORDER BY a.id, " + c.dist + ", b.id";
    q.steps = {{q.sql, StepMode::Sequence, {}}};
    finish(q, c, "DISTINCT ON nearest");
  }

  // The k nearest rows of the other table per row, the pgvector way: LATERAL (... ORDER BY dist
  // LIMIT k). Ties at the k-th distance may pick other rows: only the distances are compared.
  void knn_lateral(Query& q) {
    CoreOptions o;
    o.eps = forms_.const_eps();
    o.const_eps = true;
    const Core c = forms_.core(o);
    std::string where;
    if (rng_.chance(0.3)) where = " WHERE b.id <> a.id";
    else if (rng_.chance(0.3)) where = " WHERE b.c1 < 3";
    const std::string sub = "SELECT " + c.dist + " AS d FROM " + c.right->name + " b" + where +
                            " ORDER BY " + c.dist + " LIMIT " + std::to_string(rng_.range(0, 12));
    q.sql = "SELECT a.id, n.d FROM " + c.left->name + " a" +
            (rng_.chance(0.7) ? " CROSS JOIN LATERAL (" + sub + ") n" : " LEFT JOIN LATERAL (" + sub + ") n ON true");
    q.steps = {{q.sql, StepMode::Multiset, {}}};
    finish(q, c, "LATERAL ORDER BY distance LIMIT k");
  }

  void unordered_limit(Query& q) {
    CoreOptions o;
    o.eps = forms_.const_eps();
    o.const_eps = true;
    const Core c = forms_.core(o);
    const std::string full = select_join(c, projection(c, false));
    q.sql = full + " LIMIT " + std::to_string(rng_.range(0, 30));
    q.steps = {{q.sql, StepMode::SubsetOfNext, {}}, {full, StepMode::Multiset, {}}};
    finish(q, c, "LIMIT without ORDER BY");
  }

  void cursor(Query& q) {
    CoreOptions o;
    o.eps = rng_.chance(0.8) ? forms_.const_eps() : fmt_double(S() * 100);
    o.const_eps = true;
    const Core c = forms_.core(o);
    const bool ordered = rng_.chance(0.5);
    const Strings proj = projection(c, ordered);
    q.sql = select_join(c, proj) + (ordered ? order_all(proj.size()) : "");
    q.kind = Kind::Cursor;
    q.scroll = rng_.chance(0.7);
    q.hold = rng_.chance(0.2);
    const int n = static_cast<int>(rng_.range(2, 6));
    if (q.scroll) {
      for (int k = 0; k < n; ++k) {
        const std::string f = rng_.pick(Strings{"FETCH 5", "FETCH 1", "FETCH 20", "FETCH BACKWARD 3", "FETCH ALL",
                                                "FETCH BACKWARD ALL", "FETCH FIRST", "FETCH LAST", "FETCH ABSOLUTE 4",
                                                "FETCH RELATIVE -2", "MOVE 7", "FETCH PRIOR", "FETCH NEXT"});
        q.steps.push_back({f + " FROM c", ordered ? StepMode::Sequence : StepMode::Count, {}});
      }
      // at the end: everything, backwards from after the last row
      q.steps.push_back({"MOVE ALL FROM c", StepMode::Count, {}});
      q.steps.push_back({"FETCH BACKWARD ALL FROM c", ordered ? StepMode::Sequence : StepMode::Multiset, {}});
    } else {
      for (int k = 0; k < n; ++k) {
        const std::string f = rng_.pick(Strings{"FETCH 1", "FETCH 7", "FETCH 100", "FETCH 1000"});
        q.steps.push_back({f + " FROM c", ordered ? StepMode::Sequence : StepMode::Accumulate, {}});
      }
      q.steps.push_back({"FETCH ALL FROM c", ordered ? StepMode::Sequence : StepMode::Accumulate, {}});
    }
    finish(q, c, std::string(q.scroll ? "SCROLL " : "NO SCROLL ") + "cursor" + (q.hold ? " WITH HOLD" : "") +
                     (ordered ? ", ordered" : ""));
  }

  void prepared(Query& q) {
    CoreOptions o;
    o.eps = "$1";
    const bool shift = rng_.chance(0.3);
    if (shift) o.shift = "$2";
    const Core c = forms_.core(o);
    const int shape = static_cast<int>(rng_.range(0, 2));
    if (shape == 0)
      q.sql = select_join(c, projection(c, false));
    else if (shape == 1)
      q.sql = "SELECT " + join(aggregates(c), ", ") + " FROM " + c.from + where_clause(c);
    else  // the parameter inside a correlated subquery
      q.sql = "SELECT e.e, (SELECT count(*) FROM " + c.from + where_clause(c) + ") FROM fz_eps e";
    q.kind = Kind::Prepared;
    q.nparams = shift ? 2 : 1;
    q.plan_cache_mode = rng_.pick(Strings{"auto", "force_generic_plan", "force_custom_plan"});
    const double s = S();
    std::vector<std::optional<std::string>> eps_pool = {
        fmt_double(s), fmt_double(2 * s), std::string("0"), std::nullopt, std::string("NaN"), std::string("Infinity"),
        std::string("-1"), fmt_double(s * std::sqrt(2.0)), fmt_double(s / 2), std::string("1e9"),
        std::string("1"), std::string("0.05")};  // (the last two: bounds on the cosine distance's scale)
    for (auto& e : eps_pool)
      if (e && e->front() == '(') *e = e->substr(1, e->size() - 2);  // a parameter value, not a literal
    const int n = static_cast<int>(rng_.range(2, 8));
    for (int k = 0; k < n; ++k) {
      Step st;
      st.sql = q.sql;
      st.params.push_back(k < 2 ? eps_pool[static_cast<size_t>(rng_.range(0, 1))] : rng_.pick(eps_pool));
      if (shift)
        st.params.push_back(rng_.chance(0.9) ? std::optional<std::string>(rng_.pick(Strings{"0", fmt_double(s), "-1"}))
                                             : std::nullopt);
      st.mode = StepMode::Multiset;
      q.steps.push_back(st);
    }
    finish(q, c, "prepared, plan_cache_mode " + q.plan_cache_mode);
    if (shape == 2) q.tables.push_back("fz_eps");
  }

  // similarity_join() against the plain join with the custom scan off: integer non-NULL keys,
  // vectors of one dimension (tables without wild rows).
  void function(Query& q) {
    std::vector<const Table*> ok;
    for (const auto& t : round_.tables)
      if (t.key_nonnull && !t.error_rows) ok.push_back(&t);
    if (ok.empty()) return plain(q);
    const Table* L = rng_.pick(ok);
    if (L->rows >= 1000) L = rng_.pick(ok);  // a large self-join's nested loop takes seconds
    const bool self = rng_.chance(0.4) && L->rows < 1000;
    const Table* R = self ? L : rng_.pick(ok);
    if (R->rows >= 1000 && L->rows >= 1000) R = L;
    if (L->dim != R->dim) R = L;
    const bool real = L->has_w && R->has_w && rng_.chance(0.3);
    const std::string col = real ? "w" : "v";
    const int m = static_cast<int>(rng_.weighted({3, 2, 2, 3}));
    const Strings metrics = {rng_.pick(Strings{"euclidean", "l2", "EUCLIDEAN"}), rng_.pick(Strings{"manhattan", "taxicab", "l1"}),
                             rng_.pick(Strings{"chebyshev", "linf"}), rng_.pick(Strings{"cosine", "Cosine"})};
    // the SQL join's distance: the operator, or the function for Chebyshev (no operator)
    const Strings ops = {"<->", "<+>", "chebyshev_distance", "<=>"};
    const bool unique = L == R && L->key_unique && rng_.chance(0.5);
    const double s = S();
    std::string eps = rng_.pick(Strings{fmt_double(s), fmt_double(2 * s), "0", fmt_double(s * std::sqrt(2.0)),
                                        "NULL", "'Infinity'", "-1", fmt_double(s / 2)});
    if (m == 3 && rng_.chance(0.7))  // on the cosine distance's scale
      eps = rng_.pick(Strings{"0", "1e-15", "0.01", "0.2", "1", "2", "0.5"});
    const bool named = rng_.chance(0.5);
    if (named) {
      q.sql = "SELECT * FROM similarity_join('" + L->name + "', '" + R->name + "', eps => " + eps +
              ", metric => '" + metrics[m] + "'" + (col == "w" || L->has_w || R->has_w || rng_.chance(0.5) ? ", left_column => '" + col + "', right_column => '" + col + "'" : "") +
              ", left_key => 'id', right_key => 'id'" + (unique ? ", unique_pairs => true" : "") + ")";
    } else {
      q.sql = "SELECT * FROM similarity_join('" + L->name + "', '" + R->name + "', " + eps + ", '" + metrics[m] +
              "', '" + col + "', '" + col + "', 'id', 'id', " + (unique ? "true" : "false") + ")";
    }
    const std::string d = m == 2 ? ops[m] + "(l." + col + ", r." + col + ")" : "l." + col + " " + ops[m] + " r." + col;
    q.off_sql = "SELECT l.id::bigint, r.id::bigint, " + d + " FROM " + L->name + " l JOIN " + R->name + " r ON " + d +
                " <= " + (eps == "NULL" ? "NULL::float8" : eps) + (unique ? " AND l.id < r.id" : "");
    q.kind = Kind::Function;
    q.steps = {{q.sql, StepMode::Multiset, {}}};
    q.form = std::string("similarity_join() ") +
             (m == 0 ? "euclidean" : m == 1 ? "manhattan" : m == 2 ? "chebyshev" : "cosine") + (real ? " real[]" : " float8[]");
    q.shape = unique ? "similarity_join unique_pairs" : "similarity_join";
    q.tables = {L->name};
    if (R != L) q.tables.push_back(R->name);
  }

  // SELECT ... FOR UPDATE / FOR SHARE (row locks: the custom scan must read both children).
  void locking(Query& q) {
    CoreOptions o;
    o.eps = forms_.const_eps();
    o.const_eps = true;
    const Core c = forms_.core(o);
    const std::string lock = rng_.pick(Strings{" FOR UPDATE OF a", " FOR SHARE", " FOR UPDATE", " FOR KEY SHARE OF b"});
    q.sql = select_join(c, {"a.id", "b.id", "a.name", c.dist}) + lock;
    q.kind = Kind::Dml;
    q.steps = {{q.sql, StepMode::Multiset, {}}};
    finish(q, c, "row locks" + lock.substr(0, lock.find(" OF")));
  }

  // UPDATE ... FROM / DELETE ... USING the join, RETURNING the target's rows, rolled back.
  void dml(Query& q) {
    CoreOptions o;
    o.eps = forms_.const_eps();
    o.const_eps = true;
    o.comma_join = true;
    o.allow_filters = rng_.chance(0.5);
    const Core c = forms_.core(o);
    const size_t comma = c.from.find(", ");
    const std::string lfrom = c.from.substr(0, comma), rfrom = c.from.substr(comma + 2);
    if (lfrom.find("(SELECT") != std::string::npos) return plain(q);  // the target must be a table
    // each target row is returned once, whichever b row joined it
    if (rng_.chance(0.5))
      q.sql = "UPDATE " + lfrom + " SET c2 = coalesce(a.c2, 0) + 1 FROM " + rfrom + " WHERE " + c.where +
              " RETURNING a.id, a.c2, a.name";
    else
      q.sql = "DELETE FROM " + lfrom + " USING " + rfrom + " WHERE " + c.where + " RETURNING a.*";
    q.kind = Kind::Dml;
    q.steps = {{q.sql, StepMode::Multiset, {}}};
    finish(q, c, q.sql.rfind("UPDATE", 0) == 0 ? "UPDATE ... FROM (rolled back)" : "DELETE ... USING (rolled back)");
  }

  void three_way(Query& q) {
    CoreOptions o;
    o.eps = forms_.const_eps();
    o.const_eps = true;
    const Core c = forms_.core(o);
    const Table& T = forms_.table();
    std::string sql;
    if (rng_.chance(0.5)) {  // a second distance join on top of the first
      const std::string d = rng_.pick(Strings{"b.v <-> c.v", "b.v <+> c.v", "b.v <=> c.v", "chebyshev_distance(b.v, c.v)",
                                              "cosine_distance(c.v, b.v)"});
      sql = "SELECT a.id, b.id, c.id FROM " + c.from + " JOIN " + T.name + " c ON " + d + " <= " +
            forms_.const_eps() + where_clause(c);
    } else {
      sql = "SELECT a.id, b.id, c.name FROM " + c.from + " JOIN " + T.name + " c ON c.id = a.id" + where_clause(c);
    }
    q.sql = sql;
    q.steps = {{sql, StepMode::Multiset, {}}};
    finish(q, c, "three tables");
    q.tables.push_back(T.name);
  }
};

}  // namespace

Query generate_query(Rng& rng, const Round& round, const Env& env) {
  ShapeGenerator g(rng, round, env);
  return g.generate();
}

std::string Query::repro() const {
  std::string s;
  switch (kind) {
    case Kind::Plain:
      s = sql + ";";
      if (steps.size() > 1) s += "\n-- and without the LIMIT:\n" + steps.back().sql + ";";
      break;
    case Kind::Function:
      s = sql + ";\n-- against, with simjoin.enable_customscan = off:\n" + off_sql + ";";
      break;
    case Kind::Dml:
      s = "BEGIN;\n" + sql + ";\nROLLBACK;";
      break;
    case Kind::Cursor:
      s = "BEGIN;\nDECLARE c " + std::string(scroll ? "SCROLL" : "NO SCROLL") + " CURSOR" + (hold ? " WITH HOLD" : "") +
          " FOR " + sql + ";\n";
      for (size_t k = 0; k < steps.size(); ++k) {
        s += steps[k].sql + ";\n";
        if (hold && k == 0) s += "COMMIT;\n";
      }
      s += hold ? "CLOSE c;" : "COMMIT;";
      break;
    case Kind::Prepared: {
      s = "SET plan_cache_mode = " + plan_cache_mode + ";\nPREPARE q(" + std::string(nparams == 2 ? "float8, float8" : "float8") +
          ") AS " + sql + ";\n";
      for (const auto& st : steps) {
        Strings vals;
        for (const auto& p : st.params) vals.push_back(p ? "'" + *p + "'" : "NULL");
        s += "EXECUTE q(" + join(vals, ", ") + ");\n";
      }
      s += "DEALLOCATE q;";
      break;
    }
  }
  return s;
}

}  // namespace fuzz