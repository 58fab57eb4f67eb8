-- simjoin 1.9 -> 1.10: the functions of a sharded layout (simjoin_shard_table) run on every server
-- at once. Each server joins the rows it holds (its region's home rows and their halo) with its
-- own simjoin and keeps what its home rows own; the coordinator sends every server its query
-- through dblink before it reads any answer, so the servers work at the same time.
\echo Use "ALTER EXTENSION simjoin UPDATE TO '1.10'" to load this file. \quit

-- Runs `remote_query` on the server of every partition of `sharded` at once and returns all
-- their rows (declare them: AS t(...)). In the query, {table} stands for the partition's table
-- on its server (schema-qualified, quoted), {table_literal} for that name as a string literal,
-- {simjoin} for the schema of simjoin there and {part} for the partition's number (0, 1, ...).
-- Each statement of `setup`, where given, runs first on every server at once, one after the
-- other (the same placeholders), in the same session as the query (for temporary tables).
-- Checks first that the layout's eps (kept in the table's comment by simjoin_shard_table) covers
-- `eps` and that its metric is `metric`; eps NULL gives no rows, as in similarity_join. Each
-- server's statement_timeout is this session's. Internal: the sharded functions below use it.
CREATE FUNCTION @extschema@.simjoin_sharded_rows(
    sharded pg_catalog.regclass,
    eps pg_catalog.float8,
    metric pg_catalog.text,
    remote_query pg_catalog.text,
    columns pg_catalog.text,
    setup pg_catalog.text[] DEFAULT '{}')
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE
AS $rows$
DECLARE
  dblink_schema pg_catalog.name;
  layout pg_catalog.text := pg_catalog.obj_description(sharded, 'pg_class');
  plan pg_catalog.jsonb;
  layout_eps pg_catalog.float8;
  parts pg_catalog.text[] := '{}';   -- connection names
  servers pg_catalog.name[] := '{}';
  tables pg_catalog.text[] := '{}';
  remote_schema pg_catalog.text;
  remote_schemas pg_catalog.text[] := '{}';
  part record;
  i pg_catalog.int4;
  round pg_catalog.int4;
