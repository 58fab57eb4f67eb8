-- The nearest-row runs of bench/sql/aggregates_postgis.sql and aggregates_point.sql: the query
-- :nearest (a DISTINCT ON wrapped in a count and a sum) explained, run three times as planned,
-- then once as PostgreSQL's plan.
\echo '== the nearest other place, engine:' :nearest
EXPLAIN (COSTS OFF) :nearest;
\timing on
:nearest;
:nearest;
:nearest;
SET simjoin.enable_customscan = off;
:nearest;
\timing off
RESET simjoin.enable_customscan;
