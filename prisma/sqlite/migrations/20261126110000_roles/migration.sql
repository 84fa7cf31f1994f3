-- CreateTable
CREATE TABLE "roles" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "rules" TEXT NOT NULL,
    "created_date" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_date" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "role_changes" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "role" TEXT NOT NULL,
    "change" TEXT NOT NULL,
    "before" TEXT,
    "after" TEXT,
    "changed_by" TEXT NOT NULL,
    "changed_date" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_api_clients" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "client_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "scopes" TEXT NOT NULL,
    "revoked" BOOLEAN NOT NULL DEFAULT false,
    "created_date" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "role" TEXT NOT NULL DEFAULT 'admin'
);
INSERT INTO "new_api_clients" ("client_id", "created_date", "id", "name", "revoked", "scopes", "secret_hash") SELECT "client_id", "created_date", "id", "name", "revoked", "scopes", "secret_hash" FROM "api_clients";
DROP TABLE "api_clients";
ALTER TABLE "new_api_clients" RENAME TO "api_clients";
CREATE UNIQUE INDEX "api_clients_client_id_key" ON "api_clients"("client_id");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "role_changes_role_changed_date_idx" ON "role_changes"("role", "changed_date");

