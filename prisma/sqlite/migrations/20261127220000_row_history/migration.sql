
-- History of every row (prisma/history-migration.ts wrote what follows; src/db/history.ts says why).
-- The oldest instant an as-of read answers exactly: the history begins here, and the change log's
-- purge moves it later (src/db/past.ts).
CREATE TABLE "history_horizon" ("id" INTEGER NOT NULL PRIMARY KEY, "oldest" DATETIME NOT NULL);
INSERT INTO "history_horizon" ("id", "oldest") VALUES (1, write_instant());

-- addresses
CREATE TABLE "addresses_history" ("id" INTEGER, "line_1" TEXT, "line_2" TEXT, "postal_code" TEXT, "city" TEXT, "state" TEXT, "country_code" TEXT, "modified_date" DATETIME, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "addresses_history_0" ON "addresses_history" ("id", "valid_from");
INSERT INTO "addresses_history" ("id", "line_1", "line_2", "postal_code", "city", "state", "country_code", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "line_1", "line_2", "postal_code", "city", "state", "country_code", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "addresses";
CREATE TRIGGER "addresses_history_insert" AFTER INSERT ON "addresses" BEGIN
  INSERT INTO "addresses_history" ("id", "line_1", "line_2", "postal_code", "city", "state", "country_code", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."line_1", NEW."line_2", NEW."postal_code", NEW."city", NEW."state", NEW."country_code", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "addresses_history_update" AFTER UPDATE ON "addresses" BEGIN
  UPDATE "addresses_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "addresses_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "addresses_history" ("id", "line_1", "line_2", "postal_code", "city", "state", "country_code", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."line_1", NEW."line_2", NEW."postal_code", NEW."city", NEW."state", NEW."country_code", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "addresses_history_delete" AFTER DELETE ON "addresses" BEGIN
  UPDATE "addresses_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "addresses_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- currencies
CREATE TABLE "currencies_history" ("id" INTEGER, "symbol" TEXT, "alpha_3_code" TEXT, "description_nl" TEXT, "description_fr" TEXT, "description_en" TEXT, "description_de" TEXT, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "currencies_history_0" ON "currencies_history" ("id", "valid_from");
INSERT INTO "currencies_history" ("id", "symbol", "alpha_3_code", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") SELECT "id", "symbol", "alpha_3_code", "description_nl", "description_fr", "description_en", "description_de", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "currencies";
CREATE TRIGGER "currencies_history_insert" AFTER INSERT ON "currencies" BEGIN
  INSERT INTO "currencies_history" ("id", "symbol", "alpha_3_code", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."symbol", NEW."alpha_3_code", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "currencies_history_update" AFTER UPDATE ON "currencies" BEGIN
  UPDATE "currencies_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "currencies_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "currencies_history" ("id", "symbol", "alpha_3_code", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."symbol", NEW."alpha_3_code", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "currencies_history_delete" AFTER DELETE ON "currencies" BEGIN
  UPDATE "currencies_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "currencies_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- customer_products
CREATE TABLE "customer_products_history" ("id" INTEGER, "external_reference" TEXT, "external_product_name" TEXT, "customer_id" INTEGER, "product_id" INTEGER, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "customer_products_history_0" ON "customer_products_history" ("id", "valid_from");
CREATE INDEX "customer_products_history_1" ON "customer_products_history" ("product_id");
CREATE INDEX "customer_products_history_2" ON "customer_products_history" ("customer_id");
INSERT INTO "customer_products_history" ("id", "external_reference", "external_product_name", "customer_id", "product_id", "version", "valid_from", "valid_to") SELECT "id", "external_reference", "external_product_name", "customer_id", "product_id", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "customer_products";
CREATE TRIGGER "customer_products_history_insert" AFTER INSERT ON "customer_products" BEGIN
  INSERT INTO "customer_products_history" ("id", "external_reference", "external_product_name", "customer_id", "product_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."external_reference", NEW."external_product_name", NEW."customer_id", NEW."product_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "customer_products_history_update" AFTER UPDATE ON "customer_products" BEGIN
  UPDATE "customer_products_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_products_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "customer_products_history" ("id", "external_reference", "external_product_name", "customer_id", "product_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."external_reference", NEW."external_product_name", NEW."customer_id", NEW."product_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "customer_products_history_delete" AFTER DELETE ON "customer_products" BEGIN
  UPDATE "customer_products_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_products_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- customer_types
CREATE TABLE "customer_types_history" ("id" INTEGER, "reference" INTEGER, "import_reference" TEXT, "name_nl" TEXT, "name_fr" TEXT, "name_en" TEXT, "name_de" TEXT, "modified_date" DATETIME, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "customer_types_history_0" ON "customer_types_history" ("id", "valid_from");
INSERT INTO "customer_types_history" ("id", "reference", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "reference", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "customer_types";
CREATE TRIGGER "customer_types_history_insert" AFTER INSERT ON "customer_types" BEGIN
  INSERT INTO "customer_types_history" ("id", "reference", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."import_reference", NEW."name_nl", NEW."name_fr", NEW."name_en", NEW."name_de", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "customer_types_history_update" AFTER UPDATE ON "customer_types" BEGIN
  UPDATE "customer_types_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_types_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "customer_types_history" ("id", "reference", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."import_reference", NEW."name_nl", NEW."name_fr", NEW."name_en", NEW."name_de", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "customer_types_history_delete" AFTER DELETE ON "customer_types" BEGIN
  UPDATE "customer_types_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_types_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- customers
CREATE TABLE "customers_history" ("id" INTEGER, "reference" TEXT, "name" TEXT, "alt_name" TEXT, "contact" TEXT, "email" TEXT, "phone" TEXT, "fax" TEXT, "is_prospect" BOOLEAN, "is_active" BOOLEAN, "emergency_phone_nr" TEXT, "emergency_contact" TEXT, "credit_limit_used" DECIMAL, "expired_invoices_total" DECIMAL, "modified_date" DATETIME, "customer_type_id" INTEGER, "language_id" INTEGER, "currency_id" INTEGER, "account_manager_id" INTEGER, "customer_service_manager_id" INTEGER, "address_id" INTEGER, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "customers_history_0" ON "customers_history" ("id", "valid_from");
CREATE INDEX "customers_history_1" ON "customers_history" ("address_id");
CREATE INDEX "customers_history_2" ON "customers_history" ("customer_service_manager_id");
CREATE INDEX "customers_history_3" ON "customers_history" ("account_manager_id");
CREATE INDEX "customers_history_4" ON "customers_history" ("currency_id");
CREATE INDEX "customers_history_5" ON "customers_history" ("language_id");
CREATE INDEX "customers_history_6" ON "customers_history" ("customer_type_id");
INSERT INTO "customers_history" ("id", "reference", "name", "alt_name", "contact", "email", "phone", "fax", "is_prospect", "is_active", "emergency_phone_nr", "emergency_contact", "credit_limit_used", "expired_invoices_total", "modified_date", "customer_type_id", "language_id", "currency_id", "account_manager_id", "customer_service_manager_id", "address_id", "version", "valid_from", "valid_to") SELECT "id", "reference", "name", "alt_name", "contact", "email", "phone", "fax", "is_prospect", "is_active", "emergency_phone_nr", "emergency_contact", "credit_limit_used", "expired_invoices_total", "modified_date", "customer_type_id", "language_id", "currency_id", "account_manager_id", "customer_service_manager_id", "address_id", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "customers";
CREATE TRIGGER "customers_history_insert" AFTER INSERT ON "customers" BEGIN
  INSERT INTO "customers_history" ("id", "reference", "name", "alt_name", "contact", "email", "phone", "fax", "is_prospect", "is_active", "emergency_phone_nr", "emergency_contact", "credit_limit_used", "expired_invoices_total", "modified_date", "customer_type_id", "language_id", "currency_id", "account_manager_id", "customer_service_manager_id", "address_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."name", NEW."alt_name", NEW."contact", NEW."email", NEW."phone", NEW."fax", NEW."is_prospect", NEW."is_active", NEW."emergency_phone_nr", NEW."emergency_contact", NEW."credit_limit_used", NEW."expired_invoices_total", NEW."modified_date", NEW."customer_type_id", NEW."language_id", NEW."currency_id", NEW."account_manager_id", NEW."customer_service_manager_id", NEW."address_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "customers_history_update" AFTER UPDATE ON "customers" BEGIN
  UPDATE "customers_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customers_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "customers_history" ("id", "reference", "name", "alt_name", "contact", "email", "phone", "fax", "is_prospect", "is_active", "emergency_phone_nr", "emergency_contact", "credit_limit_used", "expired_invoices_total", "modified_date", "customer_type_id", "language_id", "currency_id", "account_manager_id", "customer_service_manager_id", "address_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."name", NEW."alt_name", NEW."contact", NEW."email", NEW."phone", NEW."fax", NEW."is_prospect", NEW."is_active", NEW."emergency_phone_nr", NEW."emergency_contact", NEW."credit_limit_used", NEW."expired_invoices_total", NEW."modified_date", NEW."customer_type_id", NEW."language_id", NEW."currency_id", NEW."account_manager_id", NEW."customer_service_manager_id", NEW."address_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "customers_history_delete" AFTER DELETE ON "customers" BEGIN
  UPDATE "customers_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customers_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- function_corporate_groups
CREATE TABLE "function_corporate_groups_history" ("id" INTEGER, "reference" TEXT, "name" TEXT, "import_reference" TEXT, "modified_date" DATETIME, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "function_corporate_groups_history_0" ON "function_corporate_groups_history" ("id", "valid_from");
INSERT INTO "function_corporate_groups_history" ("id", "reference", "name", "import_reference", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "reference", "name", "import_reference", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "function_corporate_groups";
CREATE TRIGGER "function_corporate_groups_history_insert" AFTER INSERT ON "function_corporate_groups" BEGIN
  INSERT INTO "function_corporate_groups_history" ("id", "reference", "name", "import_reference", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."name", NEW."import_reference", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "function_corporate_groups_history_update" AFTER UPDATE ON "function_corporate_groups" BEGIN
  UPDATE "function_corporate_groups_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "function_corporate_groups_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "function_corporate_groups_history" ("id", "reference", "name", "import_reference", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."name", NEW."import_reference", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "function_corporate_groups_history_delete" AFTER DELETE ON "function_corporate_groups" BEGIN
  UPDATE "function_corporate_groups_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "function_corporate_groups_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- languages
CREATE TABLE "languages_history" ("id" INTEGER, "description" TEXT, "alpha_2_code" TEXT, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "languages_history_0" ON "languages_history" ("id", "valid_from");
INSERT INTO "languages_history" ("id", "description", "alpha_2_code", "version", "valid_from", "valid_to") SELECT "id", "description", "alpha_2_code", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "languages";
CREATE TRIGGER "languages_history_insert" AFTER INSERT ON "languages" BEGIN
  INSERT INTO "languages_history" ("id", "description", "alpha_2_code", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description", NEW."alpha_2_code", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "languages_history_update" AFTER UPDATE ON "languages" BEGIN
  UPDATE "languages_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "languages_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "languages_history" ("id", "description", "alpha_2_code", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description", NEW."alpha_2_code", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "languages_history_delete" AFTER DELETE ON "languages" BEGIN
  UPDATE "languages_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "languages_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- users
CREATE TABLE "users_history" ("id" INTEGER, "username" TEXT, "modified_date" DATETIME, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "users_history_0" ON "users_history" ("id", "valid_from");
INSERT INTO "users_history" ("id", "username", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "username", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "users";
CREATE TRIGGER "users_history_insert" AFTER INSERT ON "users" BEGIN
  INSERT INTO "users_history" ("id", "username", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."username", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "users_history_update" AFTER UPDATE ON "users" BEGIN
  UPDATE "users_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "users_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "users_history" ("id", "username", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."username", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "users_history_delete" AFTER DELETE ON "users" BEGIN
  UPDATE "users_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "users_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- brands
CREATE TABLE "brands_history" ("id" INTEGER, "reference" TEXT, "modified_date" DATETIME, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "brands_history_0" ON "brands_history" ("id", "valid_from");
INSERT INTO "brands_history" ("id", "reference", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "reference", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "brands";
CREATE TRIGGER "brands_history_insert" AFTER INSERT ON "brands" BEGIN
  INSERT INTO "brands_history" ("id", "reference", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "brands_history_update" AFTER UPDATE ON "brands" BEGIN
  UPDATE "brands_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "brands_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "brands_history" ("id", "reference", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "brands_history_delete" AFTER DELETE ON "brands" BEGIN
  UPDATE "brands_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "brands_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- product_group_types
CREATE TABLE "product_group_types_history" ("id" INTEGER, "description_nl" TEXT, "description_fr" TEXT, "description_en" TEXT, "description_de" TEXT, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "product_group_types_history_0" ON "product_group_types_history" ("id", "valid_from");
INSERT INTO "product_group_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") SELECT "id", "description_nl", "description_fr", "description_en", "description_de", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "product_group_types";
CREATE TRIGGER "product_group_types_history_insert" AFTER INSERT ON "product_group_types" BEGIN
  INSERT INTO "product_group_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "product_group_types_history_update" AFTER UPDATE ON "product_group_types" BEGIN
  UPDATE "product_group_types_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_group_types_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "product_group_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "product_group_types_history_delete" AFTER DELETE ON "product_group_types" BEGIN
  UPDATE "product_group_types_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_group_types_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- product_groups
CREATE TABLE "product_groups_history" ("id" INTEGER, "is_active" BOOLEAN, "description_nl" TEXT, "description_fr" TEXT, "description_en" TEXT, "description_de" TEXT, "import_reference" TEXT, "inform_days_bbd" INTEGER, "allow_only_one_unit" BOOLEAN, "remark" TEXT, "label_color" TEXT, "transport_packaging_settings_remove_stock_when_picked" BOOLEAN, "transport_packaging_settings_rounding" TEXT, "modified_date" DATETIME, "type_id" INTEGER, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "product_groups_history_0" ON "product_groups_history" ("id", "valid_from");
CREATE INDEX "product_groups_history_1" ON "product_groups_history" ("type_id");
INSERT INTO "product_groups_history" ("id", "is_active", "description_nl", "description_fr", "description_en", "description_de", "import_reference", "inform_days_bbd", "allow_only_one_unit", "remark", "label_color", "transport_packaging_settings_remove_stock_when_picked", "transport_packaging_settings_rounding", "modified_date", "type_id", "version", "valid_from", "valid_to") SELECT "id", "is_active", "description_nl", "description_fr", "description_en", "description_de", "import_reference", "inform_days_bbd", "allow_only_one_unit", "remark", "label_color", "transport_packaging_settings_remove_stock_when_picked", "transport_packaging_settings_rounding", "modified_date", "type_id", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "product_groups";
CREATE TRIGGER "product_groups_history_insert" AFTER INSERT ON "product_groups" BEGIN
  INSERT INTO "product_groups_history" ("id", "is_active", "description_nl", "description_fr", "description_en", "description_de", "import_reference", "inform_days_bbd", "allow_only_one_unit", "remark", "label_color", "transport_packaging_settings_remove_stock_when_picked", "transport_packaging_settings_rounding", "modified_date", "type_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."is_active", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."import_reference", NEW."inform_days_bbd", NEW."allow_only_one_unit", NEW."remark", NEW."label_color", NEW."transport_packaging_settings_remove_stock_when_picked", NEW."transport_packaging_settings_rounding", NEW."modified_date", NEW."type_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "product_groups_history_update" AFTER UPDATE ON "product_groups" BEGIN
  UPDATE "product_groups_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_groups_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "product_groups_history" ("id", "is_active", "description_nl", "description_fr", "description_en", "description_de", "import_reference", "inform_days_bbd", "allow_only_one_unit", "remark", "label_color", "transport_packaging_settings_remove_stock_when_picked", "transport_packaging_settings_rounding", "modified_date", "type_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."is_active", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."import_reference", NEW."inform_days_bbd", NEW."allow_only_one_unit", NEW."remark", NEW."label_color", NEW."transport_packaging_settings_remove_stock_when_picked", NEW."transport_packaging_settings_rounding", NEW."modified_date", NEW."type_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "product_groups_history_delete" AFTER DELETE ON "product_groups" BEGIN
  UPDATE "product_groups_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_groups_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- production_lines
CREATE TABLE "production_lines_history" ("id" INTEGER, "reference" TEXT, "is_active" BOOLEAN, "import_reference" TEXT, "name_nl" TEXT, "name_fr" TEXT, "name_en" TEXT, "name_de" TEXT, "barcode" TEXT, "modified_date" DATETIME, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "production_lines_history_0" ON "production_lines_history" ("id", "valid_from");
INSERT INTO "production_lines_history" ("id", "reference", "is_active", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "barcode", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "reference", "is_active", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "barcode", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "production_lines";
CREATE TRIGGER "production_lines_history_insert" AFTER INSERT ON "production_lines" BEGIN
  INSERT INTO "production_lines_history" ("id", "reference", "is_active", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "barcode", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."is_active", NEW."import_reference", NEW."name_nl", NEW."name_fr", NEW."name_en", NEW."name_de", NEW."barcode", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "production_lines_history_update" AFTER UPDATE ON "production_lines" BEGIN
  UPDATE "production_lines_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "production_lines_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "production_lines_history" ("id", "reference", "is_active", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "barcode", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."is_active", NEW."import_reference", NEW."name_nl", NEW."name_fr", NEW."name_en", NEW."name_de", NEW."barcode", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "production_lines_history_delete" AFTER DELETE ON "production_lines" BEGIN
  UPDATE "production_lines_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "production_lines_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- products
CREATE TABLE "products_history" ("id" INTEGER, "reference" TEXT, "is_active" BOOLEAN, "is_sales" BOOLEAN, "name_nl" TEXT, "name_fr" TEXT, "name_en" TEXT, "name_de" TEXT, "legal_name_nl" TEXT, "legal_name_fr" TEXT, "legal_name_en" TEXT, "legal_name_de" TEXT, "gtin" TEXT, "intrastat_code" TEXT, "gross_weight_in_kilogram" DECIMAL, "net_weight_in_kilogram" DECIMAL, "drained_weight_in_kilogram" DECIMAL, "production_efficiency_per_hour" DECIMAL, "production_report_type_component" TEXT, "production_report_type_byprod" TEXT, "product_structure_quantity" DECIMAL, "is_lotcontrolled" BOOLEAN, "nlc" DECIMAL, "shelf_life_value" DECIMAL, "shelf_life_interval" TEXT, "price_basic_unit_ex_vat" DECIMAL, "consumer_price" DECIMAL, "deposit_price" DECIMAL, "modified_date" DATETIME, "unit_id" INTEGER, "product_group_id" INTEGER, "brand_id" INTEGER, "production_line_id" INTEGER, "preferred_supplier_id" INTEGER, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "products_history_0" ON "products_history" ("id", "valid_from");
CREATE INDEX "products_history_1" ON "products_history" ("preferred_supplier_id");
CREATE INDEX "products_history_2" ON "products_history" ("production_line_id");
CREATE INDEX "products_history_3" ON "products_history" ("brand_id");
CREATE INDEX "products_history_4" ON "products_history" ("product_group_id");
CREATE INDEX "products_history_5" ON "products_history" ("unit_id");
INSERT INTO "products_history" ("id", "reference", "is_active", "is_sales", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de", "gtin", "intrastat_code", "gross_weight_in_kilogram", "net_weight_in_kilogram", "drained_weight_in_kilogram", "production_efficiency_per_hour", "production_report_type_component", "production_report_type_byprod", "product_structure_quantity", "is_lotcontrolled", "nlc", "shelf_life_value", "shelf_life_interval", "price_basic_unit_ex_vat", "consumer_price", "deposit_price", "modified_date", "unit_id", "product_group_id", "brand_id", "production_line_id", "preferred_supplier_id", "version", "valid_from", "valid_to") SELECT "id", "reference", "is_active", "is_sales", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de", "gtin", "intrastat_code", "gross_weight_in_kilogram", "net_weight_in_kilogram", "drained_weight_in_kilogram", "production_efficiency_per_hour", "production_report_type_component", "production_report_type_byprod", "product_structure_quantity", "is_lotcontrolled", "nlc", "shelf_life_value", "shelf_life_interval", "price_basic_unit_ex_vat", "consumer_price", "deposit_price", "modified_date", "unit_id", "product_group_id", "brand_id", "production_line_id", "preferred_supplier_id", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "products";
CREATE TRIGGER "products_history_insert" AFTER INSERT ON "products" BEGIN
  INSERT INTO "products_history" ("id", "reference", "is_active", "is_sales", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de", "gtin", "intrastat_code", "gross_weight_in_kilogram", "net_weight_in_kilogram", "drained_weight_in_kilogram", "production_efficiency_per_hour", "production_report_type_component", "production_report_type_byprod", "product_structure_quantity", "is_lotcontrolled", "nlc", "shelf_life_value", "shelf_life_interval", "price_basic_unit_ex_vat", "consumer_price", "deposit_price", "modified_date", "unit_id", "product_group_id", "brand_id", "production_line_id", "preferred_supplier_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."is_active", NEW."is_sales", NEW."name_nl", NEW."name_fr", NEW."name_en", NEW."name_de", NEW."legal_name_nl", NEW."legal_name_fr", NEW."legal_name_en", NEW."legal_name_de", NEW."gtin", NEW."intrastat_code", NEW."gross_weight_in_kilogram", NEW."net_weight_in_kilogram", NEW."drained_weight_in_kilogram", NEW."production_efficiency_per_hour", NEW."production_report_type_component", NEW."production_report_type_byprod", NEW."product_structure_quantity", NEW."is_lotcontrolled", NEW."nlc", NEW."shelf_life_value", NEW."shelf_life_interval", NEW."price_basic_unit_ex_vat", NEW."consumer_price", NEW."deposit_price", NEW."modified_date", NEW."unit_id", NEW."product_group_id", NEW."brand_id", NEW."production_line_id", NEW."preferred_supplier_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "products_history_update" AFTER UPDATE ON "products" BEGIN
  UPDATE "products_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "products_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "products_history" ("id", "reference", "is_active", "is_sales", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de", "gtin", "intrastat_code", "gross_weight_in_kilogram", "net_weight_in_kilogram", "drained_weight_in_kilogram", "production_efficiency_per_hour", "production_report_type_component", "production_report_type_byprod", "product_structure_quantity", "is_lotcontrolled", "nlc", "shelf_life_value", "shelf_life_interval", "price_basic_unit_ex_vat", "consumer_price", "deposit_price", "modified_date", "unit_id", "product_group_id", "brand_id", "production_line_id", "preferred_supplier_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."is_active", NEW."is_sales", NEW."name_nl", NEW."name_fr", NEW."name_en", NEW."name_de", NEW."legal_name_nl", NEW."legal_name_fr", NEW."legal_name_en", NEW."legal_name_de", NEW."gtin", NEW."intrastat_code", NEW."gross_weight_in_kilogram", NEW."net_weight_in_kilogram", NEW."drained_weight_in_kilogram", NEW."production_efficiency_per_hour", NEW."production_report_type_component", NEW."production_report_type_byprod", NEW."product_structure_quantity", NEW."is_lotcontrolled", NEW."nlc", NEW."shelf_life_value", NEW."shelf_life_interval", NEW."price_basic_unit_ex_vat", NEW."consumer_price", NEW."deposit_price", NEW."modified_date", NEW."unit_id", NEW."product_group_id", NEW."brand_id", NEW."production_line_id", NEW."preferred_supplier_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "products_history_delete" AFTER DELETE ON "products" BEGIN
  UPDATE "products_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "products_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- units
CREATE TABLE "units_history" ("id" INTEGER, "reference" TEXT, "description_nl" TEXT, "description_fr" TEXT, "description_en" TEXT, "description_de" TEXT, "modified_date" DATETIME, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "units_history_0" ON "units_history" ("id", "valid_from");
INSERT INTO "units_history" ("id", "reference", "description_nl", "description_fr", "description_en", "description_de", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "reference", "description_nl", "description_fr", "description_en", "description_de", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "units";
CREATE TRIGGER "units_history_insert" AFTER INSERT ON "units" BEGIN
  INSERT INTO "units_history" ("id", "reference", "description_nl", "description_fr", "description_en", "description_de", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "units_history_update" AFTER UPDATE ON "units" BEGIN
  UPDATE "units_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "units_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "units_history" ("id", "reference", "description_nl", "description_fr", "description_en", "description_de", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "units_history_delete" AFTER DELETE ON "units" BEGIN
  UPDATE "units_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "units_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- product_structure_item_calculation_methods
CREATE TABLE "product_structure_item_calculation_methods_history" ("id" INTEGER, "description_nl" TEXT, "description_fr" TEXT, "description_en" TEXT, "description_de" TEXT, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "product_structure_item_calculation_methods_history_0" ON "product_structure_item_calculation_methods_history" ("id", "valid_from");
INSERT INTO "product_structure_item_calculation_methods_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") SELECT "id", "description_nl", "description_fr", "description_en", "description_de", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "product_structure_item_calculation_methods";
CREATE TRIGGER "product_structure_item_calculation_methods_history_insert" AFTER INSERT ON "product_structure_item_calculation_methods" BEGIN
  INSERT INTO "product_structure_item_calculation_methods_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "product_structure_item_calculation_methods_history_update" AFTER UPDATE ON "product_structure_item_calculation_methods" BEGIN
  UPDATE "product_structure_item_calculation_methods_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_structure_item_calculation_methods_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "product_structure_item_calculation_methods_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "product_structure_item_calculation_methods_history_delete" AFTER DELETE ON "product_structure_item_calculation_methods" BEGIN
  UPDATE "product_structure_item_calculation_methods_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_structure_item_calculation_methods_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- product_structure_item_types
CREATE TABLE "product_structure_item_types_history" ("id" INTEGER, "description_nl" TEXT, "description_fr" TEXT, "description_en" TEXT, "description_de" TEXT, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "product_structure_item_types_history_0" ON "product_structure_item_types_history" ("id", "valid_from");
INSERT INTO "product_structure_item_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") SELECT "id", "description_nl", "description_fr", "description_en", "description_de", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "product_structure_item_types";
CREATE TRIGGER "product_structure_item_types_history_insert" AFTER INSERT ON "product_structure_item_types" BEGIN
  INSERT INTO "product_structure_item_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "product_structure_item_types_history_update" AFTER UPDATE ON "product_structure_item_types" BEGIN
  UPDATE "product_structure_item_types_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_structure_item_types_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "product_structure_item_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "product_structure_item_types_history_delete" AFTER DELETE ON "product_structure_item_types" BEGIN
  UPDATE "product_structure_item_types_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_structure_item_types_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- product_structure_items
CREATE TABLE "product_structure_items_history" ("id" INTEGER, "net_quantity" DECIMAL, "gross_quantity" DECIMAL, "loss_percentage" DECIMAL, "is_phantom" BOOLEAN, "is_processing_agent" BOOLEAN, "skip_grain_component_calculation" BOOLEAN, "modified_date" DATETIME, "product_structure_id" INTEGER, "product_id" INTEGER, "unit_id" INTEGER, "type_id" INTEGER, "calculation_method_id" INTEGER, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "product_structure_items_history_0" ON "product_structure_items_history" ("id", "valid_from");
CREATE INDEX "product_structure_items_history_1" ON "product_structure_items_history" ("calculation_method_id");
CREATE INDEX "product_structure_items_history_2" ON "product_structure_items_history" ("type_id");
CREATE INDEX "product_structure_items_history_3" ON "product_structure_items_history" ("unit_id");
CREATE INDEX "product_structure_items_history_4" ON "product_structure_items_history" ("product_id");
CREATE INDEX "product_structure_items_history_5" ON "product_structure_items_history" ("product_structure_id");
INSERT INTO "product_structure_items_history" ("id", "net_quantity", "gross_quantity", "loss_percentage", "is_phantom", "is_processing_agent", "skip_grain_component_calculation", "modified_date", "product_structure_id", "product_id", "unit_id", "type_id", "calculation_method_id", "version", "valid_from", "valid_to") SELECT "id", "net_quantity", "gross_quantity", "loss_percentage", "is_phantom", "is_processing_agent", "skip_grain_component_calculation", "modified_date", "product_structure_id", "product_id", "unit_id", "type_id", "calculation_method_id", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "product_structure_items";
CREATE TRIGGER "product_structure_items_history_insert" AFTER INSERT ON "product_structure_items" BEGIN
  INSERT INTO "product_structure_items_history" ("id", "net_quantity", "gross_quantity", "loss_percentage", "is_phantom", "is_processing_agent", "skip_grain_component_calculation", "modified_date", "product_structure_id", "product_id", "unit_id", "type_id", "calculation_method_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."net_quantity", NEW."gross_quantity", NEW."loss_percentage", NEW."is_phantom", NEW."is_processing_agent", NEW."skip_grain_component_calculation", NEW."modified_date", NEW."product_structure_id", NEW."product_id", NEW."unit_id", NEW."type_id", NEW."calculation_method_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "product_structure_items_history_update" AFTER UPDATE ON "product_structure_items" BEGIN
  UPDATE "product_structure_items_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_structure_items_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "product_structure_items_history" ("id", "net_quantity", "gross_quantity", "loss_percentage", "is_phantom", "is_processing_agent", "skip_grain_component_calculation", "modified_date", "product_structure_id", "product_id", "unit_id", "type_id", "calculation_method_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."net_quantity", NEW."gross_quantity", NEW."loss_percentage", NEW."is_phantom", NEW."is_processing_agent", NEW."skip_grain_component_calculation", NEW."modified_date", NEW."product_structure_id", NEW."product_id", NEW."unit_id", NEW."type_id", NEW."calculation_method_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "product_structure_items_history_delete" AFTER DELETE ON "product_structure_items" BEGIN
  UPDATE "product_structure_items_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_structure_items_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- product_structures
CREATE TABLE "product_structures_history" ("id" INTEGER, "quantity" DECIMAL, "modified_date" DATETIME, "product_id" INTEGER, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "product_structures_history_0" ON "product_structures_history" ("id", "valid_from");
CREATE INDEX "product_structures_history_1" ON "product_structures_history" ("product_id");
INSERT INTO "product_structures_history" ("id", "quantity", "modified_date", "product_id", "version", "valid_from", "valid_to") SELECT "id", "quantity", "modified_date", "product_id", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "product_structures";
CREATE TRIGGER "product_structures_history_insert" AFTER INSERT ON "product_structures" BEGIN
  INSERT INTO "product_structures_history" ("id", "quantity", "modified_date", "product_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."quantity", NEW."modified_date", NEW."product_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "product_structures_history_update" AFTER UPDATE ON "product_structures" BEGIN
  UPDATE "product_structures_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_structures_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "product_structures_history" ("id", "quantity", "modified_date", "product_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."quantity", NEW."modified_date", NEW."product_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "product_structures_history_delete" AFTER DELETE ON "product_structures" BEGIN
  UPDATE "product_structures_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_structures_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- supplier_evaluation_role_users
CREATE TABLE "supplier_evaluation_role_users_history" ("id" INTEGER, "created_date" DATETIME, "modified_date" DATETIME, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "supplier_evaluation_role_users_history_0" ON "supplier_evaluation_role_users_history" ("id", "valid_from");
INSERT INTO "supplier_evaluation_role_users_history" ("id", "created_date", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "created_date", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "supplier_evaluation_role_users";
CREATE TRIGGER "supplier_evaluation_role_users_history_insert" AFTER INSERT ON "supplier_evaluation_role_users" BEGIN
  INSERT INTO "supplier_evaluation_role_users_history" ("id", "created_date", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."created_date", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "supplier_evaluation_role_users_history_update" AFTER UPDATE ON "supplier_evaluation_role_users" BEGIN
  UPDATE "supplier_evaluation_role_users_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_evaluation_role_users_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "supplier_evaluation_role_users_history" ("id", "created_date", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."created_date", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "supplier_evaluation_role_users_history_delete" AFTER DELETE ON "supplier_evaluation_role_users" BEGIN
  UPDATE "supplier_evaluation_role_users_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_evaluation_role_users_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- supplier_types
CREATE TABLE "supplier_types_history" ("id" INTEGER, "description_nl" TEXT, "description_fr" TEXT, "description_en" TEXT, "description_de" TEXT, "is_emergency_number_required" BOOLEAN, "request_certificates" BOOLEAN, "modified_date" DATETIME, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "supplier_types_history_0" ON "supplier_types_history" ("id", "valid_from");
INSERT INTO "supplier_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "is_emergency_number_required", "request_certificates", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "description_nl", "description_fr", "description_en", "description_de", "is_emergency_number_required", "request_certificates", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "supplier_types";
CREATE TRIGGER "supplier_types_history_insert" AFTER INSERT ON "supplier_types" BEGIN
  INSERT INTO "supplier_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "is_emergency_number_required", "request_certificates", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."is_emergency_number_required", NEW."request_certificates", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "supplier_types_history_update" AFTER UPDATE ON "supplier_types" BEGIN
  UPDATE "supplier_types_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_types_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "supplier_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "is_emergency_number_required", "request_certificates", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."is_emergency_number_required", NEW."request_certificates", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "supplier_types_history_delete" AFTER DELETE ON "supplier_types" BEGIN
  UPDATE "supplier_types_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_types_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- suppliers
CREATE TABLE "suppliers_history" ("id" INTEGER, "reference" TEXT, "name" TEXT, "is_active" BOOLEAN, "is_receival_vat_exclusive" BOOLEAN, "currency_text" TEXT, "gln" TEXT, "is_emergency_number_mandatory" BOOLEAN, "emergency_number" TEXT, "emergency_contact" TEXT, "email" TEXT, "phone" TEXT, "fax" TEXT, "modified_date" DATETIME, "currency_id" INTEGER, "buyer_id" INTEGER, "key_user_id" INTEGER, "address_id" INTEGER, "version" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "suppliers_history_0" ON "suppliers_history" ("id", "valid_from");
CREATE INDEX "suppliers_history_1" ON "suppliers_history" ("address_id");
CREATE INDEX "suppliers_history_2" ON "suppliers_history" ("key_user_id");
CREATE INDEX "suppliers_history_3" ON "suppliers_history" ("buyer_id");
CREATE INDEX "suppliers_history_4" ON "suppliers_history" ("currency_id");
INSERT INTO "suppliers_history" ("id", "reference", "name", "is_active", "is_receival_vat_exclusive", "currency_text", "gln", "is_emergency_number_mandatory", "emergency_number", "emergency_contact", "email", "phone", "fax", "modified_date", "currency_id", "buyer_id", "key_user_id", "address_id", "version", "valid_from", "valid_to") SELECT "id", "reference", "name", "is_active", "is_receival_vat_exclusive", "currency_text", "gln", "is_emergency_number_mandatory", "emergency_number", "emergency_contact", "email", "phone", "fax", "modified_date", "currency_id", "buyer_id", "key_user_id", "address_id", "version", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "suppliers";
CREATE TRIGGER "suppliers_history_insert" AFTER INSERT ON "suppliers" BEGIN
  INSERT INTO "suppliers_history" ("id", "reference", "name", "is_active", "is_receival_vat_exclusive", "currency_text", "gln", "is_emergency_number_mandatory", "emergency_number", "emergency_contact", "email", "phone", "fax", "modified_date", "currency_id", "buyer_id", "key_user_id", "address_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."name", NEW."is_active", NEW."is_receival_vat_exclusive", NEW."currency_text", NEW."gln", NEW."is_emergency_number_mandatory", NEW."emergency_number", NEW."emergency_contact", NEW."email", NEW."phone", NEW."fax", NEW."modified_date", NEW."currency_id", NEW."buyer_id", NEW."key_user_id", NEW."address_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "suppliers_history_update" AFTER UPDATE ON "suppliers" BEGIN
  UPDATE "suppliers_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "suppliers_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "suppliers_history" ("id", "reference", "name", "is_active", "is_receival_vat_exclusive", "currency_text", "gln", "is_emergency_number_mandatory", "emergency_number", "emergency_contact", "email", "phone", "fax", "modified_date", "currency_id", "buyer_id", "key_user_id", "address_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."name", NEW."is_active", NEW."is_receival_vat_exclusive", NEW."currency_text", NEW."gln", NEW."is_emergency_number_mandatory", NEW."emergency_number", NEW."emergency_contact", NEW."email", NEW."phone", NEW."fax", NEW."modified_date", NEW."currency_id", NEW."buyer_id", NEW."key_user_id", NEW."address_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "suppliers_history_delete" AFTER DELETE ON "suppliers" BEGIN
  UPDATE "suppliers_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "suppliers_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- customer_commercial_resolve_responsible_users
CREATE TABLE "customer_commercial_resolve_responsible_users_history" ("customer_id" INTEGER, "user_id" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "customer_commercial_resolve_responsible_users_history_0" ON "customer_commercial_resolve_responsible_users_history" ("customer_id", "user_id", "valid_from");
CREATE INDEX "customer_commercial_resolve_responsible_users_history_1" ON "customer_commercial_resolve_responsible_users_history" ("user_id");
CREATE INDEX "customer_commercial_resolve_responsible_users_history_2" ON "customer_commercial_resolve_responsible_users_history" ("customer_id", "user_id");
INSERT INTO "customer_commercial_resolve_responsible_users_history" ("customer_id", "user_id", "valid_from", "valid_to") SELECT "customer_id", "user_id", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "customer_commercial_resolve_responsible_users";
CREATE TRIGGER "customer_commercial_resolve_responsible_users_history_insert" AFTER INSERT ON "customer_commercial_resolve_responsible_users" BEGIN
  INSERT INTO "customer_commercial_resolve_responsible_users_history" ("customer_id", "user_id", "valid_from", "valid_to") VALUES (NEW."customer_id", NEW."user_id", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "customer_commercial_resolve_responsible_users_history_update" AFTER UPDATE ON "customer_commercial_resolve_responsible_users" BEGIN
  UPDATE "customer_commercial_resolve_responsible_users_history" SET "valid_to" = write_instant() WHERE "customer_id" = OLD."customer_id" AND "user_id" = OLD."user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_commercial_resolve_responsible_users_history" WHERE "customer_id" = OLD."customer_id" AND "user_id" = OLD."user_id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "customer_commercial_resolve_responsible_users_history" ("customer_id", "user_id", "valid_from", "valid_to") VALUES (NEW."customer_id", NEW."user_id", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "customer_commercial_resolve_responsible_users_history_delete" AFTER DELETE ON "customer_commercial_resolve_responsible_users" BEGIN
  UPDATE "customer_commercial_resolve_responsible_users_history" SET "valid_to" = write_instant() WHERE "customer_id" = OLD."customer_id" AND "user_id" = OLD."user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_commercial_resolve_responsible_users_history" WHERE "customer_id" = OLD."customer_id" AND "user_id" = OLD."user_id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- customer_inform_on_complaint_users
CREATE TABLE "customer_inform_on_complaint_users_history" ("customer_id" INTEGER, "user_id" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "customer_inform_on_complaint_users_history_0" ON "customer_inform_on_complaint_users_history" ("customer_id", "user_id", "valid_from");
CREATE INDEX "customer_inform_on_complaint_users_history_1" ON "customer_inform_on_complaint_users_history" ("user_id");
CREATE INDEX "customer_inform_on_complaint_users_history_2" ON "customer_inform_on_complaint_users_history" ("customer_id", "user_id");
INSERT INTO "customer_inform_on_complaint_users_history" ("customer_id", "user_id", "valid_from", "valid_to") SELECT "customer_id", "user_id", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "customer_inform_on_complaint_users";
CREATE TRIGGER "customer_inform_on_complaint_users_history_insert" AFTER INSERT ON "customer_inform_on_complaint_users" BEGIN
  INSERT INTO "customer_inform_on_complaint_users_history" ("customer_id", "user_id", "valid_from", "valid_to") VALUES (NEW."customer_id", NEW."user_id", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "customer_inform_on_complaint_users_history_update" AFTER UPDATE ON "customer_inform_on_complaint_users" BEGIN
  UPDATE "customer_inform_on_complaint_users_history" SET "valid_to" = write_instant() WHERE "customer_id" = OLD."customer_id" AND "user_id" = OLD."user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_inform_on_complaint_users_history" WHERE "customer_id" = OLD."customer_id" AND "user_id" = OLD."user_id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "customer_inform_on_complaint_users_history" ("customer_id", "user_id", "valid_from", "valid_to") VALUES (NEW."customer_id", NEW."user_id", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "customer_inform_on_complaint_users_history_delete" AFTER DELETE ON "customer_inform_on_complaint_users" BEGIN
  UPDATE "customer_inform_on_complaint_users_history" SET "valid_to" = write_instant() WHERE "customer_id" = OLD."customer_id" AND "user_id" = OLD."user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_inform_on_complaint_users_history" WHERE "customer_id" = OLD."customer_id" AND "user_id" = OLD."user_id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- customer_inform_on_complaint_functions
CREATE TABLE "customer_inform_on_complaint_functions_history" ("customer_id" INTEGER, "function_corporate_group_id" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "customer_inform_on_complaint_functions_history_0" ON "customer_inform_on_complaint_functions_history" ("customer_id", "function_corporate_group_id", "valid_from");
CREATE INDEX "customer_inform_on_complaint_functions_history_1" ON "customer_inform_on_complaint_functions_history" ("function_corporate_group_id");
CREATE INDEX "customer_inform_on_complaint_functions_history_2" ON "customer_inform_on_complaint_functions_history" ("customer_id", "function_corporate_group_id");
INSERT INTO "customer_inform_on_complaint_functions_history" ("customer_id", "function_corporate_group_id", "valid_from", "valid_to") SELECT "customer_id", "function_corporate_group_id", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "customer_inform_on_complaint_functions";
CREATE TRIGGER "customer_inform_on_complaint_functions_history_insert" AFTER INSERT ON "customer_inform_on_complaint_functions" BEGIN
  INSERT INTO "customer_inform_on_complaint_functions_history" ("customer_id", "function_corporate_group_id", "valid_from", "valid_to") VALUES (NEW."customer_id", NEW."function_corporate_group_id", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "customer_inform_on_complaint_functions_history_update" AFTER UPDATE ON "customer_inform_on_complaint_functions" BEGIN
  UPDATE "customer_inform_on_complaint_functions_history" SET "valid_to" = write_instant() WHERE "customer_id" = OLD."customer_id" AND "function_corporate_group_id" = OLD."function_corporate_group_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_inform_on_complaint_functions_history" WHERE "customer_id" = OLD."customer_id" AND "function_corporate_group_id" = OLD."function_corporate_group_id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "customer_inform_on_complaint_functions_history" ("customer_id", "function_corporate_group_id", "valid_from", "valid_to") VALUES (NEW."customer_id", NEW."function_corporate_group_id", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "customer_inform_on_complaint_functions_history_delete" AFTER DELETE ON "customer_inform_on_complaint_functions" BEGIN
  UPDATE "customer_inform_on_complaint_functions_history" SET "valid_to" = write_instant() WHERE "customer_id" = OLD."customer_id" AND "function_corporate_group_id" = OLD."function_corporate_group_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_inform_on_complaint_functions_history" WHERE "customer_id" = OLD."customer_id" AND "function_corporate_group_id" = OLD."function_corporate_group_id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- supplier_supplier_types
CREATE TABLE "supplier_supplier_types_history" ("supplier_id" INTEGER, "supplier_type_id" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "supplier_supplier_types_history_0" ON "supplier_supplier_types_history" ("supplier_id", "supplier_type_id", "valid_from");
CREATE INDEX "supplier_supplier_types_history_1" ON "supplier_supplier_types_history" ("supplier_type_id");
CREATE INDEX "supplier_supplier_types_history_2" ON "supplier_supplier_types_history" ("supplier_id", "supplier_type_id");
INSERT INTO "supplier_supplier_types_history" ("supplier_id", "supplier_type_id", "valid_from", "valid_to") SELECT "supplier_id", "supplier_type_id", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "supplier_supplier_types";
CREATE TRIGGER "supplier_supplier_types_history_insert" AFTER INSERT ON "supplier_supplier_types" BEGIN
  INSERT INTO "supplier_supplier_types_history" ("supplier_id", "supplier_type_id", "valid_from", "valid_to") VALUES (NEW."supplier_id", NEW."supplier_type_id", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "supplier_supplier_types_history_update" AFTER UPDATE ON "supplier_supplier_types" BEGIN
  UPDATE "supplier_supplier_types_history" SET "valid_to" = write_instant() WHERE "supplier_id" = OLD."supplier_id" AND "supplier_type_id" = OLD."supplier_type_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_supplier_types_history" WHERE "supplier_id" = OLD."supplier_id" AND "supplier_type_id" = OLD."supplier_type_id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "supplier_supplier_types_history" ("supplier_id", "supplier_type_id", "valid_from", "valid_to") VALUES (NEW."supplier_id", NEW."supplier_type_id", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "supplier_supplier_types_history_delete" AFTER DELETE ON "supplier_supplier_types" BEGIN
  UPDATE "supplier_supplier_types_history" SET "valid_to" = write_instant() WHERE "supplier_id" = OLD."supplier_id" AND "supplier_type_id" = OLD."supplier_type_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_supplier_types_history" WHERE "supplier_id" = OLD."supplier_id" AND "supplier_type_id" = OLD."supplier_type_id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- supplier_evaluation_role_user_links
CREATE TABLE "supplier_evaluation_role_user_links_history" ("supplier_id" INTEGER, "supplier_evaluation_role_user_id" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "supplier_evaluation_role_user_links_history_0" ON "supplier_evaluation_role_user_links_history" ("supplier_id", "supplier_evaluation_role_user_id", "valid_from");
CREATE INDEX "supplier_evaluation_role_user_links_history_1" ON "supplier_evaluation_role_user_links_history" ("supplier_evaluation_role_user_id");
CREATE INDEX "supplier_evaluation_role_user_links_history_2" ON "supplier_evaluation_role_user_links_history" ("supplier_id", "supplier_evaluation_role_user_id");
INSERT INTO "supplier_evaluation_role_user_links_history" ("supplier_id", "supplier_evaluation_role_user_id", "valid_from", "valid_to") SELECT "supplier_id", "supplier_evaluation_role_user_id", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "supplier_evaluation_role_user_links";
CREATE TRIGGER "supplier_evaluation_role_user_links_history_insert" AFTER INSERT ON "supplier_evaluation_role_user_links" BEGIN
  INSERT INTO "supplier_evaluation_role_user_links_history" ("supplier_id", "supplier_evaluation_role_user_id", "valid_from", "valid_to") VALUES (NEW."supplier_id", NEW."supplier_evaluation_role_user_id", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "supplier_evaluation_role_user_links_history_update" AFTER UPDATE ON "supplier_evaluation_role_user_links" BEGIN
  UPDATE "supplier_evaluation_role_user_links_history" SET "valid_to" = write_instant() WHERE "supplier_id" = OLD."supplier_id" AND "supplier_evaluation_role_user_id" = OLD."supplier_evaluation_role_user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_evaluation_role_user_links_history" WHERE "supplier_id" = OLD."supplier_id" AND "supplier_evaluation_role_user_id" = OLD."supplier_evaluation_role_user_id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "supplier_evaluation_role_user_links_history" ("supplier_id", "supplier_evaluation_role_user_id", "valid_from", "valid_to") VALUES (NEW."supplier_id", NEW."supplier_evaluation_role_user_id", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "supplier_evaluation_role_user_links_history_delete" AFTER DELETE ON "supplier_evaluation_role_user_links" BEGIN
  UPDATE "supplier_evaluation_role_user_links_history" SET "valid_to" = write_instant() WHERE "supplier_id" = OLD."supplier_id" AND "supplier_evaluation_role_user_id" = OLD."supplier_evaluation_role_user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_evaluation_role_user_links_history" WHERE "supplier_id" = OLD."supplier_id" AND "supplier_evaluation_role_user_id" = OLD."supplier_evaluation_role_user_id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- supplier_commercial_resolve_responsible_users
CREATE TABLE "supplier_commercial_resolve_responsible_users_history" ("supplier_id" INTEGER, "user_id" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "supplier_commercial_resolve_responsible_users_history_0" ON "supplier_commercial_resolve_responsible_users_history" ("supplier_id", "user_id", "valid_from");
CREATE INDEX "supplier_commercial_resolve_responsible_users_history_1" ON "supplier_commercial_resolve_responsible_users_history" ("user_id");
CREATE INDEX "supplier_commercial_resolve_responsible_users_history_2" ON "supplier_commercial_resolve_responsible_users_history" ("supplier_id", "user_id");
INSERT INTO "supplier_commercial_resolve_responsible_users_history" ("supplier_id", "user_id", "valid_from", "valid_to") SELECT "supplier_id", "user_id", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "supplier_commercial_resolve_responsible_users";
CREATE TRIGGER "supplier_commercial_resolve_responsible_users_history_insert" AFTER INSERT ON "supplier_commercial_resolve_responsible_users" BEGIN
  INSERT INTO "supplier_commercial_resolve_responsible_users_history" ("supplier_id", "user_id", "valid_from", "valid_to") VALUES (NEW."supplier_id", NEW."user_id", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "supplier_commercial_resolve_responsible_users_history_update" AFTER UPDATE ON "supplier_commercial_resolve_responsible_users" BEGIN
  UPDATE "supplier_commercial_resolve_responsible_users_history" SET "valid_to" = write_instant() WHERE "supplier_id" = OLD."supplier_id" AND "user_id" = OLD."user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_commercial_resolve_responsible_users_history" WHERE "supplier_id" = OLD."supplier_id" AND "user_id" = OLD."user_id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "supplier_commercial_resolve_responsible_users_history" ("supplier_id", "user_id", "valid_from", "valid_to") VALUES (NEW."supplier_id", NEW."user_id", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "supplier_commercial_resolve_responsible_users_history_delete" AFTER DELETE ON "supplier_commercial_resolve_responsible_users" BEGIN
  UPDATE "supplier_commercial_resolve_responsible_users_history" SET "valid_to" = write_instant() WHERE "supplier_id" = OLD."supplier_id" AND "user_id" = OLD."user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_commercial_resolve_responsible_users_history" WHERE "supplier_id" = OLD."supplier_id" AND "user_id" = OLD."user_id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- supplier_inform_on_complaint_users
CREATE TABLE "supplier_inform_on_complaint_users_history" ("supplier_id" INTEGER, "user_id" INTEGER, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);
CREATE INDEX "supplier_inform_on_complaint_users_history_0" ON "supplier_inform_on_complaint_users_history" ("supplier_id", "user_id", "valid_from");
CREATE INDEX "supplier_inform_on_complaint_users_history_1" ON "supplier_inform_on_complaint_users_history" ("user_id");
CREATE INDEX "supplier_inform_on_complaint_users_history_2" ON "supplier_inform_on_complaint_users_history" ("supplier_id", "user_id");
INSERT INTO "supplier_inform_on_complaint_users_history" ("supplier_id", "user_id", "valid_from", "valid_to") SELECT "supplier_id", "user_id", write_instant(), '9999-12-31T00:00:00.000+00:00' FROM "supplier_inform_on_complaint_users";
CREATE TRIGGER "supplier_inform_on_complaint_users_history_insert" AFTER INSERT ON "supplier_inform_on_complaint_users" BEGIN
  INSERT INTO "supplier_inform_on_complaint_users_history" ("supplier_id", "user_id", "valid_from", "valid_to") VALUES (NEW."supplier_id", NEW."user_id", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "supplier_inform_on_complaint_users_history_update" AFTER UPDATE ON "supplier_inform_on_complaint_users" BEGIN
  UPDATE "supplier_inform_on_complaint_users_history" SET "valid_to" = write_instant() WHERE "supplier_id" = OLD."supplier_id" AND "user_id" = OLD."user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_inform_on_complaint_users_history" WHERE "supplier_id" = OLD."supplier_id" AND "user_id" = OLD."user_id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
  INSERT INTO "supplier_inform_on_complaint_users_history" ("supplier_id", "user_id", "valid_from", "valid_to") VALUES (NEW."supplier_id", NEW."user_id", write_instant(), '9999-12-31T00:00:00.000+00:00');
END;
CREATE TRIGGER "supplier_inform_on_complaint_users_history_delete" AFTER DELETE ON "supplier_inform_on_complaint_users" BEGIN
  UPDATE "supplier_inform_on_complaint_users_history" SET "valid_to" = write_instant() WHERE "supplier_id" = OLD."supplier_id" AND "user_id" = OLD."user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_inform_on_complaint_users_history" WHERE "supplier_id" = OLD."supplier_id" AND "user_id" = OLD."user_id") AND "valid_to" = '9999-12-31T00:00:00.000+00:00';
END;

-- products_search_history
CREATE VIRTUAL TABLE "products_search_history" USING fts5("key", "names", "legal_names", content = '', contentless_delete = 1, tokenize = 'ascii');
INSERT INTO "products_search_history" ("rowid", "key", "names", "legal_names") SELECT h."rowid", search_fold(h."reference", h."gtin"), search_fold(h."name_nl", h."name_fr", h."name_en", h."name_de"), search_fold(h."legal_name_nl", h."legal_name_fr", h."legal_name_en", h."legal_name_de") FROM "products_history" h;
CREATE TRIGGER "products_search_history_insert" AFTER INSERT ON "products_history" BEGIN
  INSERT INTO "products_search_history" ("rowid", "key", "names", "legal_names") VALUES (NEW."rowid", search_fold(NEW."reference", NEW."gtin"), search_fold(NEW."name_nl", NEW."name_fr", NEW."name_en", NEW."name_de"), search_fold(NEW."legal_name_nl", NEW."legal_name_fr", NEW."legal_name_en", NEW."legal_name_de"));
END;
CREATE TRIGGER "products_search_history_delete" AFTER DELETE ON "products_history" BEGIN
  DELETE FROM "products_search_history" WHERE "rowid" = OLD."rowid";
END;

-- customers_search_history
CREATE VIRTUAL TABLE "customers_search_history" USING fts5("key", "names", "contacts", content = '', contentless_delete = 1, tokenize = 'ascii');
INSERT INTO "customers_search_history" ("rowid", "key", "names", "contacts") SELECT h."rowid", search_fold(h."reference"), search_fold(h."name", h."alt_name"), search_fold(h."contact", h."email", h."emergency_contact") FROM "customers_history" h;
CREATE TRIGGER "customers_search_history_insert" AFTER INSERT ON "customers_history" BEGIN
  INSERT INTO "customers_search_history" ("rowid", "key", "names", "contacts") VALUES (NEW."rowid", search_fold(NEW."reference"), search_fold(NEW."name", NEW."alt_name"), search_fold(NEW."contact", NEW."email", NEW."emergency_contact"));
END;
CREATE TRIGGER "customers_search_history_delete" AFTER DELETE ON "customers_history" BEGIN
  DELETE FROM "customers_search_history" WHERE "rowid" = OLD."rowid";
END;

-- suppliers_search_history
CREATE VIRTUAL TABLE "suppliers_search_history" USING fts5("key", "names", "contacts", content = '', contentless_delete = 1, tokenize = 'ascii');
INSERT INTO "suppliers_search_history" ("rowid", "key", "names", "contacts") SELECT h."rowid", search_fold(h."reference", h."gln"), search_fold(h."name"), search_fold(h."emergency_contact", h."email") FROM "suppliers_history" h;
CREATE TRIGGER "suppliers_search_history_insert" AFTER INSERT ON "suppliers_history" BEGIN
  INSERT INTO "suppliers_search_history" ("rowid", "key", "names", "contacts") VALUES (NEW."rowid", search_fold(NEW."reference", NEW."gln"), search_fold(NEW."name"), search_fold(NEW."emergency_contact", NEW."email"));
END;
CREATE TRIGGER "suppliers_search_history_delete" AFTER DELETE ON "suppliers_history" BEGIN
  DELETE FROM "suppliers_search_history" WHERE "rowid" = OLD."rowid";
END;
