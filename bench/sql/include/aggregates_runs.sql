-- The runs of bench/sql/aggregates_cube.sql and aggregates_postgis.sql: the query on the other
-- type's keys (:by_form, named :form) and on float8[] (:by_array), each wrapped in :wrap, in the
-- engine three times, then the other type's query with the pairs aggregated by PostgreSQL twice
-- and PostgreSQL's own plan once.
\echo '== engine,' :form ':' :by_form
EXPLAIN (COSTS OFF) :by_form;
\timing on
:wrap (:by_form) s;
:wrap (:by_form) s;
:wrap (:by_form) s;
\timing off
\echo '== engine, float8[]:' :by_array
EXPLAIN (COSTS OFF) :by_array;
\timing on
:wrap (:by_array) s;
:wrap (:by_array) s;
:wrap (:by_array) s;
\timing off
\echo '==' :form ', the pairs aggregated by PostgreSQL (simjoin.enable_aggregates = off)'
SET simjoin.enable_aggregates = off;
EXPLAIN (COSTS OFF) :by_form;
\timing on
:wrap (:by_form) s;
:wrap (:by_form) s;
\timing off
RESET simjoin.enable_aggregates;
\echo '== PostgreSQL''s plan (simjoin.enable_customscan = off)'
SET simjoin.enable_customscan = off;
EXPLAIN (COSTS OFF) :by_form;
\timing on
:wrap (:by_form) s;
\timing off
RESET simjoin.enable_customscan;
