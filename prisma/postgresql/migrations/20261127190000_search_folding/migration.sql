-- Search folds alike on both databases (src/db/search-fold.ts): ß and ẞ as ss, æ, œ, ø, ĳ and the
-- ligatures ﬁ, ﬂ ... as the letters a person types, accents removed, and a word holding ä, ö, ü, å
-- or ø indexed a second time as written with ae, oe, ue, aa, oe ("Müller" as muller and mueller).
-- search_fold() is redefined (the document functions of *_search_indexes call it), and every
-- stored document is computed again.
--
-- search_fold_words() folds decomposed (NFD) text to words as searchFold() does: combining marks
-- removed, lower case, the letters of LETTERS replaced, every run of characters that are not
-- letters or digits one space. The letters are looked for first (one scan) and replaced only in
-- text that holds one. An SQL-standard body: parsed when created, it depends on what it calls and
-- looks nothing up in the search_path. Not STRICT, so that its caller inlines it (a STRICT
-- function whose body is a CASE is not inlined; NULL gives NULL all the same).
--
-- search_fold() is PL/pgSQL: the second spelling of a word is a loop over the words of both
-- spellings, and an SQL function that is not inlined into its caller (a CASE, a subquery)
-- re-plans the SQL functions it calls on every call (measured: 0.5 ms a call, 10 times the whole
-- fold). Its search_path is the migration's (SET search_path FROM CURRENT), as the triggers'.
-- Text in ASCII only has nothing to decompose, no letter to replace and no second spelling: it is
-- lowered and split only. Measured on this machine, a text of a few words: ASCII about 15 us,
-- accented about 40 us (as before), with a second spelling about 100 us.

CREATE FUNCTION "search_fold_words"(decomposed text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN regexp_replace(
    CASE WHEN decomposed ~ '[ßẞæÆœŒøØĳĲﬀ-ﬆłŁđĐðÐþÞıŀĿſςʼ]'
      THEN replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(regexp_replace(decomposed, '[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+', '', 'g')), 'ß', 'ss'), 'ẞ', 'ss'), 'æ', 'ae'), 'Æ', 'ae'), 'œ', 'oe'), 'Œ', 'oe'), 'ø', 'o'), 'Ø', 'o'), 'ĳ', 'ij'), 'Ĳ', 'ij'), 'ﬀ', 'ff'), 'ﬁ', 'fi'), 'ﬂ', 'fl'), 'ﬃ', 'ffi'), 'ﬄ', 'ffl'), 'ﬅ', 'st'), 'ﬆ', 'st'), 'ł', 'l'), 'Ł', 'l'), 'đ', 'd'), 'Đ', 'd'), 'ð', 'd'), 'Ð', 'd'), 'þ', 'th'), 'Þ', 'th'), 'ı', 'i'), 'ŀ', 'l'), 'Ŀ', 'l'), 'ſ', 's'), 'ς', 'σ'), 'ʼ', ' ')
      ELSE lower(regexp_replace(decomposed, '[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+', '', 'g')) END,
    '[^[:alnum:]]+', ' ', 'g');

CREATE OR REPLACE FUNCTION "search_fold"(value text) RETURNS text
  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT
  AS $$
DECLARE
  decomposed text;
  folded text;
  firsts text[];
  seconds text[];
BEGIN
  IF octet_length(value) = length(value) THEN
    RETURN regexp_replace(lower(value), '[^[:alnum:]]+', ' ', 'g');
  END IF;
  decomposed := normalize(value, NFD);
  folded := search_fold_words(decomposed);
  IF decomposed !~ '[aouAOU]\u0308|[aA]\u030a|[øØ]' THEN
    RETURN folded;
  END IF;
  -- Both spellings have the same words at the same places: the second only writes some letters
  -- as two. Its words that differ follow the first spelling's.
  firsts := string_to_array(folded, ' ');
  seconds := string_to_array(search_fold_words(replace(replace(
    regexp_replace(regexp_replace(decomposed, '([aouAOU])\u0308', '\1e', 'g'), '([aA])\u030a', '\1a', 'g'),
    'ø', 'oe'), 'Ø', 'Oe')), ' ');
  FOR i IN 1 .. cardinality(seconds) LOOP
    IF seconds[i] <> firsts[i] THEN
      folded := folded || ' ' || seconds[i];
    END IF;
  END LOOP;
  RETURN folded;
END
$$;

-- Every document again, the GIN index built after them (faster than updating it row by row).

DROP INDEX "products_search_idx";
TRUNCATE "products_search_documents";
INSERT INTO "products_search_documents" ("id", "document")
  SELECT "id", "products_search_document"("reference", "gtin", "name_nl", "name_fr", "name_en", "name_de", "legal_name_nl", "legal_name_fr", "legal_name_en", "legal_name_de") FROM "products";
CREATE INDEX "products_search_idx" ON "products_search_documents" USING gin ("document");

DROP INDEX "customers_search_idx";
TRUNCATE "customers_search_documents";
INSERT INTO "customers_search_documents" ("id", "document")
  SELECT "id", "customers_search_document"("reference", "name", "alt_name", "contact", "email", "emergency_contact") FROM "customers";
CREATE INDEX "customers_search_idx" ON "customers_search_documents" USING gin ("document");

DROP INDEX "suppliers_search_idx";
TRUNCATE "suppliers_search_documents";
INSERT INTO "suppliers_search_documents" ("id", "document")
  SELECT "id", "suppliers_search_document"("reference", "gln", "name", "emergency_contact", "email") FROM "suppliers";
CREATE INDEX "suppliers_search_idx" ON "suppliers_search_documents" USING gin ("document");
