-- CreateTable
CREATE TABLE "idempotency_keys" (
    "api_client_id" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "status" INTEGER,
    "headers" TEXT,
    "body" BLOB,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("api_client_id", "key"),
    CONSTRAINT "idempotency_keys_api_client_id_fkey" FOREIGN KEY ("api_client_id") REFERENCES "api_clients" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Row versions (src/data/writes.ts): existing rows start at 1. Written by hand as ADD COLUMN:
-- `prisma migrate diff` rebuilds every table for a NOT NULL column, which SQLite does not need
-- when the column has a constant default (the result is the same table).

ALTER TABLE "customers" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "customer_types" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "languages" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "currencies" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "users" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "addresses" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "function_corporate_groups" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "customer_products" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "products" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "units" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "product_groups" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "product_group_types" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "brands" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "production_lines" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "product_structures" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "product_structure_items" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "product_structure_item_types" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "product_structure_item_calculation_methods" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "suppliers" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "supplier_types" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "supplier_evaluation_role_users" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;

-- CreateIndex
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");
