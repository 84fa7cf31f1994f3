-- AlterTable
ALTER TABLE "api_clients" ADD COLUMN     "documents" TEXT NOT NULL DEFAULT 'off';

-- CreateTable
CREATE TABLE "trusted_documents" (
    "api_client_id" INTEGER NOT NULL,
    "id" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "uses" INTEGER NOT NULL DEFAULT 0,
    "last_used_date" TIMESTAMP(3),
    "created_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "trusted_documents_pkey" PRIMARY KEY ("api_client_id","id")
);

-- AddForeignKey
ALTER TABLE "trusted_documents" ADD CONSTRAINT "trusted_documents_api_client_id_fkey" FOREIGN KEY ("api_client_id") REFERENCES "api_clients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

