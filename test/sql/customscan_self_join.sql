-- Self-joins read once: when both children of the custom scan are sequential scans of one table
-- with the same filter, target list and key, nothing volatile and no row locks, the outer side
-- is the inner side's rows (EXPLAIN ANALYZE: "Outer Storage: the inner side's rows", the outer
-- scan never executed). Every query is compared with PostgreSQL's own plan; the cases that must
-- read both children (other filters or keys, volatile filters, FOR UPDATE, a spilled inner
-- side) are checked to do so.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql

SELECT setseed(0.23);
CREATE TABLE sj (id int, grp int, v float8[], w float8[]);
INSERT INTO sj SELECT i, i % 10, ARRAY[round(random() * 30) / 10, round(random() * 30) / 10],
                      ARRAY[round(random() * 30) / 10, round(random() * 30) / 10]
  FROM generate_series(1, 2000) i;
INSERT INTO sj SELECT 3000 + id, grp, v, w FROM sj WHERE id <= 50;           -- duplicates
INSERT INTO sj VALUES (9001, 1, NULL, NULL), (9002, 2, ARRAY[1e200, 1], ARRAY[1, 1]),
  (9003, 3, ARRAY['Infinity', 1]::float8[], ARRAY[1, 1]),
  (9004, 4, ARRAY['NaN', 1]::float8[], ARRAY[1, 1]);
ANALYZE sj;

CREATE FUNCTION pg_temp.outer_storage(query text) RETURNS text
LANGUAGE sql AS $$ SELECT pg_temp.cs_explain(query, 'Outer Storage') $$;

-- read once
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM sj a JOIN sj b
  ON a.v <-> b.v <= 0.3');
SELECT pg_temp.outer_storage('SELECT a.id, b.id FROM sj a JOIN sj b ON a.v <-> b.v <= 0.3');
SELECT pg_temp.cs_explain('SELECT a.id, b.id FROM sj a JOIN sj b ON a.v <-> b.v <= 0.3',
                          'Wild Rows') AS wild_rows;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM sj a JOIN sj b ON a.v <-> b.v <= 0.3;
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b, b.w AS w FROM sj a JOIN sj b
  ON a.v <-> b.v <= 0.3 AND a.grp <> b.grp WHERE a.grp < 5 AND b.grp < 5');
SELECT pg_temp.outer_storage('SELECT a.id, b.id FROM sj a JOIN sj b ON a.v <-> b.v <= 0.3
  WHERE a.grp < 5 AND b.grp < 5');
SELECT * FROM pg_temp.cs_compare('SELECT count(*) AS n FROM sj a JOIN sj b
  ON a.v <+> b.v <= 0.4');
-- eps from the outer query: the scan is rescanned, the outer side copied again each time
SELECT * FROM pg_temp.cs_compare('SELECT g, n FROM generate_series(1, 4) g, LATERAL
  (SELECT count(*) AS n FROM sj a JOIN sj b ON a.v <-> b.v <= g / 10.0) s');

-- read twice: other filters, another key, a volatile filter, row locks, a spilled inner side
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM sj a JOIN sj b
  ON a.v <-> b.v <= 0.3 WHERE a.grp < 5 AND b.grp < 3');
SELECT pg_temp.outer_storage('SELECT a.id, b.id FROM sj a JOIN sj b ON a.v <-> b.v <= 0.3
  WHERE a.grp < 5 AND b.grp < 3');
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM sj a JOIN sj b
  ON a.v <-> b.w <= 0.3');
SELECT pg_temp.outer_storage('SELECT a.id, b.id FROM sj a JOIN sj b ON a.v <-> b.w <= 0.3');
SELECT pg_temp.outer_storage('SELECT a.id, b.id FROM sj a JOIN sj b ON a.v <-> b.v <= 0.3
  WHERE a.grp < 5 + 0 * random() AND b.grp < 5 + 0 * random()');
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b FROM sj a JOIN sj b
  ON a.v <-> b.v <= 0.3 WHERE a.grp < 5 + 0 * random() AND b.grp < 5 + 0 * random()');
SELECT pg_temp.outer_storage('SELECT a.id, b.id FROM sj a JOIN sj b ON a.v <-> b.v <= 0.3
  FOR UPDATE OF a');
BEGIN;
SELECT count(*) FROM (SELECT a.id, b.id FROM sj a JOIN sj b ON a.v <-> b.v <= 0.3
  FOR UPDATE OF a) s;
ROLLBACK;
SET work_mem = '64kB';
SELECT pg_temp.cs_explain('SELECT a.id, b.id, a.w, b.w FROM sj a JOIN sj b
  ON a.v <-> b.v <= 0.3', 'Inner Storage') AS inner_storage,
       pg_temp.outer_storage('SELECT a.id, b.id, a.w, b.w FROM sj a JOIN sj b
  ON a.v <-> b.v <= 0.3');
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b, a.w AS aw, b.w AS bw
  FROM sj a JOIN sj b ON a.v <-> b.v <= 0.3');
RESET work_mem;

-- The inner side keeps no tuple where pairs read only its by-value columns and its scan can
-- be read again ("Inner Bytes: 0"); a wild row on either side makes the executor read it
-- again with its tuples (the inner scan's loops = 2).
CREATE TABLE sj_clean AS SELECT id, grp, v, w FROM sj WHERE id < 9000;
ANALYZE sj_clean;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT pg_temp.cs_explain('SELECT a.id, b.id FROM sj_clean a JOIN sj_clean b
  ON a.v <-> b.v <= 0.3', 'Inner Bytes') AS clean_inner_bytes;
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b, b.grp AS g
  FROM sj_clean a JOIN sj_clean b ON a.v <-> b.v <= 0.3');
-- wild rows in the outer side (either side of the FROM list): the inner side is read again
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM sj_clean a JOIN sj b ON a.v <-> b.v <= 0.3;
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b, b.grp AS g
  FROM sj_clean a JOIN sj b ON a.v <-> b.v <= 0.3');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM sj a JOIN sj_clean b ON a.v <-> b.v <= 0.3;
SELECT * FROM pg_temp.cs_compare('SELECT a.id AS a, b.id AS b, b.grp AS g
  FROM sj a JOIN sj_clean b ON a.v <-> b.v <= 0.3');
-- rescans of a values only inner side with eps changing: skipped, unordered, then ordered
SELECT * FROM pg_temp.cs_compare('SELECT e, (SELECT sum(a.id * 3 + b.id) FROM sj_clean a
  JOIN sj_clean b ON a.v <-> b.v <= e AND a.grp < b.grp) AS s
  FROM (VALUES (-1::float8), (0.1), (0.3), (0.1)) AS t(e)');
RESET enable_hashjoin;
RESET enable_mergejoin;
DROP TABLE sj, sj_clean;
