/**
 * Full-text search over products, customers and suppliers: the words of a search text, matched as
 * word prefixes (every word must match), case- and accent-insensitively, through an index on both
 * databases (migration `*_search_indexes`), ordered by relevance.
 *
 * - SQLite: an FTS5 table `<type>_search` with external content, kept in step by triggers; it
 *   folds case and accents itself ("unicode61 remove_diacritics 2"), relevance is bm25.
 * - PostgreSQL: a side table `<type>_search_documents` ("id", "document"), the tsvector of the
 *   searched columns folded by `search_fold()`, with a GIN index on "document", kept in step by
 *   triggers on the base table (the update trigger fires only when a searched column changes);
 *   relevance is ts_rank over the stored document. Stored rather than an index on an expression:
 *   ranking then reads each match's document instead of computing it again (45 µs a row): a word
 *   that all of 100,000 products match takes about 70 ms (parallel) to 190 ms (one process)
 *   instead of 4.5 s, a selective one about 1 ms. ts_rank_cd (cover density) was measured twice
 *   as slow, for no gain on documents of a few words. A side table rather than a column: `SELECT *`
 *   on the base table stays readable by Prisma's adapter (it cannot read a tsvector), and a write
 *   that changes no searched column costs no document. The columns and weights below and the
 *   migration's `<type>_search_document()` are one contract (test/search-index.test.ts checks
 *   the answers against the rows' text, the stored documents against their rows, and the plans).
 *
 * Why the text is folded here as well: PostgreSQL compares the words it is given with the folded
 * index, so they must be folded the same way (NFD, combining marks removed, lower case, split on
 * anything but letters and digits: what search_fold() does). FTS5 folds a query itself, with the
 * tokenizer of the index; the words come folded already, which changes nothing there.
 */
import { id, type Sql } from '../db/sql.ts';
import { WhereInputError } from './where.ts';

type Weight = 'A' | 'B' | 'C' | 'D';

/**
 * The searched columns per type, by weight: A the business key and the GS1 code (GTIN of a
 * product, GLN of a supplier; customers have none), B names in every language and the alternative
 * name, C the products' legal names, D what identifies a contact (the contact person, the e-mail
 * address). Not searched: phone and fax numbers (their spacing and prefixes vary, a person does
 * not look them up by a word), codes such as intrastat_code, currency texts.
 * The order is the order of the arguments of `<type>_search_document` and of the FTS5 columns
 * (which bm25's weights follow).
 */
const SEARCHED: Readonly<Record<string, readonly (readonly [string, Weight])[]>> = {
  products: [
    ['reference', 'A'],
    ['gtin', 'A'],
    ['name_nl', 'B'],
    ['name_fr', 'B'],
    ['name_en', 'B'],
    ['name_de', 'B'],
    ['legal_name_nl', 'C'],
    ['legal_name_fr', 'C'],
    ['legal_name_en', 'C'],
    ['legal_name_de', 'C'],
  ],
  customers: [
    ['reference', 'A'],
    ['name', 'B'],
    ['alt_name', 'B'],
    ['contact', 'D'],
    ['email', 'D'],
    ['emergency_contact', 'D'],
  ],
  suppliers: [
    ['reference', 'A'],
    ['gln', 'A'],
    ['name', 'B'],
    ['emergency_contact', 'D'],
    ['email', 'D'],
  ],
};

/** bm25's column weights, in the proportions of ts_rank's default weights for A, B, C, D. */
const BM25_WEIGHT: Record<Weight, number> = { A: 10, B: 4, C: 2, D: 1 };

export const SEARCHABLE_TYPES: ReadonlySet<string> = new Set(Object.keys(SEARCHED));

/** The columns `search` looks in on `type` (none for a type that cannot be searched). */
export function searchedColumns(type: string): readonly string[] {
  return (SEARCHED[type] ?? []).map(([column]) => column);
}

/** Longest search text accepted, in characters: longer is not a search a person types. */
export const MAX_SEARCH_LENGTH = 200;
/** Most words in a search: each word is one more index lookup. */
export const MAX_SEARCH_WORDS = 10;

