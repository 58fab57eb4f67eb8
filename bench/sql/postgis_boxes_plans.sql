-- One query (:q) of postgis_boxes.sql: the plan the planner picks, the custom scan forced,
-- PostgreSQL's plan.
EXPLAIN (ANALYZE, COSTS ON, TIMING OFF) :q;
SET enable_nestloop = off; SET enable_hashjoin = off; SET enable_mergejoin = off;
EXPLAIN (ANALYZE, COSTS ON, TIMING OFF) :q;
RESET enable_nestloop; RESET enable_hashjoin; RESET enable_mergejoin;
SET simjoin.enable_customscan = off;
EXPLAIN (ANALYZE, COSTS ON, TIMING OFF) :q;
RESET simjoin.enable_customscan;
