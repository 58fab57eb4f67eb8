-- GROUP BY and DISTINCT over a join under a nondeterministic collation: a unique index proves
-- each row its own group only where its equality is the grouping's (pg/scan/aggregate/path.cpp's
-- unique_column). Here names unique under "C" ('x1', 'X1') are one group case-insensitively.
LOAD 'simjoin';
\i test/sql/include/customscan_setup.sql
SET simjoin.enable_aggregates = on;
SELECT count(*) > 0 AS has_icu FROM pg_collation WHERE collprovider = 'i' \gset
\if :has_icu
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE t_ci (id int PRIMARY KEY, name text COLLATE ci, pos float8[]);
CREATE UNIQUE INDEX ON t_ci (name COLLATE "C");
INSERT INTO t_ci SELECT i, CASE WHEN i % 2 = 0 THEN 'x' || (i / 2) ELSE 'X' || (i / 2) END,
       ARRAY[i % 10, i / 10]::float8[] FROM generate_series(1, 2000) i;
ANALYZE t_ci;
-- The engine's plan and PostgreSQL's: 1001 groups both.
SELECT count(*) FROM (SELECT DISTINCT a.name FROM t_ci a JOIN t_ci b ON a.pos <-> b.pos <= 1) s;
SELECT count(*), sum(n) FROM (SELECT a.name, count(*) AS n FROM t_ci a JOIN t_ci b ON a.pos <-> b.pos <= 1 GROUP BY a.name) s;
SET simjoin.enable_customscan = off;
SELECT count(*) FROM (SELECT DISTINCT a.name FROM t_ci a JOIN t_ci b ON a.pos <-> b.pos <= 1) s;
SELECT count(*), sum(n) FROM (SELECT a.name, count(*) AS n FROM t_ci a JOIN t_ci b ON a.pos <-> b.pos <= 1 GROUP BY a.name) s;
RESET simjoin.enable_customscan;
-- Still the aggregate scan (the groups folded by the collation's equality, not taken as unique):
EXPLAIN (COSTS OFF) SELECT a.name, count(*) FROM t_ci a JOIN t_ci b ON a.pos <-> b.pos <= 1 GROUP BY a.name;
-- A unique index of the grouping's own collation does prove it: each row its own group.
CREATE TABLE t_ci2 (id int PRIMARY KEY, name text COLLATE ci UNIQUE, pos float8[]);
INSERT INTO t_ci2 SELECT i, 'n' || i, ARRAY[i % 10, i / 10]::float8[] FROM generate_series(1, 500) i;
ANALYZE t_ci2;
SELECT count(*), sum(n) FROM (SELECT a.name, count(*) AS n FROM t_ci2 a JOIN t_ci2 b ON a.pos <-> b.pos <= 1 GROUP BY a.name) s;
-- A deterministic grouping: any unique index of the same equality will do.
SELECT count(*) FROM (SELECT DISTINCT a.name COLLATE "C" FROM t_ci a JOIN t_ci b ON a.pos <-> b.pos <= 1) s;
DROP TABLE t_ci, t_ci2;
DROP COLLATION ci;
\else
\echo 'no ICU collations: skipped'
\endif