BEGIN
  SELECT n.nspname INTO dblink_schema
    FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
   WHERE e.extname = 'dblink';
  IF NOT FOUND THEN
    RAISE EXCEPTION 'simjoin: the sharded functions need the dblink extension'
      USING HINT = 'CREATE EXTENSION dblink;';
  END IF;
  IF sharded IS NULL OR layout IS NULL OR layout !~ '^simjoin layout of .* over .*: \{' THEN
    RAISE EXCEPTION 'simjoin: % is not a table laid out by simjoin_shard_table',
      coalesce(sharded::pg_catalog.text, 'NULL');
  END IF;
  plan := pg_catalog.substr(layout, pg_catalog.strpos(layout, ': {') + 2)::pg_catalog.jsonb;
  layout_eps := coalesce((plan ->> 'eps')::pg_catalog.float8, 'Infinity');
  IF eps IS NULL THEN
    RETURN;
  END IF;
  IF eps = 'NaN' THEN
    RAISE EXCEPTION 'simjoin: eps must be a number';
  END IF;
  IF eps > layout_eps THEN
    RAISE EXCEPTION 'simjoin: eps % is larger than the eps % that % was laid out for', eps,
      layout_eps, sharded
      USING HINT = 'Lay the table out again with simjoin_shard_table and the larger eps.';
  END IF;
  IF coalesce(metric, 'euclidean') IS DISTINCT FROM plan ->> 'metric' THEN
    RAISE EXCEPTION 'simjoin: % was laid out for the % metric, not %', sharded,
      plan ->> 'metric', coalesce(metric, 'euclidean')
      USING HINT = 'Lay the table out again with simjoin_shard_table(..., metric => ...).';
  END IF;

  FOR part IN
    SELECT s.srvname,
           (SELECT pg_catalog.substr(o, 13) FROM pg_catalog.unnest(f.ftoptions) o
             WHERE o LIKE 'schema\_name=%') AS schema_name,
           (SELECT pg_catalog.substr(o, 12) FROM pg_catalog.unnest(f.ftoptions) o
             WHERE o LIKE 'table\_name=%') AS table_name
      FROM pg_catalog.pg_inherits h
      JOIN pg_catalog.pg_foreign_table f ON f.ftrelid = h.inhrelid
      JOIN pg_catalog.pg_foreign_server s ON s.oid = f.ftserver
     WHERE h.inhparent = sharded ORDER BY h.inhrelid
  LOOP
    servers := servers || part.srvname;
    tables := tables || pg_catalog.format('%I.%I', part.schema_name, part.table_name);
  END LOOP;
  IF pg_catalog.cardinality(servers) = 0 THEN
    RAISE EXCEPTION 'simjoin: % has no foreign partitions', sharded;
  END IF;

  BEGIN
    FOR i IN 1 .. pg_catalog.cardinality(servers) LOOP
      parts := parts || pg_catalog.format('simjoin_%s_%s', pg_catalog.pg_backend_pid(), i);
      BEGIN
        EXECUTE pg_catalog.format('SELECT %I.dblink_connect(%L, %L)', dblink_schema, parts[i],
                                  servers[i]);
      EXCEPTION WHEN OTHERS THEN
        parts := parts[1 : i - 1];
        RAISE EXCEPTION 'simjoin: server "%" cannot be reached: %', servers[i], SQLERRM;
      END;
      EXECUTE pg_catalog.format('SELECT %I.dblink_exec(%L, %L)', dblink_schema, parts[i],
                                'SET statement_timeout = ' ||
                                pg_catalog.quote_literal(pg_catalog.current_setting(
                                  'statement_timeout')));
      EXECUTE pg_catalog.format('SELECT s FROM %I.dblink(%L, %L) AS t(s pg_catalog.text)',
                                dblink_schema, parts[i],
                                'SELECT pg_catalog.quote_ident(n.nspname) FROM '
                                'pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON '
                                'n.oid = e.extnamespace WHERE e.extname = ''simjoin''')
         INTO remote_schema;
      IF remote_schema IS NULL THEN
        RAISE EXCEPTION 'simjoin: server "%" has no simjoin extension in its database',
          servers[i];
      END IF;
      remote_schemas := remote_schemas || remote_schema;
    END LOOP;
    -- Every server gets each statement before any answer is read.
    FOR round IN 1 .. coalesce(pg_catalog.cardinality(setup), 0) + 1 LOOP
      FOR i IN 1 .. pg_catalog.cardinality(servers) LOOP
        EXECUTE pg_catalog.format('SELECT %I.dblink_send_query(%L, %L)', dblink_schema, parts[i],
          pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(
            coalesce(setup[round], remote_query),
            '{table_literal}', pg_catalog.quote_literal(tables[i])), '{table}', tables[i]),
            '{simjoin}', remote_schemas[i]), '{part}', (i - 1)::pg_catalog.text));
      END LOOP;
      EXIT WHEN round > coalesce(pg_catalog.cardinality(setup), 0);
      FOR i IN 1 .. pg_catalog.cardinality(servers) LOOP
        BEGIN
          -- The statement's status, then the empty result that ends it.
          EXECUTE pg_catalog.format('SELECT count(*) FROM %I.dblink_get_result(%L) '
                                    'AS t(status pg_catalog.text)', dblink_schema, parts[i]);
          EXECUTE pg_catalog.format('SELECT count(*) FROM %I.dblink_get_result(%L) '
                                    'AS t(status pg_catalog.text)', dblink_schema, parts[i]);
        EXCEPTION WHEN OTHERS THEN
          RAISE EXCEPTION 'simjoin: server "%" failed: %', servers[i], SQLERRM;
        END;
      END LOOP;
    END LOOP;
    FOR i IN 1 .. pg_catalog.cardinality(servers) LOOP
      BEGIN
        RETURN QUERY EXECUTE pg_catalog.format('SELECT * FROM %I.dblink_get_result(%L) AS t(%s)',
                                               dblink_schema, parts[i], columns);
      EXCEPTION WHEN OTHERS THEN
        RAISE EXCEPTION 'simjoin: server "%" failed: %', servers[i], SQLERRM;
      END;
    END LOOP;
    FOR i IN 1 .. pg_catalog.cardinality(parts) LOOP
      EXECUTE pg_catalog.format('SELECT %I.dblink_disconnect(%L)', dblink_schema, parts[i]);
    END LOOP;
  EXCEPTION WHEN OTHERS THEN
    -- No connection outlives the call (dblink_disconnect cancels nothing: a server still
    -- running its query finishes it, within its statement_timeout).
    FOR i IN 1 .. pg_catalog.cardinality(parts) LOOP
      BEGIN
        EXECUTE pg_catalog.format('SELECT %I.dblink_disconnect(%L)', dblink_schema, parts[i]);
      EXCEPTION WHEN OTHERS THEN NULL;
      END;
    END LOOP;
    RAISE;
  END;
