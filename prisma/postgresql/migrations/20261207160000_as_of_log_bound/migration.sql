-- The change log as of an instant ends before the first entry written after it. The view computed
-- that entry in every statement that read it, with a plan made without the instant (a stable
-- function's value is unknown to the planner): it walked the log by number from its start,
-- reading every entry before the instant. A REST page as of a day before reads the log's head
-- three times: on the bench's database with 118,540 entries before the instant, 80 ms each
-- (321 ms the page). Now the as-of read's first statement finds that entry once, planned with the
-- instant as a value (src/db/postgresql.ts), and sets it as `mdg.as_of_seq`; the view compares
-- with it, a range of the log's unique index on "seq".
CREATE FUNCTION as_of_log_bound() RETURNS bigint LANGUAGE sql STABLE
  AS $$ SELECT current_setting('mdg.as_of_seq')::bigint $$;
CREATE OR REPLACE VIEW "mdg_past"."changes" AS SELECT * FROM "changes" WHERE "seq" IS NOT NULL AND "seq" < (SELECT as_of_log_bound());
