-- The custom scan's delivery paths (issue 4), each compared with PostgreSQL's own plan
-- (simjoin.enable_customscan = off): engine pairs projected straight into the result slot
-- (plain columns) or through ExecProject (expressions) or checked with other clauses; an outer
-- side that keeps only its wild rows' tuples (inner side without wild rows, needed columns by
-- value) or every tuple (by-reference columns, or wild inner rows); the engine run as a
-- self-join when both sides hold the same points; inner tuples in memory and spilled.
\i test/sql/include/customscan_setup.sql

SELECT setseed(0.77);
CREATE TABLE dl_a (id int PRIMARY KEY, cat int, name text, v float8[]);
CREATE TABLE dl_b (id int PRIMARY KEY, cat int, name text, v float8[]);
INSERT INTO dl_a SELECT i, i % 4, 'a' || i, ARRAY[round(random() * 30) / 10, round(random() * 30) / 10]
  FROM generate_series(1, 1500) i;
INSERT INTO dl_b SELECT i, i % 4, 'b' || i, ARRAY[round(random() * 30) / 10, round(random() * 30) / 10]
  FROM generate_series(1, 1500) i;
-- dl_c: dl_a's points in the same order under other ids (another table: the engine's self-join)
CREATE TABLE dl_c AS SELECT id + 10000 AS id, cat, name, v FROM dl_a ORDER BY id;
-- dl_w: dl_b with wild rows (NaN, huge, infinite coordinates, a NULL vector)
CREATE TABLE dl_w AS SELECT * FROM dl_b;
INSERT INTO dl_w VALUES (9001, 1, 'nan', '{NaN,1}'), (9002, 2, 'huge', '{1e200,0}'),
  (9003, 3, 'inf', '{Infinity,1}'), (9004, 0, 'none', NULL);
ANALYZE dl_a;
ANALYZE dl_b;
ANALYZE dl_c;
ANALYZE dl_w;

-- Outer side without wild rows against an inner side without: values only, direct projection.
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= 0.25');
SELECT * FROM pg_temp.cs_compare(
  'SELECT b.id AS b, a.cat AS c, a.id AS a, b.cat AS d FROM dl_a a JOIN dl_b b ON a.v <+> b.v < 0.3');
SELECT * FROM pg_temp.cs_compare(
  'SELECT count(*) AS n FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= 0.4');
SELECT pg_temp.cs_explain('SELECT count(*) FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= 0.4',
                          'Outer Bytes') AS count_outer_kb,
       pg_temp.cs_explain('SELECT a.id, b.id FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= 0.4',
                          'Outer Bytes') AS ids_outer_kb,
       pg_temp.cs_explain('SELECT a.name, b.id FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= 0.4',
                          'Outer Bytes')::int > 0 AS names_keep_tuples;
-- by-reference columns (tuples kept), expressions (ExecProject), other clauses (checked)
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.name AS a, b.name AS b FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= 0.25');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id + b.id AS s, a.v <-> b.v AS d FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= 0.25');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.name AS b FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= 0.3 AND a.cat <> b.cat');
-- the scan tuple itself (no projection), and every column
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.v AS x, b.v AS y FROM dl_a a JOIN dl_b b ON chebyshev_distance(a.v, b.v) <= 0.2');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.*, b.id AS b_id, b.cat AS b_cat, b.name AS b_name, b.v AS b_v
     FROM dl_a a JOIN dl_b b ON chebyshev_distance(a.v, b.v) <= 0.2');
-- Wild rows on the outer side only (values only: their tuples are kept for the recheck), on
-- the inner side only (every outer tuple kept), on both.
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM dl_w a JOIN dl_b b ON a.v <-> b.v <= 0.25');
SET enable_nestloop = off;  -- NaN eps: every pair matches, the custom scan is no cheaper
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM dl_w a JOIN dl_b b ON a.v <-> b.v <= ''NaN''::float8
     AND b.id % 100 = 0');
RESET enable_nestloop;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM dl_a a JOIN dl_w b ON a.v <-> b.v <= 0.25');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.name AS b FROM dl_w a JOIN dl_w b ON a.v <-> b.v <= 0.25');
-- Self-joins: the same table, another table with the same points, the same table filtered
-- differently on each side (different points: a two-input run), eps 0 with < (no pair at all)
-- and <= (each point with its duplicates).
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM dl_a x JOIN dl_a y ON x.v <-> y.v <= 0.3');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM dl_a x JOIN dl_c y ON x.v <-> y.v <= 0.3');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM dl_a x JOIN dl_a y ON x.v <+> y.v <= 0.3
     WHERE x.cat = 1 AND y.cat <> 1');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM dl_a x JOIN dl_a y ON x.v <-> y.v < 0');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM dl_a x JOIN dl_a y ON x.v <-> y.v <= 0');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM dl_w x JOIN dl_w y ON chebyshev_distance(x.v, y.v) <= 0.2');