END
$rows$;
COMMENT ON FUNCTION @extschema@.simjoin_sharded_rows(pg_catalog.regclass, pg_catalog.float8,
  pg_catalog.text, pg_catalog.text, pg_catalog.text, pg_catalog.text[])
IS 'internal: runs a query on every server of a sharded layout at once and returns their rows';

-- The key of a sharded layout's rows: `key` when given, else the single-column primary key of the
-- table it was laid out from (named in its comment).
CREATE FUNCTION @extschema@.simjoin_sharded_key(sharded pg_catalog.regclass,
                                                key pg_catalog.name)
RETURNS pg_catalog.name
LANGUAGE plpgsql STABLE CALLED ON NULL INPUT PARALLEL SAFE
AS $key$
DECLARE
  layout pg_catalog.text := pg_catalog.obj_description(sharded, 'pg_class');
  source pg_catalog.regclass;
  found pg_catalog.name;
BEGIN
  IF key IS NOT NULL THEN
    RETURN key;
  END IF;
  source := pg_catalog.to_regclass(
    (pg_catalog.regexp_match(layout, '^simjoin layout of (.*) over '))[1]);
  SELECT a.attname INTO found
    FROM pg_catalog.pg_index i
    JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
   WHERE i.indrelid = source AND i.indisprimary AND i.indnatts = 1;
  IF found IS NULL THEN
    RAISE EXCEPTION 'simjoin: the table % was laid out from has no single-column primary key',
      sharded USING HINT = 'Name the key column with key => ...';
  END IF;
  RETURN found;
END
$key$;
COMMENT ON FUNCTION @extschema@.simjoin_sharded_key(pg_catalog.regclass, pg_catalog.name)
IS 'internal: the key column of a sharded layout';

-- The arguments after the two tables of a server's similarity_join or similarity_join_stats
-- call: eps, the metric, the column and the key on both sides (simjoin_sharded_key).
CREATE FUNCTION @extschema@.simjoin_sharded_arguments(sharded pg_catalog.regclass,
    eps pg_catalog.float8, metric pg_catalog.text, column_name pg_catalog.name,
    key pg_catalog.name)
RETURNS pg_catalog.text
LANGUAGE sql STABLE CALLED ON NULL INPUT PARALLEL SAFE
BEGIN ATOMIC
  SELECT pg_catalog.format('%s::pg_catalog.float8, metric => %L, left_column => %L, '
                           'right_column => %L, left_key => %L, right_key => %L',
                           pg_catalog.quote_literal(eps), metric, column_name, column_name,
                           k.name, k.name)
    FROM (SELECT @extschema@.simjoin_sharded_key(sharded, key) AS name) k;
END;
COMMENT ON FUNCTION @extschema@.simjoin_sharded_arguments(pg_catalog.regclass, pg_catalog.float8,
  pg_catalog.text, pg_catalog.name, pg_catalog.name)
IS 'internal: the arguments of a sharded layout''s similarity_join on its servers';

