-- REST and GraphQL filter products on is_active and modified_date together, and a REST page
-- counts them: one index answers (and on PostgreSQL counts) that from the index alone.

-- DropIndex
DROP INDEX "products_is_active_idx";

-- CreateIndex
CREATE INDEX "products_is_active_modified_date_idx" ON "products"("is_active", "modified_date");
