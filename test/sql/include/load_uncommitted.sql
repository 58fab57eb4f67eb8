-- Rows changed in the reading transaction, not yet committed: a side read beside its SeqScan
-- (by parallel workers or by the leader's parse threads) sees what the leader's snapshot sees.
-- Variables: load_table (a table of id, v float8[], p point, tag), first_new (ids of the rows
-- inserted from there on), count_a and group_a (queries over load_table compared).
BEGIN;
UPDATE :"load_table" SET v = ARRAY[100, 100]::float8[] WHERE id % 10 = 0;
DELETE FROM :"load_table" WHERE id % 10 = 1;
INSERT INTO :"load_table"
SELECT i, ARRAY[i % 20, 3]::float8[], NULL, 0 FROM generate_series(:first_new, :first_new + 199) i;
SELECT pg_temp.parallel_load(:'count_a') AS in_transaction;
SELECT * FROM pg_temp.cs_compare(:'count_a');
SELECT * FROM pg_temp.cs_compare(:'group_a');
ROLLBACK;