/**
 * The blocks of combining marks that search_fold() removes in PostgreSQL (the same list): accents
 * of Latin, Greek and Cyrillic letters. Other marks (Indic vowel signs, Hebrew points) split words
 * on both sides alike.
 */
const COMBINING_MARKS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+/g;

/**
 * The words a search text is made of, normalized as the index normalizes, without repeats (may be
 * empty: then the search is refused by the caller). NFD rather than NFKD: FTS5 does not fold
 * compatibility forms (ligatures such as "ĳ"), and the PostgreSQL table follows NFD.
 */
export function searchWords(text: string): string[] {
  const folded = text.normalize('NFD').replace(COMBINING_MARKS, '').toLowerCase();
  // Letters and decimal digits make words: PostgreSQL's parser drops other numbers (½, ²).
  return [...new Set(folded.split(/[^\p{L}\p{Nd}]+/u).filter((word) => word.length > 0))];
}

/** The words of a search as a client gave it, or WhereInputError (at `path`) saying why it is none. */
export function searchInput(text: string, path: string): string[] {
  if (text.length > MAX_SEARCH_LENGTH)
    throw new WhereInputError(path, `is ${text.length} characters long: at most ${MAX_SEARCH_LENGTH}`);
  const words = searchWords(text);
  if (words.length === 0) throw new WhereInputError(path, 'must hold a word (letters or digits)');
  if (words.length > MAX_SEARCH_WORDS)
    throw new WhereInputError(path, `holds ${words.length} words: at most ${MAX_SEARCH_WORDS}`);
  return words;
}

function searched(type: string): readonly (readonly [string, Weight])[] {
  const columns = SEARCHED[type];
  if (!columns) throw new Error(`${type} is not searchable`);
  return columns;
}

/**
 * Appends ` JOIN (<subquery giving "id" and "rank">) <alias> ON <alias>."id" = <rowAlias>."id"`:
 * restricts the rows of `type` (aliased rowAlias in the outer statement) to those matching every
 * word; `<alias>."rank"`: larger is more relevant. `words` come from searchWords() (letters and
 * digits only, so they cannot break out of the query syntax of either database) and must not be
 * empty.
 */
export function appendSearchJoin(sql: Sql, type: string, words: readonly string[], rowAlias: string, alias: string) {
  const columns = searched(type);
  if (words.length === 0) throw new Error('a search needs at least one word');
  sql.text(' JOIN (');
  if (sql.provider === 'postgresql') appendPostgresMatches(sql, type, words);
  else appendSqliteMatches(sql, type, columns, words);
  sql.text(`) ${id(alias)} ON ${id(alias)}."id" = ${id(rowAlias)}."id"`);
}

/**
 * `word:*` is a prefix match, `&` requires every word. The query is repeated rather than joined
 * in as a row source: as a constant expression, the planner sees `document @@ query` as an index
 * condition of the GIN index (a word that most rows match is read by a scan of the documents
 * instead, the planner's choice). Every row has exactly one document (written by the insert
 * trigger, deleted by cascade), so joining on "id" keeps exactly the matching rows of the type.
 */
function appendPostgresMatches(sql: Sql, type: string, words: readonly string[]) {
  const query = words.map((word) => `${word}:*`).join(' & ');
  sql
    .text(`SELECT "search_document"."id", ts_rank("search_document"."document", to_tsquery('simple', `)
    .value(query)
    .text(`)) AS "rank" FROM ${id(`${type}_search_documents`)} "search_document"`)
    .text(` WHERE "search_document"."document" @@ to_tsquery('simple', `)
    .value(query)
    .text(')');
}

/** `"word"*` is a prefix match; FTS5 requires every phrase of a query. bm25 is lower when better. */
function appendSqliteMatches(
  sql: Sql,
  type: string,
  columns: readonly (readonly [string, Weight])[],
  words: readonly string[],
) {
  const table = id(`${type}_search`);
  const weights = columns.map(([, weight]) => BM25_WEIGHT[weight]).join(', ');
  sql
    .text(`SELECT "rowid" AS "id", -bm25(${table}, ${weights}) AS "rank" FROM ${table} WHERE ${table} MATCH `)
    .value(words.map((word) => `"${word}"*`).join(' '));
}
