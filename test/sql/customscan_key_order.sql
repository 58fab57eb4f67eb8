-- A self-join ordered by a unique key: a.k < b.k, a.k > b.k, a.k <> b.k beside the distance
-- clause, k a column a unique, immediate, non-partial index proves unique. Where the outer side is
-- the inner side's rows (one scan shared), each engine pair of a row with itself is dropped and
-- each other pair is taken once as an unordered pair, tried in one orientation and then, unless
-- it passed under < or >, in the other (EXPLAIN: Self-Join Pairs); the key clause is still
-- checked on every pair. Every query is compared with PostgreSQL's own plan (cs_compare:
-- only_custom and only_native must be 0).
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

SELECT setseed(0.53);
CREATE TABLE ko (id int PRIMARY KEY, code int UNIQUE, name text UNIQUE, grp int, v float8[]);
INSERT INTO ko SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE 5000 - i END, 'n' || (i * 7919 % 2000),
  i % 5, ARRAY[round(random() * 30) / 10, round(random() * 30) / 10]
  FROM generate_series(1, 2000) i;
INSERT INTO ko SELECT 3000 + id, NULL, 'd' || id, grp, v FROM ko WHERE id <= 60;  -- duplicates
INSERT INTO ko VALUES (9001, NULL, 'x1', 1, NULL), (9002, 9002, 'x2', 2, '{NaN,1}'),
  (9003, 9003, 'x3', 3, '{Infinity,1}'), (9004, 9004, 'x4', 4, '{1e200,1}');
ANALYZE ko;

EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM ko a JOIN ko b ON a.v <-> b.v <= 0.3 AND a.id < b.id;
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM ko a JOIN ko b ON a.v <-> b.v <= 0.3 AND a.id < b.id$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM ko a JOIN ko b ON a.v <-> b.v <= 0.3 AND a.id > b.id$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM ko a JOIN ko b ON a.v <-> b.v <= 0.3 AND b.id > a.id$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM ko a JOIN ko b ON a.v <-> b.v <= 0.3 AND a.id <> b.id$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM ko a JOIN ko b ON a.v <+> b.v < 0.4 AND b.id <> a.id$$);
-- NULL keys (a unique column admits many), a text key, other clauses on the pair
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM ko a JOIN ko b ON a.v <-> b.v <= 0.3 AND a.code < b.code$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.name AS a, b.name AS b FROM ko a JOIN ko b ON a.v <-> b.v <= 0.3 AND a.name > b.name$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b, a.grp FROM ko a JOIN ko b
  ON a.v <-> b.v <= 0.3 AND a.id < b.id AND a.grp <> b.grp WHERE a.grp < 4 AND b.grp < 4$$);
-- each pair once: the engine runs its unique-pairs mode (no row with itself, no mirrored pair),
-- so its pairs are no more than the rows of the join; the key order shown
SELECT pg_temp.cs_explain($$SELECT a.id, b.id FROM ko a JOIN ko b
  ON a.v <-> b.v <= 0.3 AND a.id < b.id$$, 'Self-Join Pairs') AS pairs,
  pg_temp.cs_explain($$SELECT a.id, b.id FROM ko a JOIN ko b
  ON a.v <-> b.v <= 0.3 AND a.id < b.id$$, 'Engine Pairs')::int <=
  (SELECT count(*) FROM ko a JOIN ko b ON a.v <-> b.v <= 0.3 AND a.id < b.id) AS engine_pairs_once;
SELECT pg_temp.cs_explain($$SELECT a.id, b.id FROM ko a JOIN ko b
  ON a.v <-> b.v <= 0.3 AND a.id <> b.id$$, 'Self-Join Pairs') AS pairs;

-- Not taken (the clause only filters, as any other): a column no index proves unique, a
-- deferrable unique constraint, a partial unique index, two different tables, unshared scans.
CREATE TABLE ko_deferred (id int UNIQUE DEFERRABLE INITIALLY DEFERRED, v float8[]);
INSERT INTO ko_deferred SELECT id, v FROM ko;
CREATE TABLE ko_partial (id int, v float8[]);
CREATE UNIQUE INDEX ON ko_partial (id) WHERE id > 0;
INSERT INTO ko_partial SELECT id, v FROM ko;
ANALYZE ko_deferred;
ANALYZE ko_partial;
SELECT q, pg_temp.cs_explain(q, 'Self-Join Pairs') AS pairs, c.*
FROM (VALUES
  ($$SELECT a.id AS a, b.id AS b FROM ko a JOIN ko b ON a.v <-> b.v <= 0.3 AND a.grp < b.grp$$),
  ($$SELECT a.id AS a, b.id AS b FROM ko_deferred a JOIN ko_deferred b
     ON a.v <-> b.v <= 0.3 AND a.id < b.id$$),
  ($$SELECT a.id AS a, b.id AS b FROM ko_partial a JOIN ko_partial b
     ON a.v <-> b.v <= 0.3 AND a.id < b.id$$),
  ($$SELECT a.id AS a, b.id AS b FROM ko a JOIN ko_partial b ON a.v <-> b.v <= 0.3 AND a.id < b.id$$),
  ($$SELECT a.id AS a, b.id AS b FROM ko a JOIN ko b ON a.v <-> b.v <= 0.3 AND a.id < b.id
     WHERE a.grp = 1$$)) t(q), LATERAL pg_temp.cs_compare(q) c;

-- An empty table, a generic plan, a rescan with another eps for each outer row.
CREATE TABLE ko_empty (id int PRIMARY KEY, v float8[]);
ANALYZE ko_empty;
SET enable_nestloop = off;  -- PostgreSQL's plan is cheaper with an empty side
SELECT * FROM pg_temp.cs_compare($$
  SELECT a.id AS a, b.id AS b FROM ko_empty a JOIN ko_empty b ON a.v <-> b.v <= 1 AND a.id < b.id$$);
RESET enable_nestloop;
SET plan_cache_mode = force_generic_plan;
PREPARE ko_q(float8) AS
  SELECT a.id AS a, b.id AS b FROM ko a JOIN ko b ON a.v <-> b.v <= $1 AND a.id < b.id;
EXPLAIN (COSTS OFF) EXECUTE ko_q(0.3);
\i test/sql/include/customscan_prepared.sql
SELECT eps, r.* FROM (VALUES (0.3::float8), (0), (0.05), (NULL), (0.1)) t(eps),
  LATERAL pg_temp.cs_compare_prepared(format('EXECUTE ko_q(%L)', eps),
    format('SELECT a.id AS a, b.id AS b FROM ko a JOIN ko b ON a.v <-> b.v <= %L AND a.id < b.id',
           eps)) r;
RESET plan_cache_mode;
SELECT * FROM pg_temp.cs_compare($$
  SELECT g, n FROM generate_series(0, 3) g, LATERAL
    (SELECT count(*) AS n FROM ko a JOIN ko b ON a.v <-> b.v <= g / 10.0 AND a.id < b.id) s$$);
SELECT * FROM pg_temp.cs_compare($$
  SELECT g, x.* FROM generate_series(1, 3) g, LATERAL
    (SELECT a.id AS a, b.id AS b FROM ko a JOIN ko b ON a.v <-> b.v <= g / 10.0 AND a.id <> b.id
     WHERE a.id % 7 = g) x$$);
