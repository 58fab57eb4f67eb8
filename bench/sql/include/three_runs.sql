-- The query in psql's variable :query, run three times with \timing.
\timing on
:query;
:query;
:query;
\timing off
