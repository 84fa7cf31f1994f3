-- CreateTable
CREATE TABLE "changes" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "seq" INTEGER,
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
CREATE UNIQUE INDEX "changes_seq_key" ON "changes"("seq");

-- CreateIndex
CREATE INDEX "changes_resource_type_resource_id_seq_idx" ON "changes"("resource_type", "resource_id", "seq");

-- CreateIndex
CREATE INDEX "changes_at_idx" ON "changes"("at");


-- Commit-order numbering (written by hand; src/data/change-log.ts): SQLite has one writer at a
-- time, so an entry's id, given as it is inserted, is already in commit order.
CREATE TRIGGER "changes_number" AFTER INSERT ON "changes" BEGIN
  UPDATE "changes" SET "seq" = NEW."id" WHERE "id" = NEW."id";
END;
