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
