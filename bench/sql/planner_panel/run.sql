-- One timed run of a planner_panel.sql query with the setting :mode (custom or native); a
-- setting whose run failed (a timeout) is not run again.
SELECT CASE :'mode' WHEN 'custom' THEN :'out_custom' ELSE :'out_native' END::boolean
       AS skip_run \gset
\if :skip_run
\else
\ir mode.sql
\set r_n -
\set r_h -
SELECT clock_timestamp() AS t0 \gset
:q \gset r_
\set err :ERROR
\set state :SQLSTATE
SELECT round(extract(epoch FROM clock_timestamp() - :'t0'::timestamptz)::numeric * 1000, 1)
       AS ms \gset
\echo PANEL run :qid :mode :r :ms :err :state :r_n :r_h
\if :err
SELECT :'mode' = 'custom' AS failed_custom \gset
\if :failed_custom
\set out_custom true
\else
\set out_native true
\endif
\endif
\endif
