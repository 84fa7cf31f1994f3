-- CreateTable
CREATE TABLE "webhooks" (
    "id" SERIAL NOT NULL,
    "api_client_id" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "types" TEXT NOT NULL,
    "ops" TEXT NOT NULL,
    "where_filter" TEXT,
    "description" TEXT,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "status" TEXT NOT NULL DEFAULT 'healthy',
    "secret" TEXT NOT NULL,
    "previous_secret" TEXT,
    "previous_secret_until" TIMESTAMP(3),
    "cursor" INTEGER NOT NULL,
    "generation" INTEGER NOT NULL DEFAULT 0,
    "failing_since" TIMESTAMP(3),
    "last_success_date" TIMESTAMP(3),
    "lease_owner" TEXT,
    "lease_until" TIMESTAMP(3),
    "created_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" SERIAL NOT NULL,
    "webhook_id" INTEGER NOT NULL,
    "seq" INTEGER NOT NULL,
    "event_type" TEXT NOT NULL,
    "resource_type" TEXT NOT NULL,
    "resource_id" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL,
    "next_attempt_date" TIMESTAMP(3),
    "created_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_attempts" (
    "id" SERIAL NOT NULL,
    "webhook_id" INTEGER NOT NULL,
    "seq" INTEGER NOT NULL,
    "attempted_date" TIMESTAMP(3) NOT NULL,
    "status_code" INTEGER,
    "error" TEXT,
    "latency_ms" INTEGER NOT NULL,
    "response" TEXT,

    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhooks_api_client_id_idx" ON "webhooks"("api_client_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_webhook_id_status_idx" ON "webhook_deliveries"("webhook_id", "status");

-- CreateIndex
CREATE INDEX "webhook_deliveries_modified_date_idx" ON "webhook_deliveries"("modified_date");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_webhook_id_seq_key" ON "webhook_deliveries"("webhook_id", "seq");

-- CreateIndex
CREATE INDEX "webhook_attempts_webhook_id_seq_idx" ON "webhook_attempts"("webhook_id", "seq");

-- CreateIndex
CREATE INDEX "webhook_attempts_attempted_date_idx" ON "webhook_attempts"("attempted_date");

-- AddForeignKey
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_api_client_id_fkey" FOREIGN KEY ("api_client_id") REFERENCES "api_clients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

