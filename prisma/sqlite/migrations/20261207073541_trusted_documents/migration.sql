-- CreateTable
CREATE TABLE "trusted_documents" (
    "api_client_id" INTEGER NOT NULL,
    "id" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "uses" INTEGER NOT NULL DEFAULT 0,
    "last_used_date" DATETIME,
    "created_date" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("api_client_id", "id"),
    CONSTRAINT "trusted_documents_api_client_id_fkey" FOREIGN KEY ("api_client_id") REFERENCES "api_clients" ("id") ON DELETE CASCADE ON UPDATE CASCADE
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
    "role" TEXT NOT NULL DEFAULT 'admin',
    "documents" TEXT NOT NULL DEFAULT 'off'
);
INSERT INTO "new_api_clients" ("client_id", "created_date", "id", "name", "revoked", "role", "scopes", "secret_hash") SELECT "client_id", "created_date", "id", "name", "revoked", "role", "scopes", "secret_hash" FROM "api_clients";
DROP TABLE "api_clients";
ALTER TABLE "new_api_clients" RENAME TO "api_clients";
CREATE UNIQUE INDEX "api_clients_client_id_key" ON "api_clients"("client_id");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

