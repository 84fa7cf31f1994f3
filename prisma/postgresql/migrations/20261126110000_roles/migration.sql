-- AlterTable
ALTER TABLE "api_clients" ADD COLUMN     "role" TEXT NOT NULL DEFAULT 'admin';

-- CreateTable
CREATE TABLE "roles" (
    "name" TEXT NOT NULL,
    "rules" TEXT NOT NULL,
    "created_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_date" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "roles_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "role_changes" (
    "id" SERIAL NOT NULL,
    "role" TEXT NOT NULL,
    "change" TEXT NOT NULL,
    "before" TEXT,
    "after" TEXT,
    "changed_by" TEXT NOT NULL,
    "changed_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "role_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "role_changes_role_changed_date_idx" ON "role_changes"("role", "changed_date");

