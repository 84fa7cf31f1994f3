-- The change log as of an instant ends before the first entry written after it. The view computed
-- that entry in every statement that read it, with a plan made without the instant (a stable
-- function's value is unknown to the planner): it walked the log by number from its start,
-- reading every entry before the instant. A REST page as of a day before reads the log's head
-- three times: on the bench's database with 118,540 entries before the instant, 80 ms each
-- (321 ms the page). Now the as-of read's first statement finds that entry once, planned with the
-- instant as a value (src/db/postgresql.ts), and sets it as `mdg.as_of_seq`; the view compares
-- with it, a range of the log's unique index on "seq". A read that does not set it (a process of
-- the version before, during a rolling deploy; a query of an operator's own) gets the entry as
-- the view found it before. The function reads the table "changes", not the view of the same name
-- that an as-of read's search_path puts first: its search_path is the migration's.
CREATE FUNCTION as_of_log_bound() RETURNS bigint LANGUAGE sql STABLE
  SET search_path FROM CURRENT
  AS $$ SELECT COALESCE(
    NULLIF(current_setting('mdg.as_of_seq', true), '')::bigint,
    (SELECT COALESCE(MIN("seq"), 9007199254740991) FROM "changes" WHERE "at" > as_of_instant())) $$;
CREATE OR REPLACE VIEW "mdg_past"."changes" AS SELECT * FROM "changes" WHERE "seq" IS NOT NULL AND "seq" < (SELECT as_of_log_bound());
