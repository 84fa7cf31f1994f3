-- Full-text search over products, customers and suppliers (src/query/search.ts).
--
-- Per type, a side table <type>_search_documents ("id", "document"): the row's search document,
-- a tsvector (configuration 'simple': no stemming, no stop words) of the searched columns folded
-- by search_fold(), computed by <type>_search_document(<searched columns>), with a GIN index on
-- "document". Stored, so that ranking a match reads its document rather than computing it again
-- (about 45 us a row: seconds for a word that most of 100,000 products match, where reading the
-- stored document takes a fraction of that). A side table rather than a column of the base
-- table: the base table keeps only the columns Prisma knows (its PostgreSQL driver adapter cannot
-- read a tsvector, and `SELECT *` on it must keep working), and an update that changes no
-- searched column neither computes a document nor touches the search index.
--
-- Triggers keep it in step: AFTER INSERT writes the new row's document; AFTER UPDATE, only when a
-- searched column changed (WHEN), writes it again; deleting the base row deletes it (ON DELETE
-- CASCADE), a changed id follows (ON UPDATE CASCADE). The trigger functions are PL/pgSQL (the
-- only way to write a trigger function without C) with the search_path of the migration fixed
-- (SET search_path FROM CURRENT), so a session with another search_path still finds the tables and
-- functions. Existing rows are filled below, then the index is built. A later migration that adds
-- a searched column must redefine <type>_search_document, the update trigger's column list and
-- WHEN clause, and refill the documents (UPDATE ... SET "document" = ...).
--
-- search_fold() folds as searchWords() does: canonical decomposition (NFD), combining marks
-- removed, lower case; then every run of characters that are not letters or digits becomes one
-- space, so that the parser sees plain words only: "info@acme.be" gives info, acme, be (the parser
-- would keep an e-mail address or a host name whole) and "RM-001" gives rm, 001, as in SQLite.
-- normalize() needs a database in UTF8. Not the unaccent extension: no CREATE EXTENSION (rights,
-- allow-lists on managed servers), no dictionary file or search_path behind an IMMUTABLE label,
-- and the same folding as the TypeScript side by construction. Not translate() with a table of
-- accented letters: it scans the table for every character (measured 50 times slower). Text in
-- ASCII only (octet_length = length) has nothing to decompose: normalize() is skipped, a third of
-- the cost of a document.
--
-- The document functions have SQL-standard bodies (RETURN ...), parsed when created: they depend
-- on what they call and never look anything up in the search_path.
-- Weights rank the matches: A the key and GS1 code, B names, C legal names, D contacts and e-mail.

