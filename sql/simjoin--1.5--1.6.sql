-- simjoin 1.5 -> 1.6: similarity_knn_join() (per left row, its k nearest right rows within eps).
\echo Use "ALTER EXTENSION simjoin UPDATE TO '1.6'" to load this file. \quit

-- 1.6: the exact k-nearest-neighbour join. Per row of left_table, its k nearest rows of
-- right_table with d <= eps (eps NULL: no limit; a NaN distance is never within), nearest first,
-- ties by the smaller key, ranked 1..k: the rows of
--   SELECT a.key, n.key, n.d, n.rank FROM left_table a CROSS JOIN LATERAL (
--     SELECT b.key, d(a.v, b.v) AS d, row_number() OVER (ORDER BY d(a.v, b.v), b.key) AS rank
--     FROM right_table b WHERE d(a.v, b.v) <= eps ORDER BY d(a.v, b.v), b.key LIMIT k) n
-- with the privileges and row-level security of that query. A left row with fewer partners
-- returns those it has; a NULL vector, none. k 0: no rows; k NULL or negative: ERROR. In a
-- self-join a row is its own nearest neighbour (distance 0), as in the query above;
-- include_self => false leaves the row itself out. Columns, keys, metric and algorithm as
-- similarity_join. Runs on the CPU engine whatever simjoin.device says.
CREATE FUNCTION @extschema@.similarity_knn_join(
    left_table pg_catalog.regclass,
    right_table pg_catalog.regclass,
    k pg_catalog.int4,
    eps pg_catalog.float8 DEFAULT NULL,
    metric pg_catalog.text DEFAULT 'euclidean',
    left_column pg_catalog.name DEFAULT NULL,
    right_column pg_catalog.name DEFAULT NULL,
    left_key pg_catalog.name DEFAULT NULL,
    right_key pg_catalog.name DEFAULT NULL,
    algorithm pg_catalog.text DEFAULT NULL,
    include_self pg_catalog.bool DEFAULT true,
    OUT left_id pg_catalog.int8,
    OUT right_id pg_catalog.int8,
    OUT distance pg_catalog.float8,
    OUT rank pg_catalog.int4)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_similarity_knn_join'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED ROWS 1000;

COMMENT ON FUNCTION @extschema@.similarity_knn_join(pg_catalog.regclass, pg_catalog.regclass,
  pg_catalog.int4, pg_catalog.float8, pg_catalog.text, pg_catalog.name, pg_catalog.name,
  pg_catalog.name, pg_catalog.name, pg_catalog.text, pg_catalog.bool)
IS 'per left row: its k nearest right rows within eps (ties to the smaller key), ranked 1..k';
