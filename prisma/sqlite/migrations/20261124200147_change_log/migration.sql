-- CreateTable
CREATE TABLE "changes" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "resource_type" TEXT NOT NULL,
    "resource_id" INTEGER NOT NULL,
    "op" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "changed" TEXT NOT NULL,
    "before" TEXT,
    "after" TEXT,
    "actor" TEXT NOT NULL,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "change_log_horizon" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "horizon" INTEGER NOT NULL
);

-- CreateIndex
CREATE INDEX "changes_resource_type_resource_id_seq_idx" ON "changes"("resource_type", "resource_id", "seq");

-- CreateIndex
CREATE INDEX "changes_at_idx" ON "changes"("at");

