-- Every history table rebuilt with "valid_from" and "valid_to" as its first columns.
--
-- An as-of read filters every version of a type on these two instants. PostgreSQL reads a column
-- of a stored row by walking the columns before it, unless all of them have a fixed width: as the
-- last columns, after text of any length, each comparison decoded the whole version. As the first
-- two (fixed width, never NULL) they are read at a fixed offset. Measured on the bench's products
-- after 10,000 writes (15,000 versions): the as-of REST list's walk to a page 5.2 -> 3.0 ms, the
-- filter alone 3.7 -> 1.8 ms.
--
-- The same for each table: the view over it and its indexes as they were, the versions copied in
-- their order. The triggers that write the history name their columns, and need no change.
DO $$
DECLARE
  history record;
  view_sql text;
  index_sql text[];
  columns text;
BEGIN
  FOR history IN
    SELECT c.relname AS name, left(c.relname, -length('_history')) AS data_table
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname LIKE '%\_history'
    ORDER BY c.relname
  LOOP
    view_sql := pg_get_viewdef(format('mdg_past.%I', history.data_table)::regclass);
    SELECT array_agg(indexdef ORDER BY indexname) INTO index_sql
      FROM pg_indexes WHERE schemaname = 'public' AND tablename = history.name;
    SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) INTO columns
      FROM pg_attribute WHERE attrelid = format('public.%I', history.name)::regclass AND attnum > 0 AND NOT attisdropped;

    EXECUTE format('DROP VIEW mdg_past.%I', history.data_table);
    EXECUTE format('ALTER TABLE %I RENAME TO %I', history.name, history.name || '_rebuilt');
    EXECUTE format(
      'CREATE TABLE %I ("valid_from" TIMESTAMP(3) NOT NULL, "valid_to" TIMESTAMP(3) NOT NULL, LIKE %I) WITH (fillfactor = 80)',
      history.name, history.data_table);
    EXECUTE format('INSERT INTO %I (%s) SELECT %s FROM %I', history.name, columns, columns, history.name || '_rebuilt');
    EXECUTE format('DROP TABLE %I', history.name || '_rebuilt');
    IF index_sql IS NOT NULL THEN
      FOR i IN 1 .. cardinality(index_sql) LOOP
        EXECUTE index_sql[i];
      END LOOP;
    END IF;
    EXECUTE format('CREATE VIEW mdg_past.%I AS %s', history.data_table, view_sql);
  END LOOP;
END $$;
