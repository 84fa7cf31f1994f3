-- CreateTable
CREATE TABLE "changes" (
    "id" SERIAL NOT NULL,
    "seq" INTEGER,
    "resource_type" TEXT NOT NULL,
    "resource_id" INTEGER NOT NULL,
    "op" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "changed" TEXT NOT NULL,
    "before" TEXT,
    "after" TEXT,
    "actor" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "changes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "change_log_horizon" (
    "id" INTEGER NOT NULL,
    "horizon" INTEGER NOT NULL,

    CONSTRAINT "change_log_horizon_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "changes_seq_key" ON "changes"("seq");

-- CreateIndex
CREATE INDEX "changes_resource_type_resource_id_seq_idx" ON "changes"("resource_type", "resource_id", "seq");

-- CreateIndex
CREATE INDEX "changes_at_idx" ON "changes"("at");


-- Commit-order numbering (written by hand; src/data/change-log.ts): an entry is written with no
-- seq; once its transaction has committed, one numbering transaction at a time (an advisory
-- lock) gives every committed entry without one the next numbers. A reader follows only numbered
-- entries, so it never later finds a new one below a number it has seen.
CREATE SEQUENCE "changes_seq_seq" AS INTEGER OWNED BY "changes"."seq";

-- The entries waiting for their number.
CREATE INDEX "changes_unnumbered_idx" ON "changes"("id") WHERE "seq" IS NULL;

-- One numbering: up to `batch` committed entries without a number, oldest first, under the lock;
-- the listeners of every replica are notified once when it numbered any. One statement, run on
-- its own (its transaction ends with it): each statement of a function reads afresh, so the
-- entries are read after the lock is held, and none that another numbering has just numbered is
-- numbered again.
CREATE FUNCTION "changes_number"(batch integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  numbered integer;
BEGIN
  PERFORM pg_advisory_xact_lock(4201003);
  UPDATE "changes" c SET "seq" = n."seq"
    FROM (SELECT p."id", nextval('"changes_seq_seq"') AS "seq"
          FROM (SELECT "id" FROM "changes" WHERE "seq" IS NULL ORDER BY "id" LIMIT batch) p) n
    WHERE c."id" = n."id";
  GET DIAGNOSTICS numbered = ROW_COUNT;
  IF numbered > 0 THEN
    PERFORM pg_notify('mdg_changes', '');
  END IF;
  RETURN numbered;
END
$$;