-- similarity_join of a sharded table with itself, on every server at once: the rows of
-- similarity_join(source, source, eps, ...) (each pair owned by its left row's home server).
CREATE FUNCTION @extschema@.simjoin_sharded_join(
    sharded pg_catalog.regclass,
    eps pg_catalog.float8,
    metric pg_catalog.text DEFAULT 'euclidean',
    column_name pg_catalog.name DEFAULT NULL,
    key pg_catalog.name DEFAULT NULL,
    unique_pairs pg_catalog.bool DEFAULT false,
    OUT left_id pg_catalog.int8,
    OUT right_id pg_catalog.int8,
    OUT distance pg_catalog.float8)
RETURNS SETOF record
LANGUAGE sql VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE ROWS 1000
BEGIN ATOMIC
  SELECT r.left_id, r.right_id, r.distance
    FROM @extschema@.simjoin_sharded_rows(sharded, eps, metric,
      pg_catalog.format(
        'SELECT j.left_id, j.right_id, j.distance FROM {simjoin}.similarity_join('
        '{table_literal}, {table_literal}, %s, unique_pairs => %L) j '
        'JOIN {table} h ON h.%I = j.left_id WHERE NOT h.simjoin_halo',
        @extschema@.simjoin_sharded_arguments(sharded, eps, metric, column_name, key),
        unique_pairs, @extschema@.simjoin_sharded_key(sharded, key)),
      'left_id pg_catalog.int8, right_id pg_catalog.int8, distance pg_catalog.float8')
      AS r(left_id pg_catalog.int8, right_id pg_catalog.int8, distance pg_catalog.float8);
END;
COMMENT ON FUNCTION @extschema@.simjoin_sharded_join(pg_catalog.regclass, pg_catalog.float8,
  pg_catalog.text, pg_catalog.name, pg_catalog.name, pg_catalog.bool)
IS 'similarity_join of a table laid out by simjoin_shard_table with itself, run on every server at once';

-- similarity_join_stats of a sharded table with itself, on every server at once: each row's
-- count, nearest key and nearest distance, computed on its home server (which holds every row
-- within eps of it).
CREATE FUNCTION @extschema@.simjoin_sharded_stats(
    sharded pg_catalog.regclass,
    eps pg_catalog.float8,
    metric pg_catalog.text DEFAULT 'euclidean',
    column_name pg_catalog.name DEFAULT NULL,
    key pg_catalog.name DEFAULT NULL,
    OUT left_id pg_catalog.int8,
    OUT neighbours pg_catalog.int8,
    OUT nearest_id pg_catalog.int8,
    OUT nearest_distance pg_catalog.float8)
RETURNS SETOF record
LANGUAGE sql VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE ROWS 1000
BEGIN ATOMIC
  SELECT r.left_id, r.neighbours, r.nearest_id, r.nearest_distance
    FROM @extschema@.simjoin_sharded_rows(sharded, eps, metric,
      pg_catalog.format(
        'SELECT s.left_id, s.neighbours, s.nearest_id, s.nearest_distance FROM '
        '{simjoin}.similarity_join_stats({table_literal}, {table_literal}, %s) s '
        'JOIN {table} h ON h.%I = s.left_id WHERE NOT h.simjoin_halo',
        @extschema@.simjoin_sharded_arguments(sharded, eps, metric, column_name, key),
        @extschema@.simjoin_sharded_key(sharded, key)),
      'left_id pg_catalog.int8, neighbours pg_catalog.int8, nearest_id pg_catalog.int8, '
      'nearest_distance pg_catalog.float8')
      AS r(left_id pg_catalog.int8, neighbours pg_catalog.int8, nearest_id pg_catalog.int8,
           nearest_distance pg_catalog.float8);
END;
COMMENT ON FUNCTION @extschema@.simjoin_sharded_stats(pg_catalog.regclass, pg_catalog.float8,
  pg_catalog.text, pg_catalog.name, pg_catalog.name)
IS 'similarity_join_stats of a table laid out by simjoin_shard_table with itself, run on every server at once';

-- simjoin_dbscan of a sharded table, on every server at once, then merged here: the rows of
-- simjoin_dbscan(source, eps, min_points, ...). Each server clusters the rows it holds; its home
-- rows' neighbourhoods are complete there, so their core flags are exact. It sends its home rows
-- (kind, cluster there), its halo rows that are core there (every core there is core), and, for
-- each row that is not core there, its neighbours there (fewer than min_points). Here the
-- servers' clusters are joined where a core row links them (a halo core row and its home
-- cluster; a row that is core at home with a core neighbour), a border row joins the cluster of
-- its core neighbour with the smallest key, and clusters are numbered by their smallest key.
CREATE FUNCTION @extschema@.simjoin_sharded_dbscan(
    sharded pg_catalog.regclass,
    eps pg_catalog.float8,
    min_points pg_catalog.int4,
    column_name pg_catalog.name DEFAULT NULL,
    key pg_catalog.name DEFAULT NULL,
    metric pg_catalog.text DEFAULT 'euclidean',
    OUT id pg_catalog.int8,
    OUT cluster pg_catalog.int4,
    OUT kind pg_catalog.text)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE ROWS 1000
