
-- History of every row (prisma/history-migration.ts wrote what follows; src/db/history.ts says why).
-- The instant of a write: its transaction's start, in UTC to the millisecond, as the change log's
-- "at" (src/db/history.ts). SQLite's is a function of the service's connections.
CREATE FUNCTION write_instant() RETURNS timestamp(3) LANGUAGE sql STABLE
  AS $$ SELECT (now() AT TIME ZONE 'UTC')::timestamp(3) $$;
ALTER TABLE "changes" ALTER COLUMN "at" SET DEFAULT write_instant();

-- The instant an as-of read reads at (src/db/past.ts sets it for its transaction).
CREATE FUNCTION as_of_instant() RETURNS timestamp(3) LANGUAGE sql STABLE
  AS $$ SELECT current_setting('mdg.as_of')::timestamp(3) $$;

-- Views named as the data tables, over the versions valid at as_of_instant(): an as-of read puts
-- this schema first in its search_path, and the reads of the present read the past unchanged.
CREATE SCHEMA "mdg_past";
CREATE VIEW "mdg_past"."changes" AS SELECT * FROM "changes" WHERE "seq" IS NOT NULL AND "seq" < COALESCE((SELECT MIN("seq") FROM "changes" WHERE "at" > as_of_instant()), 9007199254740991);

-- The oldest instant an as-of read answers exactly: the history begins here, and the change log's
-- purge moves it later (src/db/past.ts).
CREATE TABLE "history_horizon" ("id" INTEGER NOT NULL PRIMARY KEY, "oldest" TIMESTAMP(3) NOT NULL);
INSERT INTO "history_horizon" ("id", "oldest") VALUES (1, write_instant());