-- Points in space order (order_points): a dimension of zero width, a side of one point.
CREATE TABLE dl_line AS SELECT id, ARRAY[1, v[2], v[1]]::float8[] AS v FROM dl_a;
ANALYZE dl_line;
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM dl_line x JOIN dl_line y ON x.v <-> y.v <= 0.2');
SET enable_nestloop = off;
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM dl_line x JOIN (SELECT * FROM dl_line WHERE id = 7) y
     ON x.v <-> y.v <= 0.5');
RESET enable_nestloop;
DROP TABLE dl_line;
-- The same joins with the inner side spilled to a temporary file (rows read back per pair).
-- Where a pair reads only by-value columns of a table scanned without volatile functions, the
-- inner side keeps no tuple at all (values only; read again if a wild row shows up): nothing
-- to spill.
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT pg_temp.cs_explain('SELECT a.id, b.name FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= 0.25',
                          'Inner Storage') AS inner_storage,
       pg_temp.cs_explain('SELECT a.id, b.id FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= 0.25',
                          'Inner Bytes') AS values_only_inner_bytes;
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b, b.name AS n FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= 0.25');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.id AS b FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= 0.25');
SELECT * FROM pg_temp.cs_compare(
  'SELECT b.id AS b, a.cat AS c, b.name AS n FROM dl_a a JOIN dl_b b ON a.v <+> b.v < 0.3');
SELECT * FROM pg_temp.cs_compare(
  'SELECT count(*) AS n FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= 0.4');
SELECT * FROM pg_temp.cs_compare(
  'SELECT a.id AS a, b.name AS b FROM dl_w a JOIN dl_w b ON a.v <-> b.v <= 0.25');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.name AS b FROM dl_a x JOIN dl_c y ON x.v <-> y.v <= 0.3');
RESET work_mem;
RESET hash_mem_multiplier;
-- Long vectors: values compressed inline (mostly zeros) are expanded once per row for the
-- clauses checked on each pair; values stored out of line (random, incompressible) stay as they
-- are. The children return whole heap tuples here (no projection): stored as copies.
CREATE TABLE dl_long (id int, v float8[]);
ALTER TABLE dl_long ALTER COLUMN v SET STORAGE EXTENDED;
INSERT INTO dl_long SELECT i, array_fill(0::float8, ARRAY[400]) || ARRAY[(i % 20)::float8, (i % 7)::float8]
  FROM generate_series(1, 300) i;
INSERT INTO dl_long SELECT 1000 + i, ARRAY(SELECT (random() * 3)::float8 FROM generate_series(1, 402) WHERE i > 0)
  FROM generate_series(1, 20) i;
ANALYZE dl_long;
SELECT count(*) FILTER (WHERE pg_column_size(v) < 1000) AS compressed,
       count(*) FILTER (WHERE pg_column_size(v) > 3000) AS uncompressed FROM dl_long;
SET enable_nestloop = off;
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.id AS a, y.id AS b FROM dl_long x JOIN dl_long y ON x.v <-> y.v <= 3
     AND x.v <+> y.v <= 4 AND x.id <> y.id');
SELECT * FROM pg_temp.cs_compare(
  'SELECT x.*, chebyshev_distance(y.v, x.v) AS d FROM dl_long x JOIN dl_long y ON x.v <-> y.v <= 2.5');
RESET enable_nestloop;
DROP TABLE dl_long;

-- Rescans with a changing eps: the inner side is kept, its points already in space order.
SELECT e, (SELECT sum(a.id * 3 + b.id) FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= e),
       (SELECT count(*) FROM dl_w a JOIN dl_a b ON a.v <+> b.v <= e AND a.cat = b.cat)
  FROM (VALUES (0.1::float8), (0.3), (0.1), ('NaN')) AS t(e);
SET simjoin.enable_customscan = off;
SELECT e, (SELECT sum(a.id * 3 + b.id) FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= e),
       (SELECT count(*) FROM dl_w a JOIN dl_a b ON a.v <+> b.v <= e AND a.cat = b.cat)
  FROM (VALUES (0.1::float8), (0.3), (0.1), ('NaN')) AS t(e);
RESET simjoin.enable_customscan;

-- LIMIT and cursors on the direct path (a partly consumed batch).
SET enable_nestloop = off;
SELECT count(*) FROM (SELECT a.id FROM dl_a a JOIN dl_a b ON a.v <-> b.v <= 1 LIMIT 7) l;
BEGIN;
DECLARE dl_cur NO SCROLL CURSOR FOR SELECT a.id, b.id FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= 0.25;
MOVE FORWARD 100 IN dl_cur;
MOVE FORWARD ALL IN dl_cur;
CLOSE dl_cur;
COMMIT;
SELECT count(*) FROM dl_a a JOIN dl_b b ON a.v <-> b.v <= 0.25;
RESET enable_nestloop;

DROP TABLE dl_a, dl_b, dl_c, dl_w;