AS $dbscan$
DECLARE
  key_column pg_catalog.name := @extschema@.simjoin_sharded_key(sharded, key);
  joined pg_catalog.text;
BEGIN
  IF min_points IS NULL OR min_points < 0 OR eps IS NULL OR eps < 0 THEN
    RAISE EXCEPTION 'simjoin: simjoin_sharded_dbscan needs eps >= 0 and min_points >= 0';
  END IF;
  joined := @extschema@.simjoin_sharded_arguments(sharded, eps, metric, column_name, key);
  DROP TABLE IF EXISTS pg_temp.simjoin_sharded_parts, pg_temp.simjoin_sharded_home,
                       pg_temp.simjoin_sharded_links, pg_temp.simjoin_sharded_labels;
  CREATE TEMP TABLE simjoin_sharded_parts AS
    SELECT * FROM @extschema@.simjoin_sharded_rows(sharded, eps, metric,
      'SELECT ''row'', {part}, d.id, NULL::pg_catalog.int8, d.cluster, d.kind, d.halo '
      'FROM pg_temp.simjoin_local_dbscan d WHERE NOT d.halo OR d.kind = ''core'' UNION ALL '
      'SELECT ''near'', {part}, j.left_id, j.right_id, NULL, NULL, NULL FROM '
      '{simjoin}.similarity_join(''pg_temp.simjoin_sparse'', {table_literal}, ' || joined ||
      ') j WHERE j.left_id <> j.right_id',
      'what pg_catalog.text, part pg_catalog.int4, id pg_catalog.int8, other pg_catalog.int8, '
      'cluster pg_catalog.int4, kind pg_catalog.text, halo pg_catalog.bool',
      ARRAY[pg_catalog.format(
              'CREATE TEMP TABLE simjoin_local_dbscan AS SELECT d.id, d.cluster, d.kind, '
              't.simjoin_halo AS halo FROM {simjoin}.simjoin_dbscan({table_literal}, '
              '%s::pg_catalog.float8, %s, column_name => %L, key => %L, metric => %L) d '
              'JOIN {table} t ON t.%I = d.id', pg_catalog.quote_literal(eps), min_points,
              column_name, key_column, metric, key_column),
            pg_catalog.format('CREATE TEMP VIEW simjoin_sparse AS SELECT t.* FROM {table} t '
                              'JOIN pg_temp.simjoin_local_dbscan d ON d.id = t.%I '
                              'WHERE d.kind <> ''core''', key_column)])
      AS r(what pg_catalog.text, part pg_catalog.int4, id pg_catalog.int8,
           other pg_catalog.int8, cluster pg_catalog.int4, kind pg_catalog.text,
           halo pg_catalog.bool);
  -- Statistics, so that the joins below hash rather than loop (a temporary table has none).
  ANALYZE pg_temp.simjoin_sharded_parts;
  CREATE TEMP TABLE simjoin_sharded_home AS
    SELECT p.id, p.kind, (p.part::pg_catalog.int8 << 32) | p.cluster AS node, p.part
      FROM pg_temp.simjoin_sharded_parts p WHERE p.what = 'row' AND NOT p.halo;
  ANALYZE pg_temp.simjoin_sharded_home;

  -- A server's cluster is the node part << 32 | cluster; a core row's node is its home's.
  CREATE TEMP TABLE simjoin_sharded_links AS
    SELECT (h.part::pg_catalog.int8 << 32) | h.cluster AS a, c.node AS b
      FROM pg_temp.simjoin_sharded_parts h
      JOIN pg_temp.simjoin_sharded_home c ON c.id = h.id
     WHERE h.what = 'row' AND h.halo
    UNION ALL
    SELECT x.node, y.node
      FROM pg_temp.simjoin_sharded_parts n
      JOIN pg_temp.simjoin_sharded_home x ON x.kind = 'core' AND x.id = n.id
      JOIN pg_temp.simjoin_sharded_home y ON y.kind = 'core' AND y.id = n.other
     WHERE n.what = 'near';
  CREATE TEMP TABLE simjoin_sharded_labels AS
    SELECT DISTINCT (p.part::pg_catalog.int8 << 32) | p.cluster AS node,
           (p.part::pg_catalog.int8 << 32) | p.cluster AS label
      FROM pg_temp.simjoin_sharded_parts p
     WHERE p.what = 'row' AND p.kind = 'core';
  CREATE UNIQUE INDEX ON pg_temp.simjoin_sharded_labels (node);
  ANALYZE pg_temp.simjoin_sharded_links;
  ANALYZE pg_temp.simjoin_sharded_labels;
  -- Each node takes the smallest label of its neighbours until none changes.
  LOOP
    UPDATE pg_temp.simjoin_sharded_labels l SET label = m.label
      FROM (SELECT e.node, pg_catalog.min(o.label) AS label
              FROM (SELECT a AS node, b AS other FROM pg_temp.simjoin_sharded_links
                    UNION ALL SELECT b, a FROM pg_temp.simjoin_sharded_links) e
              JOIN pg_temp.simjoin_sharded_labels o ON o.node = e.other
             GROUP BY e.node) m
     WHERE l.node = m.node AND m.label < l.label;
    EXIT WHEN NOT FOUND;
  END LOOP;

  RETURN QUERY
    WITH placed AS (
      SELECT h.id, 'core'::pg_catalog.text AS kind, l.label
        FROM pg_temp.simjoin_sharded_home h
        JOIN pg_temp.simjoin_sharded_labels l ON l.node = h.node
       WHERE h.kind = 'core'
      UNION ALL
      (SELECT DISTINCT ON (h.id) h.id, 'border', l.label
         FROM pg_temp.simjoin_sharded_home h
         JOIN pg_temp.simjoin_sharded_parts n
           ON n.what = 'near' AND n.part = h.part AND n.id = h.id
         JOIN pg_temp.simjoin_sharded_home c ON c.id = n.other AND c.kind = 'core'
         JOIN pg_temp.simjoin_sharded_labels l ON l.node = c.node
        WHERE h.kind <> 'core'
        ORDER BY h.id, c.id)),
    numbers AS (  -- each cluster's number: the rank of its smallest key
      SELECT f.label, (pg_catalog.row_number() OVER (ORDER BY f.first_id) - 1)::pg_catalog.int4
             AS cluster
        FROM (SELECT p.label, pg_catalog.min(p.id) AS first_id FROM placed p GROUP BY p.label) f)
    SELECT h.id, n.cluster, coalesce(p.kind, 'noise')
      FROM pg_temp.simjoin_sharded_home h
      LEFT JOIN placed p ON p.id = h.id
      LEFT JOIN numbers n ON n.label = p.label;
  DROP TABLE pg_temp.simjoin_sharded_parts, pg_temp.simjoin_sharded_home,
             pg_temp.simjoin_sharded_links, pg_temp.simjoin_sharded_labels;
END
$dbscan$;
COMMENT ON FUNCTION @extschema@.simjoin_sharded_dbscan(pg_catalog.regclass, pg_catalog.float8,
  pg_catalog.int4, pg_catalog.name, pg_catalog.name, pg_catalog.text)
IS 'simjoin_dbscan of a table laid out by simjoin_shard_table, run on every server at once and merged here';
