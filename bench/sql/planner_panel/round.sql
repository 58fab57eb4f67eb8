-- One round of a planner_panel.sql query: both settings, custom first in even rounds, then the
-- next round (recursively) until :rounds.
SELECT :r % 2 = 0 AS custom_first \gset
\if :custom_first
\set mode custom
\ir run.sql
\set mode native
\ir run.sql
\else
\set mode native
\ir run.sql
\set mode custom
\ir run.sql
\endif
SELECT :r + 1 AS r \gset
SELECT :r < :rounds AS more_rounds \gset
\if :more_rounds
\ir round.sql
\endif
