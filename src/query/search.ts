/**
 * Full-text search over products, customers and suppliers: the words of a search text, matched as
 * word prefixes (every word must match), through an index on both databases (migrations
 * `*_search_indexes` and `*_search_folding`), ordered by relevance. Stored text and searches are
 * folded alike (../db/search-fold.ts): case, accents, ß and ss, ligatures, and ä, ö, ü, å, ø
 * also written ae, oe, ue, aa, oe.
 *
 * - SQLite: an FTS5 table `<type>_search` without content of its own (contentless_delete), one
 *   column per weight below holding the folded words of its columns (the function `search_fold`,
 *   ../db/sqlite-functions.ts), written by triggers on the base table (the update trigger fires
 *   only when a searched column changes); its tokenizer ("ascii") takes those words as they are.
 *   Relevance is bm25.
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
 *   migrations' `<type>_search_document()` and FTS5 columns are one contract
 *   (test/search-index.test.ts checks the answers against the rows' text, the stored documents
 *   against their rows, and the plans; test/search-folding.test.ts the two databases against
 *   each other).
 *
 * The words of a search are folded here, by the function that folds the stored text on SQLite,
 * and the index is asked for them as they are: FTS5's "ascii" tokenizer and PostgreSQL's parser
 * leave folded words unchanged.
 */
import { validAt } from '../db/history.ts';
import { foldWords } from '../db/search-fold.ts';
import { id, type Sql } from '../db/sql.ts';
import { WhereInputError } from './where.ts';

type Weight = 'A' | 'B' | 'C' | 'D';

/**
 * The searched columns per type, by weight: A the business key and the GS1 code (GTIN of a
 * product, GLN of a supplier; customers have none), B names in every language and the alternative
 * name, C the products' legal names, D what identifies a contact (the contact person, the e-mail
 * address). Not searched: phone and fax numbers (their spacing and prefixes vary, a person does
 * not look them up by a word), codes such as intrastat_code, currency texts.
 * The order is the order of the arguments of `<type>_search_document`; each weight is one FTS5
 * column, in this order (which bm25's weights follow).
 */
export const SEARCHED: Readonly<Record<string, readonly (readonly [string, Weight])[]>> = {
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
 * The words of a search text, folded as the index folds stored text, without repeats (may be
 * empty: then the search is refused by the caller). A word that has a second spelling
 * (../db/search-fold.ts: "Müller" is muller or mueller) is both spellings, separated by a space;
 * either may match. Words hold letters and digits only, so they cannot break out of the query
 * syntax of either database.
 */
export function searchWords(text: string): string[] {
  const words = foldWords(text).map(({ word, second }) => (second === word ? word : `${word} ${second}`));
  return [...new Set(words)];
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

/** A word from searchWords(): one or two spellings of letters and digits. */
const SEARCH_WORD = /^[\p{Alphabetic}\p{Nd}]+(?: [\p{Alphabetic}\p{Nd}]+)?$/u;

/** The spellings of each word, checked: they are written into the query syntax of the database. */
function spellings(words: readonly string[]): string[][] {
  if (words.length === 0) throw new Error('a search needs at least one word');
  return words.map((word) => {
    if (!SEARCH_WORD.test(word)) throw new Error(`not a search word: ${JSON.stringify(word)}`);
    return word.split(' ');
  });
}

/**
 * Appends ` JOIN (<subquery giving "id" and "rank">) <alias> ON <alias>."id" = <rowAlias>."id"`:
 * restricts the rows of `type` (aliased rowAlias in the outer statement) to those matching every
 * word (one of its spellings); `<alias>."rank"`: larger is more relevant. `words` come from
 * searchWords() and must not be empty.
 */
export function appendSearchJoin(
  sql: Sql,
  type: string,
  words: readonly string[],
  rowAlias: string,
  alias: string,
  past = false,
) {
  const columns = searched(type);
  const each = spellings(words);
  sql.text(' JOIN (');
  // PostgreSQL's search documents have a history like any table, read through a view (src/db/past.ts).
  if (sql.provider === 'postgresql') appendPostgresMatches(sql, type, each);
  else appendSqliteMatches(sql, type, columns, each, past);
  sql.text(`) ${id(alias)} ON ${id(alias)}."id" = ${id(rowAlias)}."id"`);
}

/**
 * `word:*` is a prefix match, `|` takes either spelling, `&` requires every word. The query is
 * repeated rather than joined in as a row source: as a constant expression, the planner sees
 * `document @@ query` as an index condition of the GIN index (a word that most rows match is read
 * by a scan of the documents instead, the planner's choice). Every row has exactly one document
 * (written by the insert trigger, deleted by cascade), so joining on "id" keeps exactly the
 * matching rows of the type.
 */
function appendPostgresMatches(sql: Sql, type: string, words: readonly string[][]) {
  const query = words
    .map((spelled) => (spelled.length === 1 ? `${spelled[0]}:*` : `(${spelled.map((s) => `${s}:*`).join(' | ')})`))
    .join(' & ');
  sql
    .text(`SELECT "search_document"."id", ts_rank("search_document"."document", to_tsquery('simple', `)
    .value(query)
    .text(`)) AS "rank" FROM ${id(`${type}_search_documents`)} "search_document"`)
    .text(` WHERE "search_document"."document" @@ to_tsquery('simple', `)
    .value(query)
    .text(')');
}

/**
 * `"word"*` is a prefix match, `OR` takes either spelling; FTS5 requires every other part of a
 * query. One bm25 weight per column, that is per weight of SEARCHED; bm25 is lower when better.
 */
function appendSqliteMatches(
  sql: Sql,
  type: string,
  columns: readonly (readonly [string, Weight])[],
  words: readonly string[][],
  past: boolean,
) {
  const weights = [...new Set(columns.map(([, weight]) => weight))].map((weight) => BM25_WEIGHT[weight]).join(', ');
  const query = words
    .map((spelled) => (spelled.length === 1 ? `"${spelled[0]}"*` : `(${spelled.map((s) => `"${s}"*`).join(' OR ')})`))
    .join(' ');
  if (!past) {
    const table = id(`${type}_search`);
    sql
      .text(`SELECT "rowid" AS "id", -bm25(${table}, ${weights}) AS "rank" FROM ${table} WHERE ${table} MATCH `)
      .value(query);
    return;
  }
  // As of an instant: FTS5 matches only in its own table, which no view can stand for. Every
  // version of a row is indexed by its rowid in <type>_history (migration *_row_history); the
  // versions valid at the instant are kept.
  const table = id(`${type}_search_history`);
  sql
    .text(`SELECT h."id", -bm25(${table}, ${weights}) AS "rank" FROM ${table}`)
    .text(` JOIN main.${id(`${type}_history`)} h ON h."rowid" = ${table}."rowid" WHERE ${table} MATCH `)
    .value(query)
    .text(` AND ${validAt('h')}`);
}
