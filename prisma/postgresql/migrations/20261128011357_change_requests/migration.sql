-- AlterTable
ALTER TABLE "changes" ADD COLUMN     "change_request_id" INTEGER;

-- CreateTable
CREATE TABLE "change_requests" (
    "id" SERIAL NOT NULL,
    "operations" TEXT NOT NULL,
    "types" TEXT NOT NULL,
    "comment" TEXT,
    "effective_date" TIMESTAMP(3),
    "author_id" INTEGER NOT NULL,
    "state" TEXT NOT NULL,
    "failure" TEXT,
    "settled_date" TIMESTAMP(3),
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_owner" TEXT,
    "lease_until" TIMESTAMP(3),

    CONSTRAINT "change_requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "change_request_decisions" (
    "id" SERIAL NOT NULL,
    "change_request_id" INTEGER NOT NULL,
    "api_client_id" INTEGER,
    "decided_by" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "comment" TEXT,
    "decided_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "change_request_decisions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "change_requests_state_effective_date_idx" ON "change_requests"("state", "effective_date");

-- CreateIndex
CREATE INDEX "change_requests_author_id_idx" ON "change_requests"("author_id");

-- CreateIndex
CREATE INDEX "change_request_decisions_change_request_id_idx" ON "change_request_decisions"("change_request_id");

-- AddForeignKey
ALTER TABLE "change_requests" ADD CONSTRAINT "change_requests_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "api_clients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "change_request_decisions" ADD CONSTRAINT "change_request_decisions_change_request_id_fkey" FOREIGN KEY ("change_request_id") REFERENCES "change_requests"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- The entries of a change request's writes, found by its id (its position in the log); a partial
-- index, which the writes of everyone else (change_request_id null) never touch. Not in the models:
-- Prisma cannot say "partial".
CREATE INDEX "changes_change_request_id_idx" ON "changes"("change_request_id") WHERE "change_request_id" IS NOT NULL;

-- The change log as of an instant (src/db/history.ts pastChangesView), with the new column: the
-- view's `*` was expanded when it was made.
CREATE OR REPLACE VIEW "mdg_past"."changes" AS SELECT * FROM "changes" WHERE "seq" IS NOT NULL AND "seq" < COALESCE((SELECT MIN("seq") FROM "changes" WHERE "at" > as_of_instant()), 9007199254740991);