CREATE FUNCTION "search_fold"(value text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN regexp_replace(
    lower(CASE WHEN octet_length(value) = length(value) THEN value
      ELSE regexp_replace(normalize(value, NFD), '[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+', '', 'g') END),
    '[^[:alnum:]]+', ' ', 'g');

-- products
CREATE FUNCTION "products_search_document"("reference" text, "gtin" text, "name_nl" text, "name_fr" text, "name_en" text, "name_de" text, "legal_name_nl" text, "legal_name_fr" text, "legal_name_en" text, "legal_name_de" text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN setweight(to_tsvector('simple', search_fold(coalesce("reference", '') || ' ' || coalesce("gtin", ''))), 'A')
    || setweight(to_tsvector('simple', search_fold(coalesce("name_nl", '') || ' ' || coalesce("name_fr", '') || ' ' || coalesce("name_en", '') || ' ' || coalesce("name_de", ''))), 'B')
    || setweight(to_tsvector('simple', search_fold(coalesce("legal_name_nl", '') || ' ' || coalesce("legal_name_fr", '') || ' ' || coalesce("legal_name_en", '') || ' ' || coalesce("legal_name_de", ''))), 'C');

CREATE TABLE "products_search_documents" (
    "id" INTEGER NOT NULL,
    "document" tsvector NOT NULL,

    CONSTRAINT "products_search_documents_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "products_search_documents_id_fkey" FOREIGN KEY ("id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE FUNCTION "products_search_documents_write"() RETURNS trigger
  LANGUAGE plpgsql SET search_path FROM CURRENT
  AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "products_search_documents" ("id", "document")
      VALUES (NEW."id", "products_search_document"(NEW."reference", NEW."gtin", NEW."name_nl", NEW."name_fr", NEW."name_en", NEW."name_de", NEW."legal_name_nl", NEW."legal_name_fr", NEW."legal_name_en", NEW."legal_name_de"));
  ELSE
    UPDATE "products_search_documents" SET "document" = "products_search_document"(NEW."reference", NEW."gtin", NEW."name_nl", NEW."name_fr", NEW."name_en", NEW."name_de", NEW."legal_name_nl", NEW."legal_name_fr", NEW."legal_name_en", NEW."legal_name_de")
      WHERE "id" = NEW."id";
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "products_search_documents_insert" AFTER INSERT ON "products"
  FOR EACH ROW EXECUTE FUNCTION "products_search_documents_write"();

CREATE TRIGGER "products_search_documents_update" AFTER UPDATE OF "reference", "gtin", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de" ON "products"
  FOR EACH ROW WHEN (OLD."reference" IS DISTINCT FROM NEW."reference" OR OLD."gtin" IS DISTINCT FROM NEW."gtin" OR OLD."name_nl" IS DISTINCT FROM NEW."name_nl" OR OLD."name_fr" IS DISTINCT FROM NEW."name_fr" OR OLD."name_en" IS DISTINCT FROM NEW."name_en" OR OLD."name_de" IS DISTINCT FROM NEW."name_de" OR OLD."legal_name_nl" IS DISTINCT FROM NEW."legal_name_nl" OR OLD."legal_name_fr" IS DISTINCT FROM NEW."legal_name_fr" OR OLD."legal_name_en" IS DISTINCT FROM NEW."legal_name_en" OR OLD."legal_name_de" IS DISTINCT FROM NEW."legal_name_de")
  EXECUTE FUNCTION "products_search_documents_write"();

INSERT INTO "products_search_documents" ("id", "document")
  SELECT "id", "products_search_document"("reference", "gtin", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de") FROM "products";

CREATE INDEX "products_search_idx" ON "products_search_documents" USING gin ("document");

-- customers
CREATE FUNCTION "customers_search_document"("reference" text, "name" text, "alt_name" text, "contact" text, "email" text, "emergency_contact" text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN setweight(to_tsvector('simple', search_fold(coalesce("reference", ''))), 'A')
    || setweight(to_tsvector('simple', search_fold(coalesce("name", '') || ' ' || coalesce("alt_name", ''))), 'B')
    || setweight(to_tsvector('simple', search_fold(coalesce("contact", '') || ' ' || coalesce("email", '') || ' ' || coalesce("emergency_contact", ''))), 'D');

CREATE TABLE "customers_search_documents" (
    "id" INTEGER NOT NULL,
    "document" tsvector NOT NULL,

    CONSTRAINT "customers_search_documents_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "customers_search_documents_id_fkey" FOREIGN KEY ("id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE FUNCTION "customers_search_documents_write"() RETURNS trigger
  LANGUAGE plpgsql SET search_path FROM CURRENT
  AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "customers_search_documents" ("id", "document")
      VALUES (NEW."id", "customers_search_document"(NEW."reference", NEW."name", NEW."alt_name", NEW."contact", NEW."email", NEW."emergency_contact"));
  ELSE
    UPDATE "customers_search_documents" SET "document" = "customers_search_document"(NEW."reference", NEW."name", NEW."alt_name", NEW."contact", NEW."email", NEW."emergency_contact")
      WHERE "id" = NEW."id";
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "customers_search_documents_insert" AFTER INSERT ON "customers"
  FOR EACH ROW EXECUTE FUNCTION "customers_search_documents_write"();

CREATE TRIGGER "customers_search_documents_update" AFTER UPDATE OF "reference", "name", "alt_name", "contact", "email", "emergency_contact" ON "customers"
  FOR EACH ROW WHEN (OLD."reference" IS DISTINCT FROM NEW."reference" OR OLD."name" IS DISTINCT FROM NEW."name" OR OLD."alt_name" IS DISTINCT FROM NEW."alt_name" OR OLD."contact" IS DISTINCT FROM NEW."contact" OR OLD."email" IS DISTINCT FROM NEW."email" OR OLD."emergency_contact" IS DISTINCT FROM NEW."emergency_contact")
  EXECUTE FUNCTION "customers_search_documents_write"();

INSERT INTO "customers_search_documents" ("id", "document")
  SELECT "id", "customers_search_document"("reference", "name", "alt_name", "contact", "email", "emergency_contact") FROM "customers";

CREATE INDEX "customers_search_idx" ON "customers_search_documents" USING gin ("document");

-- suppliers
CREATE FUNCTION "suppliers_search_document"("reference" text, "gln" text, "name" text, "emergency_contact" text, "email" text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN setweight(to_tsvector('simple', search_fold(coalesce("reference", '') || ' ' || coalesce("gln", ''))), 'A')
    || setweight(to_tsvector('simple', search_fold(coalesce("name", ''))), 'B')
    || setweight(to_tsvector('simple', search_fold(coalesce("emergency_contact", '') || ' ' || coalesce("email", ''))), 'D');

CREATE TABLE "suppliers_search_documents" (
    "id" INTEGER NOT NULL,
    "document" tsvector NOT NULL,

    CONSTRAINT "suppliers_search_documents_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "suppliers_search_documents_id_fkey" FOREIGN KEY ("id") REFERENCES "suppliers"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE FUNCTION "suppliers_search_documents_write"() RETURNS trigger
  LANGUAGE plpgsql SET search_path FROM CURRENT
  AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "suppliers_search_documents" ("id", "document")
      VALUES (NEW."id", "suppliers_search_document"(NEW."reference", NEW."gln", NEW."name", NEW."emergency_contact", NEW."email"));
  ELSE
    UPDATE "suppliers_search_documents" SET "document" = "suppliers_search_document"(NEW."reference", NEW."gln", NEW."name", NEW."emergency_contact", NEW."email")
      WHERE "id" = NEW."id";
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "suppliers_search_documents_insert" AFTER INSERT ON "suppliers"
  FOR EACH ROW EXECUTE FUNCTION "suppliers_search_documents_write"();

CREATE TRIGGER "suppliers_search_documents_update" AFTER UPDATE OF "reference", "gln", "name", "emergency_contact", "email" ON "suppliers"
  FOR EACH ROW WHEN (OLD."reference" IS DISTINCT FROM NEW."reference" OR OLD."gln" IS DISTINCT FROM NEW."gln" OR OLD."name" IS DISTINCT FROM NEW."name" OR OLD."emergency_contact" IS DISTINCT FROM NEW."emergency_contact" OR OLD."email" IS DISTINCT FROM NEW."email")
  EXECUTE FUNCTION "suppliers_search_documents_write"();

INSERT INTO "suppliers_search_documents" ("id", "document")
  SELECT "id", "suppliers_search_document"("reference", "gln", "name", "emergency_contact", "email") FROM "suppliers";

CREATE INDEX "suppliers_search_idx" ON "suppliers_search_documents" USING gin ("document");
