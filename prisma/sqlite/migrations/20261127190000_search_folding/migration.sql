-- Search folds alike on both databases (src/db/search-fold.ts): ß and ẞ as ss, æ, œ, ø, ĳ and the
-- ligatures ﬁ, ﬂ ... as the letters a person types, accents removed, and a word holding ä, ö, ü, å
-- or ø indexed a second time as written with ae, oe, ue, aa, oe ("Müller" as muller and mueller).
--
-- The FTS5 tables of *_search_indexes folded with their own tokenizer ("unicode61
-- remove_diacritics 2"), which knows no ß, no ligature and no second spelling, and folds other
-- letters than PostgreSQL does (Greek accents, ſ, ǣ ...). They are made again, without content of
-- their own (contentless_delete: a row's entry is deleted by its rowid), one column per weight of
-- src/query/search.ts (bm25's weights follow them), each holding the words of its columns as the
-- function search_fold() folds them: a JavaScript function that every connection of the service
-- registers (src/db/sqlite-functions.ts), the same that folds a search's words. The tokenizer
-- "ascii" splits at spaces and ASCII punctuation only and lowers ASCII letters only: it takes
-- those words as they are. A connection without search_fold() (the sqlite3 shell) can read these
-- tables but cannot insert, update or delete products, customers or suppliers.
--
-- Dropping a virtual table drops its shadow tables; dropping the old triggers first keeps no
-- trigger that writes to a table that is gone. Every row is indexed again below.

-- products
DROP TRIGGER "products_search_insert";
DROP TRIGGER "products_search_delete";
DROP TRIGGER "products_search_update";
DROP TABLE "products_search";

CREATE VIRTUAL TABLE "products_search" USING fts5(
  "key", "names", "legal_names",
  content = '', contentless_delete = 1, tokenize = 'ascii'
);

CREATE TRIGGER "products_search_insert" AFTER INSERT ON "products" BEGIN
  INSERT INTO "products_search" ("rowid", "key", "names", "legal_names") VALUES (new."id", search_fold(new."reference", new."gtin"), search_fold(new."name_nl", new."name_fr", new."name_en", new."name_de"), search_fold(new."legal_name_nl", new."legal_name_fr", new."legal_name_en", new."legal_name_de"));
END;

CREATE TRIGGER "products_search_delete" AFTER DELETE ON "products" BEGIN
  DELETE FROM "products_search" WHERE "rowid" = old."id";
END;

CREATE TRIGGER "products_search_update" AFTER UPDATE OF "id", "reference", "gtin", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de" ON "products"
WHEN old."id" IS NOT new."id" OR old."reference" IS NOT new."reference" OR old."gtin" IS NOT new."gtin" OR old."name_nl" IS NOT new."name_nl" OR old."name_fr" IS NOT new."name_fr" OR old."name_en" IS NOT new."name_en" OR old."name_de" IS NOT new."name_de" OR old."legal_name_nl" IS NOT new."legal_name_nl" OR old."legal_name_fr" IS NOT new."legal_name_fr" OR old."legal_name_en" IS NOT new."legal_name_en" OR old."legal_name_de" IS NOT new."legal_name_de" BEGIN
  DELETE FROM "products_search" WHERE "rowid" = old."id";
  INSERT INTO "products_search" ("rowid", "key", "names", "legal_names") VALUES (new."id", search_fold(new."reference", new."gtin"), search_fold(new."name_nl", new."name_fr", new."name_en", new."name_de"), search_fold(new."legal_name_nl", new."legal_name_fr", new."legal_name_en", new."legal_name_de"));
END;

INSERT INTO "products_search" ("rowid", "key", "names", "legal_names") SELECT "id", search_fold("reference", "gtin"), search_fold("name_nl", "name_fr", "name_en", "name_de"), search_fold("legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de") FROM "products";

-- customers
DROP TRIGGER "customers_search_insert";
DROP TRIGGER "customers_search_delete";
DROP TRIGGER "customers_search_update";
DROP TABLE "customers_search";

CREATE VIRTUAL TABLE "customers_search" USING fts5(
  "key", "names", "contacts",
  content = '', contentless_delete = 1, tokenize = 'ascii'
);

CREATE TRIGGER "customers_search_insert" AFTER INSERT ON "customers" BEGIN
  INSERT INTO "customers_search" ("rowid", "key", "names", "contacts") VALUES (new."id", search_fold(new."reference"), search_fold(new."name", new."alt_name"), search_fold(new."contact", new."email", new."emergency_contact"));
END;

CREATE TRIGGER "customers_search_delete" AFTER DELETE ON "customers" BEGIN
  DELETE FROM "customers_search" WHERE "rowid" = old."id";
END;

CREATE TRIGGER "customers_search_update" AFTER UPDATE OF "id", "reference", "name", "alt_name", "contact", "email", "emergency_contact" ON "customers"
WHEN old."id" IS NOT new."id" OR old."reference" IS NOT new."reference" OR old."name" IS NOT new."name" OR old."alt_name" IS NOT new."alt_name" OR old."contact" IS NOT new."contact" OR old."email" IS NOT new."email" OR old."emergency_contact" IS NOT new."emergency_contact" BEGIN
  DELETE FROM "customers_search" WHERE "rowid" = old."id";
  INSERT INTO "customers_search" ("rowid", "key", "names", "contacts") VALUES (new."id", search_fold(new."reference"), search_fold(new."name", new."alt_name"), search_fold(new."contact", new."email", new."emergency_contact"));
END;

INSERT INTO "customers_search" ("rowid", "key", "names", "contacts") SELECT "id", search_fold("reference"), search_fold("name", "alt_name"), search_fold("contact", "email", "emergency_contact") FROM "customers";

-- suppliers
DROP TRIGGER "suppliers_search_insert";
DROP TRIGGER "suppliers_search_delete";
DROP TRIGGER "suppliers_search_update";
DROP TABLE "suppliers_search";

CREATE VIRTUAL TABLE "suppliers_search" USING fts5(
  "key", "names", "contacts",
  content = '', contentless_delete = 1, tokenize = 'ascii'
);

CREATE TRIGGER "suppliers_search_insert" AFTER INSERT ON "suppliers" BEGIN
  INSERT INTO "suppliers_search" ("rowid", "key", "names", "contacts") VALUES (new."id", search_fold(new."reference", new."gln"), search_fold(new."name"), search_fold(new."emergency_contact", new."email"));
END;

CREATE TRIGGER "suppliers_search_delete" AFTER DELETE ON "suppliers" BEGIN
  DELETE FROM "suppliers_search" WHERE "rowid" = old."id";
END;

CREATE TRIGGER "suppliers_search_update" AFTER UPDATE OF "id", "reference", "gln", "name", "emergency_contact", "email" ON "suppliers"
WHEN old."id" IS NOT new."id" OR old."reference" IS NOT new."reference" OR old."gln" IS NOT new."gln" OR old."name" IS NOT new."name" OR old."emergency_contact" IS NOT new."emergency_contact" OR old."email" IS NOT new."email" BEGIN
  DELETE FROM "suppliers_search" WHERE "rowid" = old."id";
  INSERT INTO "suppliers_search" ("rowid", "key", "names", "contacts") VALUES (new."id", search_fold(new."reference", new."gln"), search_fold(new."name"), search_fold(new."emergency_contact", new."email"));
END;

INSERT INTO "suppliers_search" ("rowid", "key", "names", "contacts") SELECT "id", search_fold("reference", "gln"), search_fold("name"), search_fold("emergency_contact", "email") FROM "suppliers";
