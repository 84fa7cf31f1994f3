-- Full-text search over products, customers and suppliers (src/query/search.ts).
--
-- One FTS5 table per type, with external content (the base table holds the text; the index only
-- its terms), folding case and accents ("unicode61 remove_diacritics 2") and splitting on every
-- character that is not a letter or digit, as searchWords() does. Triggers keep it in step with
-- the base table; the update trigger fires only when a searched column changes. A later migration
-- that redefines one of these tables (Prisma's DROP TABLE / RENAME for SQLite) drops its
-- triggers: it must create them again and rebuild the index.

-- products
CREATE VIRTUAL TABLE "products_search" USING fts5(
  "reference", "gtin", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de",
  content = 'products', content_rowid = 'id', tokenize = "unicode61 remove_diacritics 2"
);

CREATE TRIGGER "products_search_insert" AFTER INSERT ON "products" BEGIN
  INSERT INTO "products_search" ("rowid", "reference", "gtin", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de") VALUES (new."id", new."reference", new."gtin", new."name_nl", new."name_fr", new."name_en", new."name_de", new."legal_name_nl", new."legal_name_fr", new."legal_name_en", new."legal_name_de");
END;

CREATE TRIGGER "products_search_delete" AFTER DELETE ON "products" BEGIN
  INSERT INTO "products_search" ("products_search", "rowid", "reference", "gtin", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de") VALUES ('delete', old."id", old."reference", old."gtin", old."name_nl", old."name_fr", old."name_en", old."name_de", old."legal_name_nl", old."legal_name_fr", old."legal_name_en", old."legal_name_de");
END;

CREATE TRIGGER "products_search_update" AFTER UPDATE OF "id", "reference", "gtin", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de" ON "products"
WHEN old."id" IS NOT new."id" OR old."reference" IS NOT new."reference" OR old."gtin" IS NOT new."gtin" OR old."name_nl" IS NOT new."name_nl" OR old."name_fr" IS NOT new."name_fr" OR old."name_en" IS NOT new."name_en" OR old."name_de" IS NOT new."name_de" OR old."legal_name_nl" IS NOT new."legal_name_nl" OR old."legal_name_fr" IS NOT new."legal_name_fr" OR old."legal_name_en" IS NOT new."legal_name_en" OR old."legal_name_de" IS NOT new."legal_name_de" BEGIN
  INSERT INTO "products_search" ("products_search", "rowid", "reference", "gtin", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de") VALUES ('delete', old."id", old."reference", old."gtin", old."name_nl", old."name_fr", old."name_en", old."name_de", old."legal_name_nl", old."legal_name_fr", old."legal_name_en", old."legal_name_de");
  INSERT INTO "products_search" ("rowid", "reference", "gtin", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de") VALUES (new."id", new."reference", new."gtin", new."name_nl", new."name_fr", new."name_en", new."name_de", new."legal_name_nl", new."legal_name_fr", new."legal_name_en", new."legal_name_de");
END;

INSERT INTO "products_search" ("products_search") VALUES ('rebuild');

-- customers
CREATE VIRTUAL TABLE "customers_search" USING fts5(
  "reference", "name", "alt_name", "contact", "email", "emergency_contact",
  content = 'customers', content_rowid = 'id', tokenize = "unicode61 remove_diacritics 2"
);

CREATE TRIGGER "customers_search_insert" AFTER INSERT ON "customers" BEGIN
  INSERT INTO "customers_search" ("rowid", "reference", "name", "alt_name", "contact", "email", "emergency_contact") VALUES (new."id", new."reference", new."name", new."alt_name", new."contact", new."email", new."emergency_contact");
END;

CREATE TRIGGER "customers_search_delete" AFTER DELETE ON "customers" BEGIN
  INSERT INTO "customers_search" ("customers_search", "rowid", "reference", "name", "alt_name", "contact", "email", "emergency_contact") VALUES ('delete', old."id", old."reference", old."name", old."alt_name", old."contact", old."email", old."emergency_contact");
END;

CREATE TRIGGER "customers_search_update" AFTER UPDATE OF "id", "reference", "name", "alt_name", "contact", "email", "emergency_contact" ON "customers"
WHEN old."id" IS NOT new."id" OR old."reference" IS NOT new."reference" OR old."name" IS NOT new."name" OR old."alt_name" IS NOT new."alt_name" OR old."contact" IS NOT new."contact" OR old."email" IS NOT new."email" OR old."emergency_contact" IS NOT new."emergency_contact" BEGIN
  INSERT INTO "customers_search" ("customers_search", "rowid", "reference", "name", "alt_name", "contact", "email", "emergency_contact") VALUES ('delete', old."id", old."reference", old."name", old."alt_name", old."contact", old."email", old."emergency_contact");
  INSERT INTO "customers_search" ("rowid", "reference", "name", "alt_name", "contact", "email", "emergency_contact") VALUES (new."id", new."reference", new."name", new."alt_name", new."contact", new."email", new."emergency_contact");
END;

INSERT INTO "customers_search" ("customers_search") VALUES ('rebuild');

-- suppliers
CREATE VIRTUAL TABLE "suppliers_search" USING fts5(
  "reference", "gln", "name", "emergency_contact", "email",
  content = 'suppliers', content_rowid = 'id', tokenize = "unicode61 remove_diacritics 2"
);

CREATE TRIGGER "suppliers_search_insert" AFTER INSERT ON "suppliers" BEGIN
  INSERT INTO "suppliers_search" ("rowid", "reference", "gln", "name", "emergency_contact", "email") VALUES (new."id", new."reference", new."gln", new."name", new."emergency_contact", new."email");
END;

CREATE TRIGGER "suppliers_search_delete" AFTER DELETE ON "suppliers" BEGIN
  INSERT INTO "suppliers_search" ("suppliers_search", "rowid", "reference", "gln", "name", "emergency_contact", "email") VALUES ('delete', old."id", old."reference", old."gln", old."name", old."emergency_contact", old."email");
END;

CREATE TRIGGER "suppliers_search_update" AFTER UPDATE OF "id", "reference", "gln", "name", "emergency_contact", "email" ON "suppliers"
WHEN old."id" IS NOT new."id" OR old."reference" IS NOT new."reference" OR old."gln" IS NOT new."gln" OR old."name" IS NOT new."name" OR old."emergency_contact" IS NOT new."emergency_contact" OR old."email" IS NOT new."email" BEGIN
  INSERT INTO "suppliers_search" ("suppliers_search", "rowid", "reference", "gln", "name", "emergency_contact", "email") VALUES ('delete', old."id", old."reference", old."gln", old."name", old."emergency_contact", old."email");
  INSERT INTO "suppliers_search" ("rowid", "reference", "gln", "name", "emergency_contact", "email") VALUES (new."id", new."reference", new."gln", new."name", new."emergency_contact", new."email");
END;

INSERT INTO "suppliers_search" ("suppliers_search") VALUES ('rebuild');
