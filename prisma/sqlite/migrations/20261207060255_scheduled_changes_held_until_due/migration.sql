-- A scheduled change request is claimed in the transaction that applies it (src/change-requests/scheduler.ts), not by a lease.
-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_change_requests" (
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
    CONSTRAINT "change_requests_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "api_clients" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_change_requests" ("author_id", "comment", "created_date", "effective_date", "failure", "id", "modified_date", "operations", "settled_date", "state", "types", "version") SELECT "author_id", "comment", "created_date", "effective_date", "failure", "id", "modified_date", "operations", "settled_date", "state", "types", "version" FROM "change_requests";
DROP TABLE "change_requests";
ALTER TABLE "new_change_requests" RENAME TO "change_requests";
CREATE INDEX "change_requests_state_effective_date_idx" ON "change_requests"("state", "effective_date");
CREATE INDEX "change_requests_author_id_idx" ON "change_requests"("author_id");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

