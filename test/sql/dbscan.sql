-- simjoin_dbscan() compared with a brute-force DBSCAN written here in SQL (Ester, Kriegel, Sander
-- and Xu's definition as PostGIS's ST_ClusterDBSCAN applies it): a point is core when at least
-- min_points points (itself included) lie within eps; clusters are the connected components of
-- core points; a border point joins the cluster of its core neighbour with the smallest key;
-- the rest is noise (cluster NULL); clusters are numbered 0, 1, ... by their smallest key. Equal
-- rows mean the same kinds, the same partition and the same numbering. On integer lattices
-- (pairs at exactly eps, duplicates), dimensions 1 to 16, keys in random order.
-- Its own schema: the suite's tests share one database.
CREATE SCHEMA dbscan_test;
SET search_path = dbscan_test, public;
SET simjoin.enable_customscan = off;  -- the reference joins are PostgreSQL's own plans
SELECT setseed(0.17);

CREATE FUNCTION dbscan_reference(tbl text, eps float8, min_points int, metric text DEFAULT 'euclidean')
RETURNS TABLE (id bigint, cluster int, kind text) LANGUAGE plpgsql AS $$
DECLARE
  d text := CASE metric WHEN 'euclidean' THEN 'euclidean_distance' WHEN 'manhattan' THEN 'manhattan_distance'
                        WHEN 'chebyshev' THEN 'chebyshev_distance' WHEN 'cosine' THEN 'cosine_distance' END;
