-- AlterTable
ALTER TABLE "changes" ADD COLUMN "change_request_id" INTEGER;

-- CreateTable
CREATE TABLE "change_requests" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "operations" TEXT NOT NULL,
    "types" TEXT NOT NULL,
    "comment" TEXT,
    "effective_date" DATETIME,
    "author_id" INTEGER NOT NULL,
    "state" TEXT NOT NULL,
    "failure" TEXT,
    "settled_date" DATETIME,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_date" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_date" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_owner" TEXT,
    "lease_until" DATETIME,
    CONSTRAINT "change_requests_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "api_clients" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "change_request_decisions" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "change_request_id" INTEGER NOT NULL,
    "api_client_id" INTEGER,
    "decided_by" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "comment" TEXT,
    "decided_date" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "change_request_decisions_change_request_id_fkey" FOREIGN KEY ("change_request_id") REFERENCES "change_requests" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "change_requests_state_effective_date_idx" ON "change_requests"("state", "effective_date");

-- CreateIndex
CREATE INDEX "change_requests_author_id_idx" ON "change_requests"("author_id");

-- CreateIndex
CREATE INDEX "change_request_decisions_change_request_id_idx" ON "change_request_decisions"("change_request_id");


-- The entries of a change request's writes, found by its id (its position in the log); a partial
-- index, which the writes of everyone else (change_request_id null) never touch. Not in the models:
-- Prisma cannot say "partial".
CREATE INDEX "changes_change_request_id_idx" ON "changes"("change_request_id") WHERE "change_request_id" IS NOT NULL;