-- addresses
CREATE TABLE "addresses_history" (LIKE "addresses") WITH (fillfactor = 80);
ALTER TABLE "addresses_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "addresses_history_0" ON "addresses_history" ("id", "valid_from");
INSERT INTO "addresses_history" ("id", "line_1", "line_2", "postal_code", "city", "state", "country_code", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "line_1", "line_2", "postal_code", "city", "state", "country_code", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "addresses";
CREATE FUNCTION "addresses_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "addresses_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "addresses_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "addresses_history" ("id", "line_1", "line_2", "postal_code", "city", "state", "country_code", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."line_1", NEW."line_2", NEW."postal_code", NEW."city", NEW."state", NEW."country_code", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "addresses_history_write" AFTER INSERT OR UPDATE OR DELETE ON "addresses" FOR EACH ROW EXECUTE FUNCTION "addresses_history_write"();
CREATE VIEW "mdg_past"."addresses" AS SELECT "id", "line_1", "line_2", "postal_code", "city", "state", "country_code", "modified_date", "version" FROM "addresses_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- currencies
CREATE TABLE "currencies_history" (LIKE "currencies") WITH (fillfactor = 80);
ALTER TABLE "currencies_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "currencies_history_0" ON "currencies_history" ("id", "valid_from");
INSERT INTO "currencies_history" ("id", "symbol", "alpha_3_code", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") SELECT "id", "symbol", "alpha_3_code", "description_nl", "description_fr", "description_en", "description_de", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "currencies";
CREATE FUNCTION "currencies_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "currencies_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "currencies_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "currencies_history" ("id", "symbol", "alpha_3_code", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."symbol", NEW."alpha_3_code", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "currencies_history_write" AFTER INSERT OR UPDATE OR DELETE ON "currencies" FOR EACH ROW EXECUTE FUNCTION "currencies_history_write"();
CREATE VIEW "mdg_past"."currencies" AS SELECT "id", "symbol", "alpha_3_code", "description_nl", "description_fr", "description_en", "description_de", "version" FROM "currencies_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- customer_products
CREATE TABLE "customer_products_history" (LIKE "customer_products") WITH (fillfactor = 80);
ALTER TABLE "customer_products_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "customer_products_history_0" ON "customer_products_history" ("id", "valid_from");
CREATE INDEX "customer_products_history_1" ON "customer_products_history" ("product_id");
CREATE INDEX "customer_products_history_2" ON "customer_products_history" ("customer_id");
INSERT INTO "customer_products_history" ("id", "external_reference", "external_product_name", "customer_id", "product_id", "version", "valid_from", "valid_to") SELECT "id", "external_reference", "external_product_name", "customer_id", "product_id", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "customer_products";
CREATE FUNCTION "customer_products_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "customer_products_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_products_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "customer_products_history" ("id", "external_reference", "external_product_name", "customer_id", "product_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."external_reference", NEW."external_product_name", NEW."customer_id", NEW."product_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "customer_products_history_write" AFTER INSERT OR UPDATE OR DELETE ON "customer_products" FOR EACH ROW EXECUTE FUNCTION "customer_products_history_write"();
CREATE VIEW "mdg_past"."customer_products" AS SELECT "id", "external_reference", "external_product_name", "customer_id", "product_id", "version" FROM "customer_products_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- customer_types
CREATE TABLE "customer_types_history" (LIKE "customer_types") WITH (fillfactor = 80);
ALTER TABLE "customer_types_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "customer_types_history_0" ON "customer_types_history" ("id", "valid_from");
INSERT INTO "customer_types_history" ("id", "reference", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "reference", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "customer_types";
CREATE FUNCTION "customer_types_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "customer_types_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_types_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "customer_types_history" ("id", "reference", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."import_reference", NEW."name_nl", NEW."name_fr", NEW."name_en", NEW."name_de", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "customer_types_history_write" AFTER INSERT OR UPDATE OR DELETE ON "customer_types" FOR EACH ROW EXECUTE FUNCTION "customer_types_history_write"();
CREATE VIEW "mdg_past"."customer_types" AS SELECT "id", "reference", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "modified_date", "version" FROM "customer_types_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- customers
CREATE TABLE "customers_history" (LIKE "customers") WITH (fillfactor = 80);
ALTER TABLE "customers_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "customers_history_0" ON "customers_history" ("id", "valid_from");
CREATE INDEX "customers_history_1" ON "customers_history" ("address_id");
CREATE INDEX "customers_history_2" ON "customers_history" ("customer_service_manager_id");
CREATE INDEX "customers_history_3" ON "customers_history" ("account_manager_id");
CREATE INDEX "customers_history_4" ON "customers_history" ("currency_id");
CREATE INDEX "customers_history_5" ON "customers_history" ("language_id");
CREATE INDEX "customers_history_6" ON "customers_history" ("customer_type_id");
INSERT INTO "customers_history" ("id", "reference", "name", "alt_name", "contact", "email", "phone", "fax", "is_prospect", "is_active", "emergency_phone_nr", "emergency_contact", "credit_limit_used", "expired_invoices_total", "modified_date", "customer_type_id", "language_id", "currency_id", "account_manager_id", "customer_service_manager_id", "address_id", "version", "valid_from", "valid_to") SELECT "id", "reference", "name", "alt_name", "contact", "email", "phone", "fax", "is_prospect", "is_active", "emergency_phone_nr", "emergency_contact", "credit_limit_used", "expired_invoices_total", "modified_date", "customer_type_id", "language_id", "currency_id", "account_manager_id", "customer_service_manager_id", "address_id", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "customers";
CREATE FUNCTION "customers_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "customers_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customers_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "customers_history" ("id", "reference", "name", "alt_name", "contact", "email", "phone", "fax", "is_prospect", "is_active", "emergency_phone_nr", "emergency_contact", "credit_limit_used", "expired_invoices_total", "modified_date", "customer_type_id", "language_id", "currency_id", "account_manager_id", "customer_service_manager_id", "address_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."name", NEW."alt_name", NEW."contact", NEW."email", NEW."phone", NEW."fax", NEW."is_prospect", NEW."is_active", NEW."emergency_phone_nr", NEW."emergency_contact", NEW."credit_limit_used", NEW."expired_invoices_total", NEW."modified_date", NEW."customer_type_id", NEW."language_id", NEW."currency_id", NEW."account_manager_id", NEW."customer_service_manager_id", NEW."address_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "customers_history_write" AFTER INSERT OR UPDATE OR DELETE ON "customers" FOR EACH ROW EXECUTE FUNCTION "customers_history_write"();
CREATE VIEW "mdg_past"."customers" AS SELECT "id", "reference", "name", "alt_name", "contact", "email", "phone", "fax", "is_prospect", "is_active", "emergency_phone_nr", "emergency_contact", "credit_limit_used", "expired_invoices_total", "modified_date", "customer_type_id", "language_id", "currency_id", "account_manager_id", "customer_service_manager_id", "address_id", "version" FROM "customers_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- function_corporate_groups
CREATE TABLE "function_corporate_groups_history" (LIKE "function_corporate_groups") WITH (fillfactor = 80);
ALTER TABLE "function_corporate_groups_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "function_corporate_groups_history_0" ON "function_corporate_groups_history" ("id", "valid_from");
INSERT INTO "function_corporate_groups_history" ("id", "reference", "name", "import_reference", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "reference", "name", "import_reference", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "function_corporate_groups";
CREATE FUNCTION "function_corporate_groups_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "function_corporate_groups_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "function_corporate_groups_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "function_corporate_groups_history" ("id", "reference", "name", "import_reference", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."name", NEW."import_reference", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "function_corporate_groups_history_write" AFTER INSERT OR UPDATE OR DELETE ON "function_corporate_groups" FOR EACH ROW EXECUTE FUNCTION "function_corporate_groups_history_write"();
CREATE VIEW "mdg_past"."function_corporate_groups" AS SELECT "id", "reference", "name", "import_reference", "modified_date", "version" FROM "function_corporate_groups_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- languages
CREATE TABLE "languages_history" (LIKE "languages") WITH (fillfactor = 80);
ALTER TABLE "languages_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "languages_history_0" ON "languages_history" ("id", "valid_from");
INSERT INTO "languages_history" ("id", "description", "alpha_2_code", "version", "valid_from", "valid_to") SELECT "id", "description", "alpha_2_code", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "languages";
CREATE FUNCTION "languages_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "languages_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "languages_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "languages_history" ("id", "description", "alpha_2_code", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description", NEW."alpha_2_code", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "languages_history_write" AFTER INSERT OR UPDATE OR DELETE ON "languages" FOR EACH ROW EXECUTE FUNCTION "languages_history_write"();
CREATE VIEW "mdg_past"."languages" AS SELECT "id", "description", "alpha_2_code", "version" FROM "languages_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- users
CREATE TABLE "users_history" (LIKE "users") WITH (fillfactor = 80);
ALTER TABLE "users_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "users_history_0" ON "users_history" ("id", "valid_from");
INSERT INTO "users_history" ("id", "username", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "username", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "users";
CREATE FUNCTION "users_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "users_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "users_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "users_history" ("id", "username", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."username", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "users_history_write" AFTER INSERT OR UPDATE OR DELETE ON "users" FOR EACH ROW EXECUTE FUNCTION "users_history_write"();
CREATE VIEW "mdg_past"."users" AS SELECT "id", "username", "modified_date", "version" FROM "users_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- brands
CREATE TABLE "brands_history" (LIKE "brands") WITH (fillfactor = 80);
ALTER TABLE "brands_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "brands_history_0" ON "brands_history" ("id", "valid_from");
INSERT INTO "brands_history" ("id", "reference", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "reference", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "brands";
CREATE FUNCTION "brands_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "brands_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "brands_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "brands_history" ("id", "reference", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "brands_history_write" AFTER INSERT OR UPDATE OR DELETE ON "brands" FOR EACH ROW EXECUTE FUNCTION "brands_history_write"();
CREATE VIEW "mdg_past"."brands" AS SELECT "id", "reference", "modified_date", "version" FROM "brands_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- product_group_types
CREATE TABLE "product_group_types_history" (LIKE "product_group_types") WITH (fillfactor = 80);
ALTER TABLE "product_group_types_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "product_group_types_history_0" ON "product_group_types_history" ("id", "valid_from");
INSERT INTO "product_group_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") SELECT "id", "description_nl", "description_fr", "description_en", "description_de", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "product_group_types";
CREATE FUNCTION "product_group_types_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "product_group_types_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_group_types_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "product_group_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "product_group_types_history_write" AFTER INSERT OR UPDATE OR DELETE ON "product_group_types" FOR EACH ROW EXECUTE FUNCTION "product_group_types_history_write"();
CREATE VIEW "mdg_past"."product_group_types" AS SELECT "id", "description_nl", "description_fr", "description_en", "description_de", "version" FROM "product_group_types_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- product_groups
CREATE TABLE "product_groups_history" (LIKE "product_groups") WITH (fillfactor = 80);
ALTER TABLE "product_groups_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "product_groups_history_0" ON "product_groups_history" ("id", "valid_from");
CREATE INDEX "product_groups_history_1" ON "product_groups_history" ("type_id");
INSERT INTO "product_groups_history" ("id", "is_active", "description_nl", "description_fr", "description_en", "description_de", "import_reference", "inform_days_bbd", "allow_only_one_unit", "remark", "label_color", "transport_packaging_settings_remove_stock_when_picked", "transport_packaging_settings_rounding", "modified_date", "type_id", "version", "valid_from", "valid_to") SELECT "id", "is_active", "description_nl", "description_fr", "description_en", "description_de", "import_reference", "inform_days_bbd", "allow_only_one_unit", "remark", "label_color", "transport_packaging_settings_remove_stock_when_picked", "transport_packaging_settings_rounding", "modified_date", "type_id", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "product_groups";
CREATE FUNCTION "product_groups_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "product_groups_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_groups_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "product_groups_history" ("id", "is_active", "description_nl", "description_fr", "description_en", "description_de", "import_reference", "inform_days_bbd", "allow_only_one_unit", "remark", "label_color", "transport_packaging_settings_remove_stock_when_picked", "transport_packaging_settings_rounding", "modified_date", "type_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."is_active", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."import_reference", NEW."inform_days_bbd", NEW."allow_only_one_unit", NEW."remark", NEW."label_color", NEW."transport_packaging_settings_remove_stock_when_picked", NEW."transport_packaging_settings_rounding", NEW."modified_date", NEW."type_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "product_groups_history_write" AFTER INSERT OR UPDATE OR DELETE ON "product_groups" FOR EACH ROW EXECUTE FUNCTION "product_groups_history_write"();
CREATE VIEW "mdg_past"."product_groups" AS SELECT "id", "is_active", "description_nl", "description_fr", "description_en", "description_de", "import_reference", "inform_days_bbd", "allow_only_one_unit", "remark", "label_color", "transport_packaging_settings_remove_stock_when_picked", "transport_packaging_settings_rounding", "modified_date", "type_id", "version" FROM "product_groups_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- production_lines
CREATE TABLE "production_lines_history" (LIKE "production_lines") WITH (fillfactor = 80);
ALTER TABLE "production_lines_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "production_lines_history_0" ON "production_lines_history" ("id", "valid_from");
INSERT INTO "production_lines_history" ("id", "reference", "is_active", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "barcode", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "reference", "is_active", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "barcode", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "production_lines";
CREATE FUNCTION "production_lines_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "production_lines_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "production_lines_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "production_lines_history" ("id", "reference", "is_active", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "barcode", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."is_active", NEW."import_reference", NEW."name_nl", NEW."name_fr", NEW."name_en", NEW."name_de", NEW."barcode", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "production_lines_history_write" AFTER INSERT OR UPDATE OR DELETE ON "production_lines" FOR EACH ROW EXECUTE FUNCTION "production_lines_history_write"();
CREATE VIEW "mdg_past"."production_lines" AS SELECT "id", "reference", "is_active", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "barcode", "modified_date", "version" FROM "production_lines_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- products
CREATE TABLE "products_history" (LIKE "products") WITH (fillfactor = 80);
ALTER TABLE "products_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "products_history_0" ON "products_history" ("id", "valid_from");
CREATE INDEX "products_history_1" ON "products_history" ("preferred_supplier_id");
CREATE INDEX "products_history_2" ON "products_history" ("production_line_id");
CREATE INDEX "products_history_3" ON "products_history" ("brand_id");
CREATE INDEX "products_history_4" ON "products_history" ("product_group_id");
CREATE INDEX "products_history_5" ON "products_history" ("unit_id");
INSERT INTO "products_history" ("id", "reference", "is_active", "is_sales", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de", "gtin", "intrastat_code", "gross_weight_in_kilogram", "net_weight_in_kilogram", "drained_weight_in_kilogram", "production_efficiency_per_hour", "production_report_type_component", "production_report_type_byprod", "product_structure_quantity", "is_lotcontrolled", "nlc", "shelf_life_value", "shelf_life_interval", "price_basic_unit_ex_vat", "consumer_price", "deposit_price", "modified_date", "unit_id", "product_group_id", "brand_id", "production_line_id", "preferred_supplier_id", "version", "valid_from", "valid_to") SELECT "id", "reference", "is_active", "is_sales", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de", "gtin", "intrastat_code", "gross_weight_in_kilogram", "net_weight_in_kilogram", "drained_weight_in_kilogram", "production_efficiency_per_hour", "production_report_type_component", "production_report_type_byprod", "product_structure_quantity", "is_lotcontrolled", "nlc", "shelf_life_value", "shelf_life_interval", "price_basic_unit_ex_vat", "consumer_price", "deposit_price", "modified_date", "unit_id", "product_group_id", "brand_id", "production_line_id", "preferred_supplier_id", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "products";
CREATE FUNCTION "products_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "products_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "products_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "products_history" ("id", "reference", "is_active", "is_sales", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de", "gtin", "intrastat_code", "gross_weight_in_kilogram", "net_weight_in_kilogram", "drained_weight_in_kilogram", "production_efficiency_per_hour", "production_report_type_component", "production_report_type_byprod", "product_structure_quantity", "is_lotcontrolled", "nlc", "shelf_life_value", "shelf_life_interval", "price_basic_unit_ex_vat", "consumer_price", "deposit_price", "modified_date", "unit_id", "product_group_id", "brand_id", "production_line_id", "preferred_supplier_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."is_active", NEW."is_sales", NEW."name_nl", NEW."name_fr", NEW."name_en", NEW."name_de", NEW."legal_name_nl", NEW."legal_name_fr", NEW."legal_name_en", NEW."legal_name_de", NEW."gtin", NEW."intrastat_code", NEW."gross_weight_in_kilogram", NEW."net_weight_in_kilogram", NEW."drained_weight_in_kilogram", NEW."production_efficiency_per_hour", NEW."production_report_type_component", NEW."production_report_type_byprod", NEW."product_structure_quantity", NEW."is_lotcontrolled", NEW."nlc", NEW."shelf_life_value", NEW."shelf_life_interval", NEW."price_basic_unit_ex_vat", NEW."consumer_price", NEW."deposit_price", NEW."modified_date", NEW."unit_id", NEW."product_group_id", NEW."brand_id", NEW."production_line_id", NEW."preferred_supplier_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "products_history_write" AFTER INSERT OR UPDATE OR DELETE ON "products" FOR EACH ROW EXECUTE FUNCTION "products_history_write"();
CREATE VIEW "mdg_past"."products" AS SELECT "id", "reference", "is_active", "is_sales", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de", "gtin", "intrastat_code", "gross_weight_in_kilogram", "net_weight_in_kilogram", "drained_weight_in_kilogram", "production_efficiency_per_hour", "production_report_type_component", "production_report_type_byprod", "product_structure_quantity", "is_lotcontrolled", "nlc", "shelf_life_value", "shelf_life_interval", "price_basic_unit_ex_vat", "consumer_price", "deposit_price", "modified_date", "unit_id", "product_group_id", "brand_id", "production_line_id", "preferred_supplier_id", "version" FROM "products_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- units
CREATE TABLE "units_history" (LIKE "units") WITH (fillfactor = 80);
ALTER TABLE "units_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "units_history_0" ON "units_history" ("id", "valid_from");
INSERT INTO "units_history" ("id", "reference", "description_nl", "description_fr", "description_en", "description_de", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "reference", "description_nl", "description_fr", "description_en", "description_de", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "units";
CREATE FUNCTION "units_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "units_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "units_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "units_history" ("id", "reference", "description_nl", "description_fr", "description_en", "description_de", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "units_history_write" AFTER INSERT OR UPDATE OR DELETE ON "units" FOR EACH ROW EXECUTE FUNCTION "units_history_write"();
CREATE VIEW "mdg_past"."units" AS SELECT "id", "reference", "description_nl", "description_fr", "description_en", "description_de", "modified_date", "version" FROM "units_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- product_structure_item_calculation_methods
CREATE TABLE "product_structure_item_calculation_methods_history" (LIKE "product_structure_item_calculation_methods") WITH (fillfactor = 80);
ALTER TABLE "product_structure_item_calculation_methods_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "product_structure_item_calculation_methods_history_0" ON "product_structure_item_calculation_methods_history" ("id", "valid_from");
INSERT INTO "product_structure_item_calculation_methods_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") SELECT "id", "description_nl", "description_fr", "description_en", "description_de", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "product_structure_item_calculation_methods";
CREATE FUNCTION "product_structure_item_calculation_methods_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "product_structure_item_calculation_methods_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_structure_item_calculation_methods_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "product_structure_item_calculation_methods_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "product_structure_item_calculation_methods_history_write" AFTER INSERT OR UPDATE OR DELETE ON "product_structure_item_calculation_methods" FOR EACH ROW EXECUTE FUNCTION "product_structure_item_calculation_methods_history_write"();
CREATE VIEW "mdg_past"."product_structure_item_calculation_methods" AS SELECT "id", "description_nl", "description_fr", "description_en", "description_de", "version" FROM "product_structure_item_calculation_methods_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- product_structure_item_types
CREATE TABLE "product_structure_item_types_history" (LIKE "product_structure_item_types") WITH (fillfactor = 80);
ALTER TABLE "product_structure_item_types_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "product_structure_item_types_history_0" ON "product_structure_item_types_history" ("id", "valid_from");
INSERT INTO "product_structure_item_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") SELECT "id", "description_nl", "description_fr", "description_en", "description_de", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "product_structure_item_types";
CREATE FUNCTION "product_structure_item_types_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "product_structure_item_types_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_structure_item_types_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "product_structure_item_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "product_structure_item_types_history_write" AFTER INSERT OR UPDATE OR DELETE ON "product_structure_item_types" FOR EACH ROW EXECUTE FUNCTION "product_structure_item_types_history_write"();
CREATE VIEW "mdg_past"."product_structure_item_types" AS SELECT "id", "description_nl", "description_fr", "description_en", "description_de", "version" FROM "product_structure_item_types_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- product_structure_items
CREATE TABLE "product_structure_items_history" (LIKE "product_structure_items") WITH (fillfactor = 80);
ALTER TABLE "product_structure_items_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "product_structure_items_history_0" ON "product_structure_items_history" ("id", "valid_from");
CREATE INDEX "product_structure_items_history_1" ON "product_structure_items_history" ("calculation_method_id");
CREATE INDEX "product_structure_items_history_2" ON "product_structure_items_history" ("type_id");
CREATE INDEX "product_structure_items_history_3" ON "product_structure_items_history" ("unit_id");
CREATE INDEX "product_structure_items_history_4" ON "product_structure_items_history" ("product_id");
CREATE INDEX "product_structure_items_history_5" ON "product_structure_items_history" ("product_structure_id");
INSERT INTO "product_structure_items_history" ("id", "net_quantity", "gross_quantity", "loss_percentage", "is_phantom", "is_processing_agent", "skip_grain_component_calculation", "modified_date", "product_structure_id", "product_id", "unit_id", "type_id", "calculation_method_id", "version", "valid_from", "valid_to") SELECT "id", "net_quantity", "gross_quantity", "loss_percentage", "is_phantom", "is_processing_agent", "skip_grain_component_calculation", "modified_date", "product_structure_id", "product_id", "unit_id", "type_id", "calculation_method_id", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "product_structure_items";
CREATE FUNCTION "product_structure_items_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "product_structure_items_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_structure_items_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "product_structure_items_history" ("id", "net_quantity", "gross_quantity", "loss_percentage", "is_phantom", "is_processing_agent", "skip_grain_component_calculation", "modified_date", "product_structure_id", "product_id", "unit_id", "type_id", "calculation_method_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."net_quantity", NEW."gross_quantity", NEW."loss_percentage", NEW."is_phantom", NEW."is_processing_agent", NEW."skip_grain_component_calculation", NEW."modified_date", NEW."product_structure_id", NEW."product_id", NEW."unit_id", NEW."type_id", NEW."calculation_method_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "product_structure_items_history_write" AFTER INSERT OR UPDATE OR DELETE ON "product_structure_items" FOR EACH ROW EXECUTE FUNCTION "product_structure_items_history_write"();
CREATE VIEW "mdg_past"."product_structure_items" AS SELECT "id", "net_quantity", "gross_quantity", "loss_percentage", "is_phantom", "is_processing_agent", "skip_grain_component_calculation", "modified_date", "product_structure_id", "product_id", "unit_id", "type_id", "calculation_method_id", "version" FROM "product_structure_items_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- product_structures
CREATE TABLE "product_structures_history" (LIKE "product_structures") WITH (fillfactor = 80);
ALTER TABLE "product_structures_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "product_structures_history_0" ON "product_structures_history" ("id", "valid_from");
CREATE INDEX "product_structures_history_1" ON "product_structures_history" ("product_id");
INSERT INTO "product_structures_history" ("id", "quantity", "modified_date", "product_id", "version", "valid_from", "valid_to") SELECT "id", "quantity", "modified_date", "product_id", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "product_structures";
CREATE FUNCTION "product_structures_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "product_structures_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_structures_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "product_structures_history" ("id", "quantity", "modified_date", "product_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."quantity", NEW."modified_date", NEW."product_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "product_structures_history_write" AFTER INSERT OR UPDATE OR DELETE ON "product_structures" FOR EACH ROW EXECUTE FUNCTION "product_structures_history_write"();
CREATE VIEW "mdg_past"."product_structures" AS SELECT "id", "quantity", "modified_date", "product_id", "version" FROM "product_structures_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- supplier_evaluation_role_users
CREATE TABLE "supplier_evaluation_role_users_history" (LIKE "supplier_evaluation_role_users") WITH (fillfactor = 80);
ALTER TABLE "supplier_evaluation_role_users_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "supplier_evaluation_role_users_history_0" ON "supplier_evaluation_role_users_history" ("id", "valid_from");
INSERT INTO "supplier_evaluation_role_users_history" ("id", "created_date", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "created_date", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "supplier_evaluation_role_users";
CREATE FUNCTION "supplier_evaluation_role_users_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "supplier_evaluation_role_users_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_evaluation_role_users_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "supplier_evaluation_role_users_history" ("id", "created_date", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."created_date", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "supplier_evaluation_role_users_history_write" AFTER INSERT OR UPDATE OR DELETE ON "supplier_evaluation_role_users" FOR EACH ROW EXECUTE FUNCTION "supplier_evaluation_role_users_history_write"();
CREATE VIEW "mdg_past"."supplier_evaluation_role_users" AS SELECT "id", "created_date", "modified_date", "version" FROM "supplier_evaluation_role_users_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- supplier_types
CREATE TABLE "supplier_types_history" (LIKE "supplier_types") WITH (fillfactor = 80);
ALTER TABLE "supplier_types_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "supplier_types_history_0" ON "supplier_types_history" ("id", "valid_from");
INSERT INTO "supplier_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "is_emergency_number_required", "request_certificates", "modified_date", "version", "valid_from", "valid_to") SELECT "id", "description_nl", "description_fr", "description_en", "description_de", "is_emergency_number_required", "request_certificates", "modified_date", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "supplier_types";
CREATE FUNCTION "supplier_types_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "supplier_types_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_types_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "supplier_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "is_emergency_number_required", "request_certificates", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."is_emergency_number_required", NEW."request_certificates", NEW."modified_date", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "supplier_types_history_write" AFTER INSERT OR UPDATE OR DELETE ON "supplier_types" FOR EACH ROW EXECUTE FUNCTION "supplier_types_history_write"();
CREATE VIEW "mdg_past"."supplier_types" AS SELECT "id", "description_nl", "description_fr", "description_en", "description_de", "is_emergency_number_required", "request_certificates", "modified_date", "version" FROM "supplier_types_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- suppliers
CREATE TABLE "suppliers_history" (LIKE "suppliers") WITH (fillfactor = 80);
ALTER TABLE "suppliers_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "suppliers_history_0" ON "suppliers_history" ("id", "valid_from");
CREATE INDEX "suppliers_history_1" ON "suppliers_history" ("address_id");
CREATE INDEX "suppliers_history_2" ON "suppliers_history" ("key_user_id");
CREATE INDEX "suppliers_history_3" ON "suppliers_history" ("buyer_id");
CREATE INDEX "suppliers_history_4" ON "suppliers_history" ("currency_id");
INSERT INTO "suppliers_history" ("id", "reference", "name", "is_active", "is_receival_vat_exclusive", "currency_text", "gln", "is_emergency_number_mandatory", "emergency_number", "emergency_contact", "email", "phone", "fax", "modified_date", "currency_id", "buyer_id", "key_user_id", "address_id", "version", "valid_from", "valid_to") SELECT "id", "reference", "name", "is_active", "is_receival_vat_exclusive", "currency_text", "gln", "is_emergency_number_mandatory", "emergency_number", "emergency_contact", "email", "phone", "fax", "modified_date", "currency_id", "buyer_id", "key_user_id", "address_id", "version", write_instant(), '9999-12-31T00:00:00.000' FROM "suppliers";
CREATE FUNCTION "suppliers_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "suppliers_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "suppliers_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "suppliers_history" ("id", "reference", "name", "is_active", "is_receival_vat_exclusive", "currency_text", "gln", "is_emergency_number_mandatory", "emergency_number", "emergency_contact", "email", "phone", "fax", "modified_date", "currency_id", "buyer_id", "key_user_id", "address_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."name", NEW."is_active", NEW."is_receival_vat_exclusive", NEW."currency_text", NEW."gln", NEW."is_emergency_number_mandatory", NEW."emergency_number", NEW."emergency_contact", NEW."email", NEW."phone", NEW."fax", NEW."modified_date", NEW."currency_id", NEW."buyer_id", NEW."key_user_id", NEW."address_id", NEW."version", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "suppliers_history_write" AFTER INSERT OR UPDATE OR DELETE ON "suppliers" FOR EACH ROW EXECUTE FUNCTION "suppliers_history_write"();
CREATE VIEW "mdg_past"."suppliers" AS SELECT "id", "reference", "name", "is_active", "is_receival_vat_exclusive", "currency_text", "gln", "is_emergency_number_mandatory", "emergency_number", "emergency_contact", "email", "phone", "fax", "modified_date", "currency_id", "buyer_id", "key_user_id", "address_id", "version" FROM "suppliers_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- customer_commercial_resolve_responsible_users
CREATE TABLE "customer_commercial_resolve_responsible_users_history" (LIKE "customer_commercial_resolve_responsible_users") WITH (fillfactor = 80);
ALTER TABLE "customer_commercial_resolve_responsible_users_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "customer_commercial_resolve_responsible_users_history_0" ON "customer_commercial_resolve_responsible_users_history" ("customer_id", "user_id", "valid_from");
CREATE INDEX "customer_commercial_resolve_responsible_users_history_1" ON "customer_commercial_resolve_responsible_users_history" ("user_id");
CREATE INDEX "customer_commercial_resolve_responsible_users_history_2" ON "customer_commercial_resolve_responsible_users_history" ("customer_id", "user_id");
INSERT INTO "customer_commercial_resolve_responsible_users_history" ("customer_id", "user_id", "valid_from", "valid_to") SELECT "customer_id", "user_id", write_instant(), '9999-12-31T00:00:00.000' FROM "customer_commercial_resolve_responsible_users";
CREATE FUNCTION "customer_commercial_resolve_responsible_users_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "customer_commercial_resolve_responsible_users_history" SET "valid_to" = write_instant() WHERE "customer_id" = OLD."customer_id" AND "user_id" = OLD."user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_commercial_resolve_responsible_users_history" WHERE "customer_id" = OLD."customer_id" AND "user_id" = OLD."user_id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "customer_commercial_resolve_responsible_users_history" ("customer_id", "user_id", "valid_from", "valid_to") VALUES (NEW."customer_id", NEW."user_id", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "customer_commercial_resolve_responsible_users_history_write" AFTER INSERT OR UPDATE OR DELETE ON "customer_commercial_resolve_responsible_users" FOR EACH ROW EXECUTE FUNCTION "customer_commercial_resolve_responsible_users_history_write"();
CREATE VIEW "mdg_past"."customer_commercial_resolve_responsible_users" AS SELECT "customer_id", "user_id" FROM "customer_commercial_resolve_responsible_users_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- customer_inform_on_complaint_users
CREATE TABLE "customer_inform_on_complaint_users_history" (LIKE "customer_inform_on_complaint_users") WITH (fillfactor = 80);
ALTER TABLE "customer_inform_on_complaint_users_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "customer_inform_on_complaint_users_history_0" ON "customer_inform_on_complaint_users_history" ("customer_id", "user_id", "valid_from");
CREATE INDEX "customer_inform_on_complaint_users_history_1" ON "customer_inform_on_complaint_users_history" ("user_id");
CREATE INDEX "customer_inform_on_complaint_users_history_2" ON "customer_inform_on_complaint_users_history" ("customer_id", "user_id");
INSERT INTO "customer_inform_on_complaint_users_history" ("customer_id", "user_id", "valid_from", "valid_to") SELECT "customer_id", "user_id", write_instant(), '9999-12-31T00:00:00.000' FROM "customer_inform_on_complaint_users";
CREATE FUNCTION "customer_inform_on_complaint_users_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "customer_inform_on_complaint_users_history" SET "valid_to" = write_instant() WHERE "customer_id" = OLD."customer_id" AND "user_id" = OLD."user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_inform_on_complaint_users_history" WHERE "customer_id" = OLD."customer_id" AND "user_id" = OLD."user_id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "customer_inform_on_complaint_users_history" ("customer_id", "user_id", "valid_from", "valid_to") VALUES (NEW."customer_id", NEW."user_id", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "customer_inform_on_complaint_users_history_write" AFTER INSERT OR UPDATE OR DELETE ON "customer_inform_on_complaint_users" FOR EACH ROW EXECUTE FUNCTION "customer_inform_on_complaint_users_history_write"();
CREATE VIEW "mdg_past"."customer_inform_on_complaint_users" AS SELECT "customer_id", "user_id" FROM "customer_inform_on_complaint_users_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- customer_inform_on_complaint_functions
CREATE TABLE "customer_inform_on_complaint_functions_history" (LIKE "customer_inform_on_complaint_functions") WITH (fillfactor = 80);
ALTER TABLE "customer_inform_on_complaint_functions_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "customer_inform_on_complaint_functions_history_0" ON "customer_inform_on_complaint_functions_history" ("customer_id", "function_corporate_group_id", "valid_from");
CREATE INDEX "customer_inform_on_complaint_functions_history_1" ON "customer_inform_on_complaint_functions_history" ("function_corporate_group_id");
CREATE INDEX "customer_inform_on_complaint_functions_history_2" ON "customer_inform_on_complaint_functions_history" ("customer_id", "function_corporate_group_id");
INSERT INTO "customer_inform_on_complaint_functions_history" ("customer_id", "function_corporate_group_id", "valid_from", "valid_to") SELECT "customer_id", "function_corporate_group_id", write_instant(), '9999-12-31T00:00:00.000' FROM "customer_inform_on_complaint_functions";
CREATE FUNCTION "customer_inform_on_complaint_functions_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "customer_inform_on_complaint_functions_history" SET "valid_to" = write_instant() WHERE "customer_id" = OLD."customer_id" AND "function_corporate_group_id" = OLD."function_corporate_group_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_inform_on_complaint_functions_history" WHERE "customer_id" = OLD."customer_id" AND "function_corporate_group_id" = OLD."function_corporate_group_id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "customer_inform_on_complaint_functions_history" ("customer_id", "function_corporate_group_id", "valid_from", "valid_to") VALUES (NEW."customer_id", NEW."function_corporate_group_id", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "customer_inform_on_complaint_functions_history_write" AFTER INSERT OR UPDATE OR DELETE ON "customer_inform_on_complaint_functions" FOR EACH ROW EXECUTE FUNCTION "customer_inform_on_complaint_functions_history_write"();
CREATE VIEW "mdg_past"."customer_inform_on_complaint_functions" AS SELECT "customer_id", "function_corporate_group_id" FROM "customer_inform_on_complaint_functions_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- supplier_supplier_types
CREATE TABLE "supplier_supplier_types_history" (LIKE "supplier_supplier_types") WITH (fillfactor = 80);
ALTER TABLE "supplier_supplier_types_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "supplier_supplier_types_history_0" ON "supplier_supplier_types_history" ("supplier_id", "supplier_type_id", "valid_from");
CREATE INDEX "supplier_supplier_types_history_1" ON "supplier_supplier_types_history" ("supplier_type_id");
CREATE INDEX "supplier_supplier_types_history_2" ON "supplier_supplier_types_history" ("supplier_id", "supplier_type_id");
INSERT INTO "supplier_supplier_types_history" ("supplier_id", "supplier_type_id", "valid_from", "valid_to") SELECT "supplier_id", "supplier_type_id", write_instant(), '9999-12-31T00:00:00.000' FROM "supplier_supplier_types";
CREATE FUNCTION "supplier_supplier_types_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "supplier_supplier_types_history" SET "valid_to" = write_instant() WHERE "supplier_id" = OLD."supplier_id" AND "supplier_type_id" = OLD."supplier_type_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_supplier_types_history" WHERE "supplier_id" = OLD."supplier_id" AND "supplier_type_id" = OLD."supplier_type_id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "supplier_supplier_types_history" ("supplier_id", "supplier_type_id", "valid_from", "valid_to") VALUES (NEW."supplier_id", NEW."supplier_type_id", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "supplier_supplier_types_history_write" AFTER INSERT OR UPDATE OR DELETE ON "supplier_supplier_types" FOR EACH ROW EXECUTE FUNCTION "supplier_supplier_types_history_write"();
CREATE VIEW "mdg_past"."supplier_supplier_types" AS SELECT "supplier_id", "supplier_type_id" FROM "supplier_supplier_types_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- supplier_evaluation_role_user_links
CREATE TABLE "supplier_evaluation_role_user_links_history" (LIKE "supplier_evaluation_role_user_links") WITH (fillfactor = 80);
ALTER TABLE "supplier_evaluation_role_user_links_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "supplier_evaluation_role_user_links_history_0" ON "supplier_evaluation_role_user_links_history" ("supplier_id", "supplier_evaluation_role_user_id", "valid_from");
CREATE INDEX "supplier_evaluation_role_user_links_history_1" ON "supplier_evaluation_role_user_links_history" ("supplier_evaluation_role_user_id");
CREATE INDEX "supplier_evaluation_role_user_links_history_2" ON "supplier_evaluation_role_user_links_history" ("supplier_id", "supplier_evaluation_role_user_id");
INSERT INTO "supplier_evaluation_role_user_links_history" ("supplier_id", "supplier_evaluation_role_user_id", "valid_from", "valid_to") SELECT "supplier_id", "supplier_evaluation_role_user_id", write_instant(), '9999-12-31T00:00:00.000' FROM "supplier_evaluation_role_user_links";
CREATE FUNCTION "supplier_evaluation_role_user_links_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "supplier_evaluation_role_user_links_history" SET "valid_to" = write_instant() WHERE "supplier_id" = OLD."supplier_id" AND "supplier_evaluation_role_user_id" = OLD."supplier_evaluation_role_user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_evaluation_role_user_links_history" WHERE "supplier_id" = OLD."supplier_id" AND "supplier_evaluation_role_user_id" = OLD."supplier_evaluation_role_user_id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "supplier_evaluation_role_user_links_history" ("supplier_id", "supplier_evaluation_role_user_id", "valid_from", "valid_to") VALUES (NEW."supplier_id", NEW."supplier_evaluation_role_user_id", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "supplier_evaluation_role_user_links_history_write" AFTER INSERT OR UPDATE OR DELETE ON "supplier_evaluation_role_user_links" FOR EACH ROW EXECUTE FUNCTION "supplier_evaluation_role_user_links_history_write"();
CREATE VIEW "mdg_past"."supplier_evaluation_role_user_links" AS SELECT "supplier_id", "supplier_evaluation_role_user_id" FROM "supplier_evaluation_role_user_links_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- supplier_commercial_resolve_responsible_users
CREATE TABLE "supplier_commercial_resolve_responsible_users_history" (LIKE "supplier_commercial_resolve_responsible_users") WITH (fillfactor = 80);
ALTER TABLE "supplier_commercial_resolve_responsible_users_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "supplier_commercial_resolve_responsible_users_history_0" ON "supplier_commercial_resolve_responsible_users_history" ("supplier_id", "user_id", "valid_from");
CREATE INDEX "supplier_commercial_resolve_responsible_users_history_1" ON "supplier_commercial_resolve_responsible_users_history" ("user_id");
CREATE INDEX "supplier_commercial_resolve_responsible_users_history_2" ON "supplier_commercial_resolve_responsible_users_history" ("supplier_id", "user_id");
INSERT INTO "supplier_commercial_resolve_responsible_users_history" ("supplier_id", "user_id", "valid_from", "valid_to") SELECT "supplier_id", "user_id", write_instant(), '9999-12-31T00:00:00.000' FROM "supplier_commercial_resolve_responsible_users";
CREATE FUNCTION "supplier_commercial_resolve_responsible_users_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "supplier_commercial_resolve_responsible_users_history" SET "valid_to" = write_instant() WHERE "supplier_id" = OLD."supplier_id" AND "user_id" = OLD."user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_commercial_resolve_responsible_users_history" WHERE "supplier_id" = OLD."supplier_id" AND "user_id" = OLD."user_id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "supplier_commercial_resolve_responsible_users_history" ("supplier_id", "user_id", "valid_from", "valid_to") VALUES (NEW."supplier_id", NEW."user_id", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "supplier_commercial_resolve_responsible_users_history_write" AFTER INSERT OR UPDATE OR DELETE ON "supplier_commercial_resolve_responsible_users" FOR EACH ROW EXECUTE FUNCTION "supplier_commercial_resolve_responsible_users_history_write"();
CREATE VIEW "mdg_past"."supplier_commercial_resolve_responsible_users" AS SELECT "supplier_id", "user_id" FROM "supplier_commercial_resolve_responsible_users_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- supplier_inform_on_complaint_users
CREATE TABLE "supplier_inform_on_complaint_users_history" (LIKE "supplier_inform_on_complaint_users") WITH (fillfactor = 80);
ALTER TABLE "supplier_inform_on_complaint_users_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "supplier_inform_on_complaint_users_history_0" ON "supplier_inform_on_complaint_users_history" ("supplier_id", "user_id", "valid_from");
CREATE INDEX "supplier_inform_on_complaint_users_history_1" ON "supplier_inform_on_complaint_users_history" ("user_id");
CREATE INDEX "supplier_inform_on_complaint_users_history_2" ON "supplier_inform_on_complaint_users_history" ("supplier_id", "user_id");
INSERT INTO "supplier_inform_on_complaint_users_history" ("supplier_id", "user_id", "valid_from", "valid_to") SELECT "supplier_id", "user_id", write_instant(), '9999-12-31T00:00:00.000' FROM "supplier_inform_on_complaint_users";
CREATE FUNCTION "supplier_inform_on_complaint_users_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "supplier_inform_on_complaint_users_history" SET "valid_to" = write_instant() WHERE "supplier_id" = OLD."supplier_id" AND "user_id" = OLD."user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_inform_on_complaint_users_history" WHERE "supplier_id" = OLD."supplier_id" AND "user_id" = OLD."user_id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "supplier_inform_on_complaint_users_history" ("supplier_id", "user_id", "valid_from", "valid_to") VALUES (NEW."supplier_id", NEW."user_id", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "supplier_inform_on_complaint_users_history_write" AFTER INSERT OR UPDATE OR DELETE ON "supplier_inform_on_complaint_users" FOR EACH ROW EXECUTE FUNCTION "supplier_inform_on_complaint_users_history_write"();
CREATE VIEW "mdg_past"."supplier_inform_on_complaint_users" AS SELECT "supplier_id", "user_id" FROM "supplier_inform_on_complaint_users_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- products_search_documents
CREATE TABLE "products_search_documents_history" (LIKE "products_search_documents") WITH (fillfactor = 80);
ALTER TABLE "products_search_documents_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "products_search_documents_history_0" ON "products_search_documents_history" ("id", "valid_from");
INSERT INTO "products_search_documents_history" ("id", "document", "valid_from", "valid_to") SELECT "id", "document", write_instant(), '9999-12-31T00:00:00.000' FROM "products_search_documents";
CREATE FUNCTION "products_search_documents_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "products_search_documents_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "products_search_documents_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "products_search_documents_history" ("id", "document", "valid_from", "valid_to") VALUES (NEW."id", NEW."document", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "products_search_documents_history_write" AFTER INSERT OR UPDATE OR DELETE ON "products_search_documents" FOR EACH ROW EXECUTE FUNCTION "products_search_documents_history_write"();
CREATE VIEW "mdg_past"."products_search_documents" AS SELECT "id", "document" FROM "products_search_documents_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- customers_search_documents
CREATE TABLE "customers_search_documents_history" (LIKE "customers_search_documents") WITH (fillfactor = 80);
ALTER TABLE "customers_search_documents_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "customers_search_documents_history_0" ON "customers_search_documents_history" ("id", "valid_from");
INSERT INTO "customers_search_documents_history" ("id", "document", "valid_from", "valid_to") SELECT "id", "document", write_instant(), '9999-12-31T00:00:00.000' FROM "customers_search_documents";
CREATE FUNCTION "customers_search_documents_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "customers_search_documents_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customers_search_documents_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "customers_search_documents_history" ("id", "document", "valid_from", "valid_to") VALUES (NEW."id", NEW."document", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "customers_search_documents_history_write" AFTER INSERT OR UPDATE OR DELETE ON "customers_search_documents" FOR EACH ROW EXECUTE FUNCTION "customers_search_documents_history_write"();
CREATE VIEW "mdg_past"."customers_search_documents" AS SELECT "id", "document" FROM "customers_search_documents_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());

-- suppliers_search_documents
CREATE TABLE "suppliers_search_documents_history" (LIKE "suppliers_search_documents") WITH (fillfactor = 80);
ALTER TABLE "suppliers_search_documents_history" ADD COLUMN "valid_from" TIMESTAMP(3) NOT NULL, ADD COLUMN "valid_to" TIMESTAMP(3) NOT NULL;
CREATE INDEX "suppliers_search_documents_history_0" ON "suppliers_search_documents_history" ("id", "valid_from");
INSERT INTO "suppliers_search_documents_history" ("id", "document", "valid_from", "valid_to") SELECT "id", "document", write_instant(), '9999-12-31T00:00:00.000' FROM "suppliers_search_documents";
CREATE FUNCTION "suppliers_search_documents_history_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "suppliers_search_documents_history" SET "valid_to" = write_instant() WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "suppliers_search_documents_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000';
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "suppliers_search_documents_history" ("id", "document", "valid_from", "valid_to") VALUES (NEW."id", NEW."document", write_instant(), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "suppliers_search_documents_history_write" AFTER INSERT OR UPDATE OR DELETE ON "suppliers_search_documents" FOR EACH ROW EXECUTE FUNCTION "suppliers_search_documents_history_write"();
CREATE VIEW "mdg_past"."suppliers_search_documents" AS SELECT "id", "document" FROM "suppliers_search_documents_history" WHERE "valid_from" <= (SELECT as_of_instant()) AND "valid_to" > (SELECT as_of_instant());
