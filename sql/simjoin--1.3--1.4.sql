-- simjoin 1.3 -> 1.4: similarity_join() gains the argument algorithm (auto, grid, szl or
-- bruteforce; NULL: the simjoin.algorithm setting).
\echo Use "ALTER EXTENSION simjoin UPDATE TO '1.4'" to load this file. \quit

DROP FUNCTION @extschema@.similarity_join(pg_catalog.regclass, pg_catalog.regclass,
  pg_catalog.float8, pg_catalog.text, pg_catalog.name, pg_catalog.name, pg_catalog.name,
  pg_catalog.name, pg_catalog.bool);
-- algorithm => auto | grid | szl | bruteforce (NULL: the simjoin.algorithm setting).
CREATE FUNCTION @extschema@.similarity_join(
    left_table pg_catalog.regclass,
    right_table pg_catalog.regclass,
    eps pg_catalog.float8,
    metric pg_catalog.text DEFAULT 'euclidean',
    left_column pg_catalog.name DEFAULT NULL,
    right_column pg_catalog.name DEFAULT NULL,
    left_key pg_catalog.name DEFAULT NULL,
    right_key pg_catalog.name DEFAULT NULL,
    unique_pairs pg_catalog.bool DEFAULT false,
    algorithm pg_catalog.text DEFAULT NULL,
    OUT left_id pg_catalog.int8,
    OUT right_id pg_catalog.int8,
    OUT distance pg_catalog.float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'simjoin_similarity_join'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED ROWS 1000;

COMMENT ON FUNCTION @extschema@.similarity_join(pg_catalog.regclass, pg_catalog.regclass,
  pg_catalog.float8, pg_catalog.text, pg_catalog.name, pg_catalog.name, pg_catalog.name,
  pg_catalog.name, pg_catalog.bool, pg_catalog.text)
IS 'all pairs of rows whose vectors lie within eps (euclidean, manhattan, chebyshev or cosine)';
