-- The numbering's notification says where the primary's WAL stood after the entries it numbered
-- had committed, and which API clients made them: `<lsn>;<api_clients ids, comma separated>`, or
-- `<lsn>;*` when more than 100 clients did. A process of the service with a read replica sends
-- those clients' reads to the replica only once it has replayed that far (read-your-writes across
-- processes, src/db/read-replica.ts). Otherwise as before: the lock, the numbers and the
-- notification in one statement, in a transaction of its own.
CREATE OR REPLACE FUNCTION "changes_number"(batch integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  numbered integer;
  clients text;
BEGIN
  PERFORM pg_advisory_xact_lock(4201003);
  WITH "numbered_entries" AS (
    UPDATE "changes" c SET "seq" = n."seq"
      FROM (SELECT p."id", nextval('"changes_seq_seq"') AS "seq"
            FROM (SELECT "id" FROM "changes" WHERE "seq" IS NULL ORDER BY "id" LIMIT batch) p) n
      WHERE c."id" = n."id"
      RETURNING c."actor"
  ), "actors" AS (SELECT DISTINCT "actor" FROM "numbered_entries")
  SELECT (SELECT count(*) FROM "numbered_entries"),
         CASE WHEN (SELECT count(*) FROM "actors") > 100 THEN '*'
              ELSE (SELECT string_agg(a."id"::text, ',') FROM "actors" x JOIN "api_clients" a ON a."client_id" = x."actor")
         END
    INTO numbered, clients;
  IF numbered > 0 THEN
    PERFORM pg_notify('mdg_changes', pg_current_wal_insert_lsn()::text || ';' || coalesce(clients, ''));
  END IF;
  RETURN numbered;
END
$$;
