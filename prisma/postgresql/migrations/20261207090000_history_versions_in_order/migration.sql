-- A row's versions follow each other in time whatever order their writes began in: a write that
-- began before another's instant and waited for its lock (a scheduled change request holds the rows
-- it writes until its instant, src/change-requests/scheduler.ts) closes the version before it no
-- earlier than that version began, and its own begins there. Before, such a write closed the version
-- with an instant before its start (a version valid for a negative time) and left the one before it
-- open too: as of an instant between the two, a row read twice.
CREATE OR REPLACE FUNCTION public.addresses_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "addresses_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "addresses_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "addresses_history" ("id", "line_1", "line_2", "postal_code", "city", "state", "country_code", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."line_1", NEW."line_2", NEW."postal_code", NEW."city", NEW."state", NEW."country_code", NEW."modified_date", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.brands_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "brands_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "brands_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "brands_history" ("id", "reference", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."modified_date", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.currencies_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "currencies_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "currencies_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "currencies_history" ("id", "symbol", "alpha_3_code", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."symbol", NEW."alpha_3_code", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.customer_commercial_resolve_responsible_users_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "customer_commercial_resolve_responsible_users_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "customer_id" = OLD."customer_id" AND "user_id" = OLD."user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_commercial_resolve_responsible_users_history" WHERE "customer_id" = OLD."customer_id" AND "user_id" = OLD."user_id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "customer_commercial_resolve_responsible_users_history" ("customer_id", "user_id", "valid_from", "valid_to") VALUES (NEW."customer_id", NEW."user_id", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.customer_inform_on_complaint_functions_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "customer_inform_on_complaint_functions_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "customer_id" = OLD."customer_id" AND "function_corporate_group_id" = OLD."function_corporate_group_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_inform_on_complaint_functions_history" WHERE "customer_id" = OLD."customer_id" AND "function_corporate_group_id" = OLD."function_corporate_group_id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "customer_inform_on_complaint_functions_history" ("customer_id", "function_corporate_group_id", "valid_from", "valid_to") VALUES (NEW."customer_id", NEW."function_corporate_group_id", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.customer_inform_on_complaint_users_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "customer_inform_on_complaint_users_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "customer_id" = OLD."customer_id" AND "user_id" = OLD."user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_inform_on_complaint_users_history" WHERE "customer_id" = OLD."customer_id" AND "user_id" = OLD."user_id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "customer_inform_on_complaint_users_history" ("customer_id", "user_id", "valid_from", "valid_to") VALUES (NEW."customer_id", NEW."user_id", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.customer_products_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "customer_products_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_products_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "customer_products_history" ("id", "external_reference", "external_product_name", "customer_id", "product_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."external_reference", NEW."external_product_name", NEW."customer_id", NEW."product_id", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.customer_types_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "customer_types_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customer_types_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "customer_types_history" ("id", "reference", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."import_reference", NEW."name_nl", NEW."name_fr", NEW."name_en", NEW."name_de", NEW."modified_date", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.customers_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "customers_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customers_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "customers_history" ("id", "reference", "name", "alt_name", "contact", "email", "phone", "fax", "is_prospect", "is_active", "emergency_phone_nr", "emergency_contact", "credit_limit_used", "expired_invoices_total", "modified_date", "customer_type_id", "language_id", "currency_id", "account_manager_id", "customer_service_manager_id", "address_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."name", NEW."alt_name", NEW."contact", NEW."email", NEW."phone", NEW."fax", NEW."is_prospect", NEW."is_active", NEW."emergency_phone_nr", NEW."emergency_contact", NEW."credit_limit_used", NEW."expired_invoices_total", NEW."modified_date", NEW."customer_type_id", NEW."language_id", NEW."currency_id", NEW."account_manager_id", NEW."customer_service_manager_id", NEW."address_id", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.customers_search_documents_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "customers_search_documents_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "customers_search_documents_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "customers_search_documents_history" ("id", "document", "valid_from", "valid_to") VALUES (NEW."id", NEW."document", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.function_corporate_groups_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "function_corporate_groups_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "function_corporate_groups_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "function_corporate_groups_history" ("id", "reference", "name", "import_reference", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."name", NEW."import_reference", NEW."modified_date", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.languages_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "languages_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "languages_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "languages_history" ("id", "description", "alpha_2_code", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description", NEW."alpha_2_code", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.product_group_types_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "product_group_types_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_group_types_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "product_group_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.product_groups_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "product_groups_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_groups_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "product_groups_history" ("id", "is_active", "description_nl", "description_fr", "description_en", "description_de", "import_reference", "inform_days_bbd", "allow_only_one_unit", "remark", "label_color", "transport_packaging_settings_remove_stock_when_picked", "transport_packaging_settings_rounding", "modified_date", "type_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."is_active", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."import_reference", NEW."inform_days_bbd", NEW."allow_only_one_unit", NEW."remark", NEW."label_color", NEW."transport_packaging_settings_remove_stock_when_picked", NEW."transport_packaging_settings_rounding", NEW."modified_date", NEW."type_id", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.product_structure_item_calculation_methods_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "product_structure_item_calculation_methods_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_structure_item_calculation_methods_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "product_structure_item_calculation_methods_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.product_structure_item_types_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "product_structure_item_types_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_structure_item_types_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "product_structure_item_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.product_structure_items_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "product_structure_items_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_structure_items_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "product_structure_items_history" ("id", "net_quantity", "gross_quantity", "loss_percentage", "is_phantom", "is_processing_agent", "skip_grain_component_calculation", "modified_date", "product_structure_id", "product_id", "unit_id", "type_id", "calculation_method_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."net_quantity", NEW."gross_quantity", NEW."loss_percentage", NEW."is_phantom", NEW."is_processing_agent", NEW."skip_grain_component_calculation", NEW."modified_date", NEW."product_structure_id", NEW."product_id", NEW."unit_id", NEW."type_id", NEW."calculation_method_id", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.product_structures_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "product_structures_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "product_structures_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "product_structures_history" ("id", "quantity", "modified_date", "product_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."quantity", NEW."modified_date", NEW."product_id", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.production_lines_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "production_lines_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "production_lines_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "production_lines_history" ("id", "reference", "is_active", "import_reference", "name_nl", "name_fr", "name_en", "name_de", "barcode", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."is_active", NEW."import_reference", NEW."name_nl", NEW."name_fr", NEW."name_en", NEW."name_de", NEW."barcode", NEW."modified_date", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.products_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "products_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "products_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "products_history" ("id", "reference", "is_active", "is_sales", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de", "gtin", "intrastat_code", "gross_weight_in_kilogram", "net_weight_in_kilogram", "drained_weight_in_kilogram", "production_efficiency_per_hour", "production_report_type_component", "production_report_type_byprod", "product_structure_quantity", "is_lotcontrolled", "nlc", "shelf_life_value", "shelf_life_interval", "price_basic_unit_ex_vat", "consumer_price", "deposit_price", "modified_date", "unit_id", "product_group_id", "brand_id", "production_line_id", "preferred_supplier_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."is_active", NEW."is_sales", NEW."name_nl", NEW."name_fr", NEW."name_en", NEW."name_de", NEW."legal_name_nl", NEW."legal_name_fr", NEW."legal_name_en", NEW."legal_name_de", NEW."gtin", NEW."intrastat_code", NEW."gross_weight_in_kilogram", NEW."net_weight_in_kilogram", NEW."drained_weight_in_kilogram", NEW."production_efficiency_per_hour", NEW."production_report_type_component", NEW."production_report_type_byprod", NEW."product_structure_quantity", NEW."is_lotcontrolled", NEW."nlc", NEW."shelf_life_value", NEW."shelf_life_interval", NEW."price_basic_unit_ex_vat", NEW."consumer_price", NEW."deposit_price", NEW."modified_date", NEW."unit_id", NEW."product_group_id", NEW."brand_id", NEW."production_line_id", NEW."preferred_supplier_id", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.products_search_documents_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "products_search_documents_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "products_search_documents_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "products_search_documents_history" ("id", "document", "valid_from", "valid_to") VALUES (NEW."id", NEW."document", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.supplier_commercial_resolve_responsible_users_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "supplier_commercial_resolve_responsible_users_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "supplier_id" = OLD."supplier_id" AND "user_id" = OLD."user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_commercial_resolve_responsible_users_history" WHERE "supplier_id" = OLD."supplier_id" AND "user_id" = OLD."user_id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "supplier_commercial_resolve_responsible_users_history" ("supplier_id", "user_id", "valid_from", "valid_to") VALUES (NEW."supplier_id", NEW."user_id", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.supplier_evaluation_role_user_links_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "supplier_evaluation_role_user_links_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "supplier_id" = OLD."supplier_id" AND "supplier_evaluation_role_user_id" = OLD."supplier_evaluation_role_user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_evaluation_role_user_links_history" WHERE "supplier_id" = OLD."supplier_id" AND "supplier_evaluation_role_user_id" = OLD."supplier_evaluation_role_user_id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "supplier_evaluation_role_user_links_history" ("supplier_id", "supplier_evaluation_role_user_id", "valid_from", "valid_to") VALUES (NEW."supplier_id", NEW."supplier_evaluation_role_user_id", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.supplier_evaluation_role_users_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "supplier_evaluation_role_users_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_evaluation_role_users_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "supplier_evaluation_role_users_history" ("id", "created_date", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."created_date", NEW."modified_date", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.supplier_inform_on_complaint_users_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "supplier_inform_on_complaint_users_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "supplier_id" = OLD."supplier_id" AND "user_id" = OLD."user_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_inform_on_complaint_users_history" WHERE "supplier_id" = OLD."supplier_id" AND "user_id" = OLD."user_id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "supplier_inform_on_complaint_users_history" ("supplier_id", "user_id", "valid_from", "valid_to") VALUES (NEW."supplier_id", NEW."user_id", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.supplier_supplier_types_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "supplier_supplier_types_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "supplier_id" = OLD."supplier_id" AND "supplier_type_id" = OLD."supplier_type_id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_supplier_types_history" WHERE "supplier_id" = OLD."supplier_id" AND "supplier_type_id" = OLD."supplier_type_id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "supplier_supplier_types_history" ("supplier_id", "supplier_type_id", "valid_from", "valid_to") VALUES (NEW."supplier_id", NEW."supplier_type_id", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.supplier_types_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "supplier_types_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "supplier_types_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "supplier_types_history" ("id", "description_nl", "description_fr", "description_en", "description_de", "is_emergency_number_required", "request_certificates", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."is_emergency_number_required", NEW."request_certificates", NEW."modified_date", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.suppliers_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "suppliers_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "suppliers_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "suppliers_history" ("id", "reference", "name", "is_active", "is_receival_vat_exclusive", "currency_text", "gln", "is_emergency_number_mandatory", "emergency_number", "emergency_contact", "email", "phone", "fax", "modified_date", "currency_id", "buyer_id", "key_user_id", "address_id", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."name", NEW."is_active", NEW."is_receival_vat_exclusive", NEW."currency_text", NEW."gln", NEW."is_emergency_number_mandatory", NEW."emergency_number", NEW."emergency_contact", NEW."email", NEW."phone", NEW."fax", NEW."modified_date", NEW."currency_id", NEW."buyer_id", NEW."key_user_id", NEW."address_id", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.suppliers_search_documents_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "suppliers_search_documents_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "suppliers_search_documents_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "suppliers_search_documents_history" ("id", "document", "valid_from", "valid_to") VALUES (NEW."id", NEW."document", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.units_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "units_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "units_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "units_history" ("id", "reference", "description_nl", "description_fr", "description_en", "description_de", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."reference", NEW."description_nl", NEW."description_fr", NEW."description_en", NEW."description_de", NEW."modified_date", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public.users_history_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "users_history" SET "valid_to" = GREATEST(write_instant(), "valid_from") WHERE "id" = OLD."id" AND "valid_from" = (SELECT MAX("valid_from") FROM "users_history" WHERE "id" = OLD."id") AND "valid_to" = '9999-12-31T00:00:00.000' RETURNING "valid_to" INTO since;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "users_history" ("id", "username", "modified_date", "version", "valid_from", "valid_to") VALUES (NEW."id", NEW."username", NEW."modified_date", NEW."version", COALESCE(since, write_instant()), '9999-12-31T00:00:00.000');
  END IF;
  RETURN NULL;
END $$;
