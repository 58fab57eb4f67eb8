-- One query of bench/sql/planner_panel.sql: qid, title, q (and optionally setup, vq, vo) are set
-- by the caller. Prints the plans, then runs the rounds (round.sql), then the check.
SELECT :'only' = '' OR :'qid' = ANY (string_to_array(:'only', ',')) AS run_query \gset
\if :{?setup}
\set has_setup true
\else
\set has_setup false
\endif
\if :run_query
\echo
\echo '==== ' :qid ': ' :title
\echo PANEL query :qid :title
\set mode custom
\ir mode.sql
EXPLAIN :q;
SELECT position('Custom Scan (SimilarityJoin)' IN pg_temp.pp_plan(:'q')) > 0 AS chosen \gset
\echo PANEL chosen :qid :chosen
\set mode native
\ir mode.sql
EXPLAIN :q;
\set r 0
\set out_custom false
\set out_native false
\ir round.sql
\if :analyze
\if :out_custom
\else
\set mode custom
\ir mode.sql
EXPLAIN (ANALYZE) :q;
\endif
\endif
-- The check where PostgreSQL's plan reached the timeout.
\if :out_native
\if :{?vq}
\set v_n -
\set v_h -
\set o_n -
\set o_h -
SET simjoin.enable_customscan = on;
:vq \gset v_
SET simjoin.enable_customscan = off;
:vo \gset o_
\echo PANEL verify :qid :v_n :v_h :o_n :o_h
\endif
\endif
RESET simjoin.enable_customscan;
\endif
\unset setup
\unset vq
\unset vo
