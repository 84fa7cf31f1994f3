-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "customers" (
    "id" SERIAL NOT NULL,
    "reference" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "alt_name" TEXT,
    "contact" TEXT,
    "email" TEXT,
    "phone" TEXT,
    "fax" TEXT,
    "is_prospect" BOOLEAN NOT NULL DEFAULT false,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "emergency_phone_nr" TEXT,
    "emergency_contact" TEXT,
    "credit_limit_used" DECIMAL(65,30),
    "expired_invoices_total" DECIMAL(65,30),
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "customer_type_id" INTEGER,
    "language_id" INTEGER,
    "currency_id" INTEGER,
    "account_manager_id" INTEGER,
    "customer_service_manager_id" INTEGER,
    "address_id" INTEGER,

    CONSTRAINT "customers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customer_commercial_resolve_responsible_users" (
    "customer_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,

    CONSTRAINT "customer_commercial_resolve_responsible_users_pkey" PRIMARY KEY ("customer_id","user_id")
);

-- CreateTable
CREATE TABLE "customer_inform_on_complaint_users" (
    "customer_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,

    CONSTRAINT "customer_inform_on_complaint_users_pkey" PRIMARY KEY ("customer_id","user_id")
);

-- CreateTable
CREATE TABLE "customer_inform_on_complaint_functions" (
    "customer_id" INTEGER NOT NULL,
    "function_corporate_group_id" INTEGER NOT NULL,

    CONSTRAINT "customer_inform_on_complaint_functions_pkey" PRIMARY KEY ("customer_id","function_corporate_group_id")
);

-- CreateTable
CREATE TABLE "customer_types" (
    "id" SERIAL NOT NULL,
    "reference" INTEGER NOT NULL,
    "import_reference" TEXT,
    "name_nl" TEXT,
    "name_fr" TEXT,
    "name_en" TEXT,
    "name_de" TEXT,
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "customer_types_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "languages" (
    "id" SERIAL NOT NULL,
    "description" TEXT,
    "alpha_2_code" TEXT,

    CONSTRAINT "languages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "currencies" (
    "id" SERIAL NOT NULL,
    "symbol" TEXT,
    "alpha_3_code" TEXT,
    "description_nl" TEXT,
    "description_fr" TEXT,
    "description_en" TEXT,
    "description_de" TEXT,

    CONSTRAINT "currencies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" SERIAL NOT NULL,
    "username" TEXT NOT NULL,
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "addresses" (
    "id" SERIAL NOT NULL,
    "line_1" TEXT,
    "line_2" TEXT,
    "postal_code" TEXT,
    "city" TEXT,
    "state" TEXT,
    "country_code" TEXT,
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "addresses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "function_corporate_groups" (
    "id" SERIAL NOT NULL,
    "reference" TEXT NOT NULL,
    "name" TEXT,
    "import_reference" TEXT,
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "function_corporate_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customer_products" (
    "id" SERIAL NOT NULL,
    "external_reference" TEXT,
    "external_product_name" TEXT,
    "customer_id" INTEGER NOT NULL,
    "product_id" INTEGER NOT NULL,

    CONSTRAINT "customer_products_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "products" (
    "id" SERIAL NOT NULL,
    "reference" TEXT NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "is_sales" BOOLEAN NOT NULL DEFAULT false,
    "name_nl" TEXT,
    "name_fr" TEXT,
    "name_en" TEXT,
    "name_de" TEXT,
    "legal_name_nl" TEXT,
    "legal_name_fr" TEXT,
    "legal_name_en" TEXT,
    "legal_name_de" TEXT,
    "gtin" TEXT,
    "intrastat_code" TEXT,
    "gross_weight_in_kilogram" DECIMAL(65,30),
    "net_weight_in_kilogram" DECIMAL(65,30),
    "drained_weight_in_kilogram" DECIMAL(65,30),
    "production_efficiency_per_hour" DECIMAL(65,30),
    "production_report_type_component" TEXT,
    "production_report_type_byprod" TEXT,
    "product_structure_quantity" DECIMAL(65,30),
    "is_lotcontrolled" BOOLEAN NOT NULL DEFAULT false,
    "nlc" DECIMAL(65,30),
    "shelf_life_value" DECIMAL(65,30),
    "shelf_life_interval" TEXT,
    "price_basic_unit_ex_vat" DECIMAL(65,30),
    "consumer_price" DECIMAL(65,30),
    "deposit_price" DECIMAL(65,30),
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "unit_id" INTEGER NOT NULL,
    "product_group_id" INTEGER,
    "brand_id" INTEGER,
    "production_line_id" INTEGER,
    "preferred_supplier_id" INTEGER,

    CONSTRAINT "products_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "units" (
    "id" SERIAL NOT NULL,
    "reference" TEXT NOT NULL,
    "description_nl" TEXT,
    "description_fr" TEXT,
    "description_en" TEXT,
    "description_de" TEXT,
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "units_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "product_groups" (
    "id" SERIAL NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "description_nl" TEXT,
    "description_fr" TEXT,
    "description_en" TEXT,
    "description_de" TEXT,
    "import_reference" TEXT,
    "inform_days_bbd" INTEGER,
    "allow_only_one_unit" BOOLEAN NOT NULL DEFAULT false,
    "remark" TEXT,
    "label_color" TEXT,
    "transport_packaging_settings_remove_stock_when_picked" BOOLEAN,
    "transport_packaging_settings_rounding" TEXT,
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "type_id" INTEGER,

    CONSTRAINT "product_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "product_group_types" (
    "id" SERIAL NOT NULL,
    "description_nl" TEXT,
    "description_fr" TEXT,
    "description_en" TEXT,
    "description_de" TEXT,

    CONSTRAINT "product_group_types_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "brands" (
    "id" SERIAL NOT NULL,
    "reference" TEXT NOT NULL,
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "brands_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "production_lines" (
    "id" SERIAL NOT NULL,
    "reference" TEXT NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "import_reference" TEXT,
    "name_nl" TEXT,
    "name_fr" TEXT,
    "name_en" TEXT,
    "name_de" TEXT,
    "barcode" TEXT,
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "production_lines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "product_structures" (
    "id" SERIAL NOT NULL,
    "quantity" DECIMAL(65,30) NOT NULL DEFAULT 1,
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "product_id" INTEGER NOT NULL,

    CONSTRAINT "product_structures_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "product_structure_items" (
    "id" SERIAL NOT NULL,
    "net_quantity" DECIMAL(65,30),
    "gross_quantity" DECIMAL(65,30),
    "loss_percentage" DECIMAL(65,30),
    "is_phantom" BOOLEAN NOT NULL DEFAULT false,
    "is_processing_agent" BOOLEAN NOT NULL DEFAULT false,
    "skip_grain_component_calculation" BOOLEAN NOT NULL DEFAULT false,
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "product_structure_id" INTEGER NOT NULL,
    "product_id" INTEGER NOT NULL,
    "unit_id" INTEGER,
    "type_id" INTEGER,
    "calculation_method_id" INTEGER,

    CONSTRAINT "product_structure_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "product_structure_item_types" (
    "id" SERIAL NOT NULL,
    "description_nl" TEXT,
    "description_fr" TEXT,
    "description_en" TEXT,
    "description_de" TEXT,

    CONSTRAINT "product_structure_item_types_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "product_structure_item_calculation_methods" (
    "id" SERIAL NOT NULL,
    "description_nl" TEXT,
    "description_fr" TEXT,
    "description_en" TEXT,
    "description_de" TEXT,

    CONSTRAINT "product_structure_item_calculation_methods_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "suppliers" (
    "id" SERIAL NOT NULL,
    "reference" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "is_receival_vat_exclusive" BOOLEAN NOT NULL DEFAULT false,
    "currency_text" TEXT,
    "gln" TEXT,
    "is_emergency_number_mandatory" BOOLEAN NOT NULL DEFAULT false,
    "emergency_number" TEXT,
    "emergency_contact" TEXT,
    "email" TEXT,
    "phone" TEXT,
    "fax" TEXT,
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "currency_id" INTEGER,
    "buyer_id" INTEGER,
    "key_user_id" INTEGER,
    "address_id" INTEGER,

    CONSTRAINT "suppliers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "supplier_types" (
    "id" SERIAL NOT NULL,
    "description_nl" TEXT,
    "description_fr" TEXT,
    "description_en" TEXT,
    "description_de" TEXT,
    "is_emergency_number_required" BOOLEAN NOT NULL DEFAULT false,
    "request_certificates" BOOLEAN NOT NULL DEFAULT false,
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "supplier_types_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "supplier_supplier_types" (
    "supplier_id" INTEGER NOT NULL,
    "supplier_type_id" INTEGER NOT NULL,

    CONSTRAINT "supplier_supplier_types_pkey" PRIMARY KEY ("supplier_id","supplier_type_id")
);

-- CreateTable
CREATE TABLE "supplier_evaluation_role_users" (
    "id" SERIAL NOT NULL,
    "created_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_date" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "supplier_evaluation_role_users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "supplier_evaluation_role_user_links" (
    "supplier_id" INTEGER NOT NULL,
    "supplier_evaluation_role_user_id" INTEGER NOT NULL,

    CONSTRAINT "supplier_evaluation_role_user_links_pkey" PRIMARY KEY ("supplier_id","supplier_evaluation_role_user_id")
);

-- CreateTable
CREATE TABLE "supplier_commercial_resolve_responsible_users" (
    "supplier_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,

    CONSTRAINT "supplier_commercial_resolve_responsible_users_pkey" PRIMARY KEY ("supplier_id","user_id")
);

-- CreateTable
CREATE TABLE "supplier_inform_on_complaint_users" (
    "supplier_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,

    CONSTRAINT "supplier_inform_on_complaint_users_pkey" PRIMARY KEY ("supplier_id","user_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "customers_reference_key" ON "customers"("reference");

-- CreateIndex
CREATE INDEX "customers_customer_type_id_idx" ON "customers"("customer_type_id");

-- CreateIndex
CREATE INDEX "customers_language_id_idx" ON "customers"("language_id");

-- CreateIndex
CREATE INDEX "customers_currency_id_idx" ON "customers"("currency_id");

-- CreateIndex
CREATE INDEX "customers_account_manager_id_idx" ON "customers"("account_manager_id");

-- CreateIndex
CREATE INDEX "customers_customer_service_manager_id_idx" ON "customers"("customer_service_manager_id");

-- CreateIndex
CREATE INDEX "customers_address_id_idx" ON "customers"("address_id");

-- CreateIndex
CREATE INDEX "customers_is_active_idx" ON "customers"("is_active");

-- CreateIndex
CREATE INDEX "customers_modified_date_idx" ON "customers"("modified_date");

-- CreateIndex
CREATE INDEX "customer_commercial_resolve_responsible_users_user_id_idx" ON "customer_commercial_resolve_responsible_users"("user_id");

-- CreateIndex
CREATE INDEX "customer_inform_on_complaint_users_user_id_idx" ON "customer_inform_on_complaint_users"("user_id");

-- CreateIndex
CREATE INDEX "customer_inform_on_complaint_functions_function_corporate_g_idx" ON "customer_inform_on_complaint_functions"("function_corporate_group_id");

-- CreateIndex
CREATE UNIQUE INDEX "customer_types_reference_key" ON "customer_types"("reference");

-- CreateIndex
CREATE INDEX "customer_types_modified_date_idx" ON "customer_types"("modified_date");

-- CreateIndex
CREATE UNIQUE INDEX "languages_alpha_2_code_key" ON "languages"("alpha_2_code");

-- CreateIndex
CREATE UNIQUE INDEX "currencies_alpha_3_code_key" ON "currencies"("alpha_3_code");

-- CreateIndex
CREATE UNIQUE INDEX "users_username_key" ON "users"("username");

-- CreateIndex
CREATE INDEX "users_modified_date_idx" ON "users"("modified_date");

-- CreateIndex
CREATE INDEX "addresses_modified_date_idx" ON "addresses"("modified_date");

-- CreateIndex
CREATE UNIQUE INDEX "function_corporate_groups_reference_key" ON "function_corporate_groups"("reference");

-- CreateIndex
CREATE INDEX "function_corporate_groups_modified_date_idx" ON "function_corporate_groups"("modified_date");

-- CreateIndex
CREATE INDEX "customer_products_customer_id_idx" ON "customer_products"("customer_id");

-- CreateIndex
CREATE INDEX "customer_products_product_id_idx" ON "customer_products"("product_id");

-- CreateIndex
CREATE UNIQUE INDEX "products_reference_key" ON "products"("reference");

-- CreateIndex
CREATE UNIQUE INDEX "products_gtin_key" ON "products"("gtin");

-- CreateIndex
CREATE INDEX "products_unit_id_idx" ON "products"("unit_id");

-- CreateIndex
CREATE INDEX "products_product_group_id_idx" ON "products"("product_group_id");

-- CreateIndex
CREATE INDEX "products_brand_id_idx" ON "products"("brand_id");

-- CreateIndex
CREATE INDEX "products_production_line_id_idx" ON "products"("production_line_id");

-- CreateIndex
CREATE INDEX "products_preferred_supplier_id_idx" ON "products"("preferred_supplier_id");

-- CreateIndex
CREATE INDEX "products_is_active_idx" ON "products"("is_active");

-- CreateIndex
CREATE INDEX "products_is_sales_idx" ON "products"("is_sales");

-- CreateIndex
CREATE INDEX "products_modified_date_idx" ON "products"("modified_date");

-- CreateIndex
CREATE UNIQUE INDEX "units_reference_key" ON "units"("reference");

-- CreateIndex
CREATE INDEX "units_modified_date_idx" ON "units"("modified_date");

-- CreateIndex
CREATE INDEX "product_groups_type_id_idx" ON "product_groups"("type_id");

-- CreateIndex
CREATE INDEX "product_groups_is_active_idx" ON "product_groups"("is_active");

-- CreateIndex
CREATE INDEX "product_groups_modified_date_idx" ON "product_groups"("modified_date");

-- CreateIndex
CREATE UNIQUE INDEX "brands_reference_key" ON "brands"("reference");

-- CreateIndex
CREATE INDEX "brands_modified_date_idx" ON "brands"("modified_date");

-- CreateIndex
CREATE UNIQUE INDEX "production_lines_reference_key" ON "production_lines"("reference");

-- CreateIndex
CREATE INDEX "production_lines_is_active_idx" ON "production_lines"("is_active");

-- CreateIndex
CREATE INDEX "production_lines_modified_date_idx" ON "production_lines"("modified_date");

-- CreateIndex
CREATE UNIQUE INDEX "product_structures_product_id_key" ON "product_structures"("product_id");

-- CreateIndex
CREATE INDEX "product_structures_modified_date_idx" ON "product_structures"("modified_date");

-- CreateIndex
CREATE INDEX "product_structure_items_product_structure_id_idx" ON "product_structure_items"("product_structure_id");

-- CreateIndex
CREATE INDEX "product_structure_items_product_id_idx" ON "product_structure_items"("product_id");

-- CreateIndex
CREATE INDEX "product_structure_items_unit_id_idx" ON "product_structure_items"("unit_id");

-- CreateIndex
CREATE INDEX "product_structure_items_type_id_idx" ON "product_structure_items"("type_id");

-- CreateIndex
CREATE INDEX "product_structure_items_calculation_method_id_idx" ON "product_structure_items"("calculation_method_id");

-- CreateIndex
CREATE INDEX "product_structure_items_modified_date_idx" ON "product_structure_items"("modified_date");

-- CreateIndex
CREATE UNIQUE INDEX "suppliers_reference_key" ON "suppliers"("reference");

-- CreateIndex
CREATE INDEX "suppliers_currency_id_idx" ON "suppliers"("currency_id");

-- CreateIndex
CREATE INDEX "suppliers_buyer_id_idx" ON "suppliers"("buyer_id");

-- CreateIndex
CREATE INDEX "suppliers_key_user_id_idx" ON "suppliers"("key_user_id");

-- CreateIndex
CREATE INDEX "suppliers_address_id_idx" ON "suppliers"("address_id");

-- CreateIndex
CREATE INDEX "suppliers_is_active_idx" ON "suppliers"("is_active");

-- CreateIndex
CREATE INDEX "suppliers_modified_date_idx" ON "suppliers"("modified_date");

-- CreateIndex
CREATE INDEX "supplier_types_modified_date_idx" ON "supplier_types"("modified_date");

-- CreateIndex
CREATE INDEX "supplier_supplier_types_supplier_type_id_idx" ON "supplier_supplier_types"("supplier_type_id");

-- CreateIndex
CREATE INDEX "supplier_evaluation_role_users_modified_date_idx" ON "supplier_evaluation_role_users"("modified_date");

-- CreateIndex
CREATE INDEX "supplier_evaluation_role_user_links_supplier_evaluation_rol_idx" ON "supplier_evaluation_role_user_links"("supplier_evaluation_role_user_id");

-- CreateIndex
CREATE INDEX "supplier_commercial_resolve_responsible_users_user_id_idx" ON "supplier_commercial_resolve_responsible_users"("user_id");

-- CreateIndex
CREATE INDEX "supplier_inform_on_complaint_users_user_id_idx" ON "supplier_inform_on_complaint_users"("user_id");

-- AddForeignKey
ALTER TABLE "customers" ADD CONSTRAINT "customers_customer_type_id_fkey" FOREIGN KEY ("customer_type_id") REFERENCES "customer_types"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customers" ADD CONSTRAINT "customers_language_id_fkey" FOREIGN KEY ("language_id") REFERENCES "languages"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customers" ADD CONSTRAINT "customers_currency_id_fkey" FOREIGN KEY ("currency_id") REFERENCES "currencies"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customers" ADD CONSTRAINT "customers_account_manager_id_fkey" FOREIGN KEY ("account_manager_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customers" ADD CONSTRAINT "customers_customer_service_manager_id_fkey" FOREIGN KEY ("customer_service_manager_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customers" ADD CONSTRAINT "customers_address_id_fkey" FOREIGN KEY ("address_id") REFERENCES "addresses"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_commercial_resolve_responsible_users" ADD CONSTRAINT "customer_commercial_resolve_responsible_users_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_commercial_resolve_responsible_users" ADD CONSTRAINT "customer_commercial_resolve_responsible_users_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_inform_on_complaint_users" ADD CONSTRAINT "customer_inform_on_complaint_users_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_inform_on_complaint_users" ADD CONSTRAINT "customer_inform_on_complaint_users_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_inform_on_complaint_functions" ADD CONSTRAINT "customer_inform_on_complaint_functions_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_inform_on_complaint_functions" ADD CONSTRAINT "customer_inform_on_complaint_functions_function_corporate__fkey" FOREIGN KEY ("function_corporate_group_id") REFERENCES "function_corporate_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_products" ADD CONSTRAINT "customer_products_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_products" ADD CONSTRAINT "customer_products_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "products" ADD CONSTRAINT "products_unit_id_fkey" FOREIGN KEY ("unit_id") REFERENCES "units"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "products" ADD CONSTRAINT "products_product_group_id_fkey" FOREIGN KEY ("product_group_id") REFERENCES "product_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "products" ADD CONSTRAINT "products_brand_id_fkey" FOREIGN KEY ("brand_id") REFERENCES "brands"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "products" ADD CONSTRAINT "products_production_line_id_fkey" FOREIGN KEY ("production_line_id") REFERENCES "production_lines"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "products" ADD CONSTRAINT "products_preferred_supplier_id_fkey" FOREIGN KEY ("preferred_supplier_id") REFERENCES "suppliers"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "product_groups" ADD CONSTRAINT "product_groups_type_id_fkey" FOREIGN KEY ("type_id") REFERENCES "product_group_types"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "product_structures" ADD CONSTRAINT "product_structures_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "product_structure_items" ADD CONSTRAINT "product_structure_items_product_structure_id_fkey" FOREIGN KEY ("product_structure_id") REFERENCES "product_structures"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "product_structure_items" ADD CONSTRAINT "product_structure_items_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "product_structure_items" ADD CONSTRAINT "product_structure_items_unit_id_fkey" FOREIGN KEY ("unit_id") REFERENCES "units"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "product_structure_items" ADD CONSTRAINT "product_structure_items_type_id_fkey" FOREIGN KEY ("type_id") REFERENCES "product_structure_item_types"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "product_structure_items" ADD CONSTRAINT "product_structure_items_calculation_method_id_fkey" FOREIGN KEY ("calculation_method_id") REFERENCES "product_structure_item_calculation_methods"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "suppliers" ADD CONSTRAINT "suppliers_currency_id_fkey" FOREIGN KEY ("currency_id") REFERENCES "currencies"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "suppliers" ADD CONSTRAINT "suppliers_buyer_id_fkey" FOREIGN KEY ("buyer_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "suppliers" ADD CONSTRAINT "suppliers_key_user_id_fkey" FOREIGN KEY ("key_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "suppliers" ADD CONSTRAINT "suppliers_address_id_fkey" FOREIGN KEY ("address_id") REFERENCES "addresses"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "supplier_supplier_types" ADD CONSTRAINT "supplier_supplier_types_supplier_id_fkey" FOREIGN KEY ("supplier_id") REFERENCES "suppliers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "supplier_supplier_types" ADD CONSTRAINT "supplier_supplier_types_supplier_type_id_fkey" FOREIGN KEY ("supplier_type_id") REFERENCES "supplier_types"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "supplier_evaluation_role_user_links" ADD CONSTRAINT "supplier_evaluation_role_user_links_supplier_id_fkey" FOREIGN KEY ("supplier_id") REFERENCES "suppliers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "supplier_evaluation_role_user_links" ADD CONSTRAINT "supplier_evaluation_role_user_links_supplier_evaluation_ro_fkey" FOREIGN KEY ("supplier_evaluation_role_user_id") REFERENCES "supplier_evaluation_role_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "supplier_commercial_resolve_responsible_users" ADD CONSTRAINT "supplier_commercial_resolve_responsible_users_supplier_id_fkey" FOREIGN KEY ("supplier_id") REFERENCES "suppliers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "supplier_commercial_resolve_responsible_users" ADD CONSTRAINT "supplier_commercial_resolve_responsible_users_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "supplier_inform_on_complaint_users" ADD CONSTRAINT "supplier_inform_on_complaint_users_supplier_id_fkey" FOREIGN KEY ("supplier_id") REFERENCES "suppliers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "supplier_inform_on_complaint_users" ADD CONSTRAINT "supplier_inform_on_complaint_users_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

