-- CreateTable
CREATE TABLE "changes" (
    "seq" SERIAL NOT NULL,
    "resource_type" TEXT NOT NULL,
    "resource_id" INTEGER NOT NULL,
    "op" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "changed" TEXT NOT NULL,
    "before" TEXT,
    "after" TEXT,
    "actor" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "changes_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "change_log_horizon" (
    "id" INTEGER NOT NULL,
    "horizon" INTEGER NOT NULL,

    CONSTRAINT "change_log_horizon_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "changes_resource_type_resource_id_seq_idx" ON "changes"("resource_type", "resource_id", "seq");

-- CreateIndex
CREATE INDEX "changes_at_idx" ON "changes"("at");