BEGIN
  DROP TABLE IF EXISTS ref_pairs, ref_points, ref_label;
  EXECUTE format('CREATE TEMP TABLE ref_pairs AS SELECT a.id::bigint AS p, b.id::bigint AS q
                  FROM %1$I a JOIN %1$I b ON %2$s(a.v, b.v) <= %3$L::float8', tbl, d, eps);
  EXECUTE format('CREATE TEMP TABLE ref_points AS SELECT t.id::bigint AS id,
                    EXISTS (SELECT FROM ref_pairs WHERE p = t.id AND q = t.id)
                    AND (SELECT count(*) FROM ref_pairs WHERE p = t.id) >= %2$s AS core
                  FROM %1$I t', tbl, min_points);
  -- Core components: each core point takes the smallest label among its core neighbours until
  -- nothing changes.
  CREATE TEMP TABLE ref_label AS SELECT r.id, r.id AS label FROM ref_points r WHERE r.core;
  LOOP
    UPDATE ref_label l SET label = m.label
    FROM (SELECT n.p, min(l2.label) AS label FROM ref_pairs n JOIN ref_label l2 ON l2.id = n.q GROUP BY n.p) m
    WHERE m.p = l.id AND m.label < l.label;
    EXIT WHEN NOT FOUND;
  END LOOP;
  -- Border points: the label of the core neighbour with the smallest key.
  INSERT INTO ref_label
    SELECT DISTINCT ON (n.p) n.p, l.label FROM ref_pairs n JOIN ref_label l ON l.id = n.q
    WHERE NOT (SELECT r.core FROM ref_points r WHERE r.id = n.p) ORDER BY n.p, n.q;
  RETURN QUERY
    SELECT r.id, (dense_rank() OVER (ORDER BY m.first_key))::int - 1,
           CASE WHEN r.core THEN 'core' ELSE 'border' END
    FROM ref_points r JOIN ref_label l ON l.id = r.id
    JOIN (SELECT label, min(ref_label.id) AS first_key FROM ref_label GROUP BY label) m ON m.label = l.label
    UNION ALL
    SELECT r.id, NULL, 'noise' FROM ref_points r WHERE r.id NOT IN (SELECT ref_label.id FROM ref_label);
END $$;

-- 'equal (points, clusters, core, border, noise)' or the differences both ways.
CREATE FUNCTION dbscan_check(tbl text, eps float8, min_points int, metric text DEFAULT 'euclidean',
                             algorithm text DEFAULT NULL)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE only_got bigint; only_want bigint; summary text;
BEGIN
  CREATE TEMP TABLE got AS SELECT * FROM simjoin_dbscan(tbl, eps, min_points, 'v', metric => metric, algorithm => algorithm);
  CREATE TEMP TABLE want AS SELECT * FROM dbscan_reference(tbl, eps, min_points, metric);
  SELECT count(*) INTO only_got FROM (SELECT * FROM got EXCEPT ALL SELECT * FROM want) x;
  SELECT count(*) INTO only_want FROM (SELECT * FROM want EXCEPT ALL SELECT * FROM got) x;
  SELECT format('%s points, %s clusters, %s core, %s border, %s noise', count(*), count(DISTINCT cluster),
                count(*) FILTER (WHERE kind = 'core'), count(*) FILTER (WHERE kind = 'border'),
                count(*) FILTER (WHERE kind = 'noise')) INTO summary FROM got;
  DROP TABLE got, want;
  IF only_got = 0 AND only_want = 0 THEN RETURN 'equal (' || summary || ')'; END IF;
  RETURN format('DIFFERENT: %s only in the function, %s only in the reference', only_got, only_want);
END $$;

\i test/sql/include/lattice.sql
SELECT lattice('d1', 120, 1, 150, 2);
SELECT lattice('d2', 200, 2, 30, 2);
SELECT lattice('d3', 200, 3, 10, 2);
SELECT lattice('d8', 150, 8, 3, 2);
SELECT lattice('d16', 150, 16, 2, 2);

-- Each dimension, eps at lattice distances, min_points 1, 2 and more.
SELECT t, eps, min_points, dbscan_check(t, eps, min_points)
FROM (VALUES ('d1', 1, 1), ('d1', 1, 3), ('d1', 2, 4), ('d2', 1, 1), ('d2', 1, 2), ('d2', 2, 4),
             ('d2', 3, 6), ('d3', 1, 2), ('d3', 2, 5), ('d8', 2, 3), ('d8', 3, 8), ('d16', 3, 2),
             ('d16', 4, 6)) c(t, eps, min_points) ORDER BY 1, 2, 3;
-- Duplicates only (eps 0), all noise, one cluster, min_points 0 (as 1).
SELECT dbscan_check('d2', 0, 2) AS duplicates, dbscan_check('d2', 0.5, 50) AS all_noise,
       dbscan_check('d2', 100, 5) AS one_cluster, dbscan_check('d3', 1, 0) AS min_points_0;
-- The other metrics, and each algorithm forced.
SELECT metric, dbscan_check('d2', 2, 4, metric) AS d2, dbscan_check('d3', 2, 4, metric) AS d3
FROM unnest(ARRAY['manhattan', 'chebyshev']) metric ORDER BY 1;
SELECT dbscan_check('d3', 0.01, 3, 'cosine') AS cosine;
SELECT algorithm, dbscan_check('d2', 2, 4, 'euclidean', algorithm) AS d2,
       dbscan_check('d8', 2, 3, 'euclidean', algorithm) AS d8
FROM unnest(ARRAY['grid', 'szl', 'bruteforce', 'auto']) algorithm ORDER BY 1;

-- By hand (eps 1, min_points 4): cluster {40, 44, 45, 50} at x = 0 and 1, cluster {10, 20, 21,
-- 22} at x = 3 and 4, and 60 at x = 2 between them at exactly eps from a core point of each, with
-- 3 neighbours: a border point, in the cluster of its core neighbour with the smaller key (10).
-- Clusters are numbered by their smallest key. A NULL vector and an isolated point are noise.
CREATE TABLE hand (id int PRIMARY KEY, v float8[]);
INSERT INTO hand VALUES (50, '{0,0}'), (45, '{0,0}'), (44, '{0,0}'), (40, '{1,0}'), (60, '{2,0}'),
  (10, '{3,0}'), (20, '{4,0}'), (21, '{4,0}'), (22, '{4,0}'), (70, NULL), (80, '{20,20}');
SELECT * FROM simjoin_dbscan('hand', 1, 4) ORDER BY id;
SELECT dbscan_check('hand', 1, 4) AS hand;
-- Just below eps (min_points 2) only the duplicates stay together: 10, 40 and 60 are noise.
-- min_points 1: every point is core (one chain, and the isolated point alone). Chebyshev,
-- min_points 5: only 40 and 10 stay core.
SELECT * FROM simjoin_dbscan('hand', 0.9999999, 2) ORDER BY id;
SELECT * FROM simjoin_dbscan('hand', 1, 1) ORDER BY id;
SELECT * FROM simjoin_dbscan('hand', 1, 5, key => 'id', column_name => 'v', metric => 'chebyshev') ORDER BY id;
-- An empty table, a table of NULL vectors.
CREATE TABLE empty_table (id int PRIMARY KEY, v float8[]);
SELECT * FROM simjoin_dbscan('empty_table', 1, 2);
INSERT INTO empty_table VALUES (2, NULL), (1, NULL);
SELECT * FROM simjoin_dbscan('empty_table', 1, 1);

-- Errors (as ST_ClusterDBSCAN: eps and min_points NULL or negative).
SELECT * FROM simjoin_dbscan('hand', -1, 2);
SELECT * FROM simjoin_dbscan('hand', NULL, 2);
SELECT * FROM simjoin_dbscan('hand', 'NaN', 2);
SELECT * FROM simjoin_dbscan('hand', 1, -1);
SELECT * FROM simjoin_dbscan('hand', 1, NULL);
SELECT * FROM simjoin_dbscan(NULL, 1, 2);
SELECT * FROM simjoin_dbscan('hand', 1, 2, metric => 'hamming');
SELECT * FROM simjoin_dbscan('hand', 1, 2, column_name => 'id');

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA dbscan_test CASCADE;
