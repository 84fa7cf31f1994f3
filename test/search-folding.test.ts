/**
 * Search folding (src/db/search-fold.ts) as a client meets it, through GraphQL's `search`: the
 * spellings a German, French or Dutch user expects to find each other (ß and ss, ligatures, ä and
 * ae, apostrophes and hyphens), on each database; random words from an alphabet rich in such
 * letters, stored in every searched column and searched by other spellings of themselves, giving
 * the same rows on SQLite and PostgreSQL and the rows a plain reading of the folding gives; every
 * letter of the Latin, Greek and Cyrillic blocks folded alike by PostgreSQL's search_fold() and
 * the function SQLite's triggers call; and a database made before the folding, indexed again by
 * its migration.
 *
 * Reproduce a failure of the property with the seed (and path) fast-check prints:
 * FOLD_SEED=<seed> [FOLD_PATH=<path>]; FOLD_RUNS changes the number of cases (25).
 */
import { randomUUID } from 'node:crypto';
import Sqlite from 'better-sqlite3';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/auth/clients.ts';
import { createDatabase, type Database } from '../src/db/client.ts';
import { migrate, readMigrations } from '../src/db/migrate.ts';
import { searchFold } from '../src/db/search-fold.ts';
import { Sql } from '../src/db/sql.ts';
import type { Provider } from '../src/db/url.ts';
import { appendSearchJoin, searchedColumns, searchWords } from '../src/query/search.ts';
import { testApp, type TestApp } from './support/app.ts';
import { emptyDatabase, migratedDatabase, providers, type MigratedDatabase } from './support/databases.ts';
import { getTokens } from './support/oauth.ts';

const RUNS = Number(process.env.FOLD_RUNS ?? 25);
const SEED = process.env.FOLD_SEED === undefined ? undefined : Number(process.env.FOLD_SEED);
const PATH = process.env.FOLD_PATH;

const TYPES = ['products', 'customers', 'suppliers'] as const;
type SearchType = (typeof TYPES)[number];

/** A database with an app over it and a read token: what a client searches. */
interface Env {
  database: MigratedDatabase;
  db: Database;
  t: TestApp;
  token: string;
  unitId: number;
}

async function env(provider: Provider): Promise<Env> {
  const database = await migratedDatabase(provider);
  const { db } = database;
  const t = testApp(database);
  const token = (await getTokens(t, await createClient(db.prisma, 'erp', ['read']))).access_token;
  const unitId = (await db.prisma.unit.create({ data: { reference: 'ST' } })).id;
  return { database, db, t, token, unitId };
}

/** The references `search` finds among a type's rows, sorted; GraphQL's answer, checked to have no errors. */
async function found(e: Env, type: SearchType, text: string): Promise<string[]> {
  const res = await e.t.request('/graphql', {
    method: 'POST',
    headers: { Authorization: `Bearer ${e.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      query: `query($text: String!) { ${type}(search: $text, first: 100) { totalCount nodes { reference } } }`,
      variables: { text },
    }),
  });
  const body = (await res.json()) as {
    data?: Record<string, { totalCount: number; nodes: { reference: string }[] }>;
    errors?: unknown;
  };
  expect(body.errors, `${type}: ${text}`).toBeUndefined();
  const list = body.data![type]!;
  expect(list.totalCount, `${type}: ${text}`).toBeLessThanOrEqual(100);
  return list.nodes.map((n) => n.reference).sort();
}

/** Rows by type: each a reference and the text of some of the type's searched columns. */
type Rows = Record<SearchType, { reference: string; text: Record<string, string> }[]>;

/** Replaces every row of the searched types by `rows`. */
async function store(e: Env, rows: Rows): Promise<void> {
  const { prisma } = e.db;
  await prisma.product.deleteMany({});
  await prisma.customer.deleteMany({});
  await prisma.supplier.deleteMany({});
  await prisma.product.createMany({
    data: rows.products.map((r) => ({ reference: r.reference, unit_id: e.unitId, ...r.text })),
  });
  await prisma.customer.createMany({
    data: rows.customers.map((r) => ({ reference: r.reference, name: '', ...r.text })),
  });
  await prisma.supplier.createMany({
    data: rows.suppliers.map((r) => ({ reference: r.reference, name: '', ...r.text })),
  });
}

/**
 * The references a search must find, read plainly: rows whose folded text holds, for every word
 * of the search, a word that starts with one of its spellings.
 */
function expected(rows: Rows, type: SearchType, text: string): string[] {
  const words = searchWords(text).map((word) => word.split(' '));
  return rows[type]
    .filter((row) => {
      const tokens = searchFold([row.reference, ...Object.values(row.text)].join(' ')).split(' ');
      return words.every((spellings) => tokens.some((t) => spellings.some((w) => t.startsWith(w))));
    })
    .map((row) => row.reference)
    .sort();
}

describe.each(providers)('search folding on %s', (provider) => {
  let e: Env;
  const rows: Rows = {
    products: [
      { reference: 'P-WEISS', text: { name_de: 'Weißbrot', name_nl: 'Wit brood' } },
      { reference: 'P-WEISS2', text: { name_de: 'Weissbier' } },
      { reference: 'P-THURGAU', text: { name_de: 'Müller-Thurgau' } },
      { reference: 'P-OEUVRE', text: { name_fr: "Œuvre d'art" } },
      { reference: 'P-COEUR', text: { legal_name_fr: 'Cœur de lion' } },
      { reference: 'P-AEBLE', text: { name_en: 'Æbleskiver' } },
      { reference: 'P-IJ1', text: { name_nl: 'ĲSSELMEER paling' } },
      { reference: 'P-IJ2', text: { legal_name_nl: 'IJsselmeer boter' } },
      { reference: 'P-FI', text: { legal_name_en: 'ﬁne ﬂour' } },
      { reference: 'P-SOUFFLE', text: { name_fr: 'Souﬄé glacé' } },
      { reference: 'P-EPEAUTRE', text: { name_fr: "Pain à l'épeautre" } },
      { reference: 'P-HOF', text: { name_nl: "Brood van 't Hof" } },
      { reference: 'P-SINT', text: { legal_name_nl: 'Sint-Niklaas speculoos' } },
      { reference: 'P-NOEL', text: { name_fr: 'Bûche de Noël' } },
      { reference: 'P-NAIVE', text: { name_en: 'Naïve cake', name_de: 'Curaçao' } },
      { reference: 'P-LODZ', text: { legal_name_de: 'Łódź' } },
      { reference: 'P-GREEK', text: { name_en: 'ΚΑΦΕΣ' } },
      // Decomposed: u followed by a combining diaeresis.
      { reference: 'P-MUESLI', text: { name_de: 'Mu\u0308sli' } },
      { reference: 'P-BLUME', text: { name_de: 'Blumenkohl' } },
      { reference: 'P-BLUE', text: { name_en: 'Blue cheese' } },
    ],
    customers: [
      { reference: 'C-UMLAUT', text: { name: 'Bäckerei Müller' } },
      { reference: 'C-UE', text: { name: 'Café', contact: 'Bäckerei Mueller' } },
      { reference: 'C-U', text: { name: 'Boulangerie', emergency_contact: 'Muller' } },
    ],
    suppliers: [
      { reference: 'S-AALBORG', text: { name: 'Ålborg Mejeri' } },
      { reference: 'S-SOREN', text: { name: 'Hansen', emergency_contact: 'Søren Kierkegaard' } },
      { reference: 'S-STRASSE', text: { name: 'Lieferant', email: 'post@weiße-straße.de' } },
    ],
  };

  beforeAll(async () => {
    e = await env(provider);
    await store(e, rows);
  });
  afterAll(async () => {
    await e?.t.app.close();
    await e?.database.cleanup();
  });

  it('finds each spelling a German, French or Dutch user types for the same word', async () => {
    const cases: [SearchType, string, string[]][] = [
      ['products', 'weiss', ['P-WEISS', 'P-WEISS2']],
      ['products', 'Weiß', ['P-WEISS', 'P-WEISS2']],
      ['products', 'WEISSBROT', ['P-WEISS']],
      ['products', 'weißbrot', ['P-WEISS']],
      ['products', 'mueller thurgau', ['P-THURGAU']],
      ['products', 'muller-thurgau', ['P-THURGAU']],
      ['products', 'oeuvre', ['P-OEUVRE']],
      ['products', 'ŒUVRE d’art', ['P-OEUVRE']],
      ['products', 'coeur', ['P-COEUR']],
      ['products', 'cœur', ['P-COEUR']],
      ['products', 'aebleskiver', ['P-AEBLE']],
      ['products', 'æble', ['P-AEBLE']],
      ['products', 'ijssel', ['P-IJ1', 'P-IJ2']],
      ['products', 'Ĳsselmeer', ['P-IJ1', 'P-IJ2']],
      ['products', 'fine flour', ['P-FI']],
      ['products', 'souffle glace', ['P-SOUFFLE']],
      ['products', 'epeautre', ['P-EPEAUTRE']],
      ['products', "l'épeautre", ['P-EPEAUTRE']],
      ['products', 'l’epeautre', ['P-EPEAUTRE']],
      ['products', 'lʼépeautre', ['P-EPEAUTRE']],
      ['products', "'t Hof", ['P-HOF']],
      ['products', 'hof', ['P-HOF']],
      ['products', 'Sint-Niklaas', ['P-SINT']],
      ['products', 'niklaas', ['P-SINT']],
      ['products', 'buche noel', ['P-NOEL']],
      ['products', 'naive curacao', ['P-NAIVE']],
      ['products', 'lodz', ['P-LODZ']],
      ['products', 'καφες', ['P-GREEK']],
      ['products', 'ΚΑΦΕΣ', ['P-GREEK']],
      ['products', 'müsli', ['P-MUESLI']],
      ['products', 'muesli', ['P-MUESLI']],
      ['products', 'musli', ['P-MUESLI']],
      ['products', 'mu\u0308sli', ['P-MUESLI']],
      // "ue" typed is not taken for ü: "blue" does not find Blume.
      ['products', 'blue', ['P-BLUE']],
      ['products', 'blu', ['P-BLUE', 'P-BLUME']],
      // Müller is found by Müller, Muller and Mueller; Müller finds all three spellings.
      ['customers', 'Müller', ['C-U', 'C-UE', 'C-UMLAUT']],
      ['customers', 'Mueller', ['C-UE', 'C-UMLAUT']],
      ['customers', 'MULLER', ['C-U', 'C-UMLAUT']],
      ['customers', 'baeckerei', ['C-UE', 'C-UMLAUT']],
      ['customers', 'backerei muller', ['C-UMLAUT']],
      ['customers', 'cafe', ['C-UE']],
      ['suppliers', 'Ålborg', ['S-AALBORG']],
      ['suppliers', 'aalborg', ['S-AALBORG']],
      ['suppliers', 'alborg mejeri', ['S-AALBORG']],
      ['suppliers', 'soeren', ['S-SOREN']],
      ['suppliers', 'soren', ['S-SOREN']],
      ['suppliers', 'Søren', ['S-SOREN']],
      ['suppliers', 'weisse strasse', ['S-STRASSE']],
    ];
    for (const [type, text, references] of cases) {
      expect(await found(e, type, text), `${type}: ${text}`).toEqual(references);
      expect(expected(rows, type, text), `the plain reading of ${type}: ${text}`).toEqual(references);
    }
  });

  it.runIf(provider === 'postgresql')(
    "folds every letter of the Latin, Greek and Cyrillic blocks as SQLite's search_fold() does",
    async () => {
      const blocks: [number, number][] = [
        [0xa0, 0x52f], // Latin-1 Supplement to Cyrillic Supplement (IPA, spacing modifiers, marks, Greek)
        [0x1d00, 0x1fff], // phonetic extensions, Latin Extended Additional, Greek Extended
        [0x2c60, 0x2c7f], // Latin Extended-C
        [0xa720, 0xa7ff], // Latin Extended-D
        [0xfb00, 0xfb06], // the Latin ligatures
      ];
      // Letters Unicode 16 added: PostgreSQL 15 and the C library's tables (Unicode 14) do not
      // know them yet, Node's do. Such letters fold alike once both know them.
      const newer = /[\ua7cb-\ua7cf\ua7d2\ua7d4\ua7da-\ua7dc\ua7f1]/u;
      const texts: string[] = [];
      for (const [from, to] of blocks) {
        for (let c = from; c <= to; c++) {
          const ch = String.fromCodePoint(c);
          if (/\p{Cn}/u.test(ch) || newer.test(ch)) continue;
          // Within a word, ending one, beside an umlaut (second spellings), and alone.
          texts.push(`q${ch}z Ü${ch} ä${ch}Ö ${ch}`);
        }
      }
      const folded = await e.db.prisma.$queryRawUnsafe<{ text: string; lexemes: string[] }[]>(
        `SELECT "t" AS "text", tsvector_to_array(to_tsvector('simple', search_fold("t"))) AS "lexemes" FROM unnest($1::text[]) "t"`,
        texts,
      );
      const differ = folded
        .filter(({ text, lexemes }) => {
          const words = [...new Set(searchFold(text).split(' ').filter(Boolean))].sort();
          return words.join(' ') !== [...lexemes].sort().join(' ');
        })
        .map(({ text }) => text);
      expect(folded).toHaveLength(texts.length);
      expect(differ).toEqual([]);
    },
  );
});

/**
 * Letters that fold (accents, diaereses, ß, ligatures, ø, å, Greek sigma, dotless i), composed and
 * decomposed, with apostrophes and hyphens that split words.
 */
const LETTERS = [...'aeiounrstlmAEIOU', ...'äöüÄÖÜßẞæÆœŒøØåÅĳĲﬁﬂﬃéèêëïîçñÉÈÇŁłſıİΣσς', 'u\u0308', 'a\u030a', 'e\u0301'];
const SEPARATORS = [' ', ' ', '-', "'", '’', 'ʼ', ' '];

const word = fc.array(fc.constantFrom(...LETTERS), { minLength: 1, maxLength: 6 }).map((l) => l.join(''));
const text = fc
  .array(fc.tuple(word, fc.constantFrom(...SEPARATORS)), { minLength: 1, maxLength: 3 })
  .map((parts) => parts.map(([w, s]) => w + s).join(''));

/** The columns of a type a row may hold text in (its reference is always searched too). */
function textColumns(type: SearchType): string[] {
  return searchedColumns(type).filter((c) => c !== 'reference' && c !== 'gtin' && c !== 'gln');
}

const rowsArbitrary: fc.Arbitrary<Rows> = fc.record(
  Object.fromEntries(
    TYPES.map((type) => [
      type,
      fc.array(
        fc.record({
          reference: word,
          text: fc.dictionary(fc.constantFrom(...textColumns(type)), text, { maxKeys: 4 }),
        }),
        { maxLength: 5 },
      ),
    ]),
  ) as Record<SearchType, fc.Arbitrary<Rows[SearchType]>>,
);

/** How a search spells a stored word differently. */
const SPELLINGS: Record<string, (w: string) => string> = {
  same: (w) => w,
  upper: (w) => w.toUpperCase(),
  lower: (w) => w.toLowerCase(),
  composed: (w) => w.normalize('NFC'),
  decomposed: (w) => w.normalize('NFD'),
  unaccented: (w) => w.normalize('NFD').replace(/\p{M}/gu, ''),
  digraphs: (w) =>
    w
      .normalize('NFD')
      .replace(/([aouAOU])\u0308/g, '$1e')
      .replace(/ß/g, 'ss')
      .replace(/ĳ/g, 'ij')
      .replace(/œ/g, 'oe'),
};

interface Query {
  row: number;
  type: SearchType;
  word: number;
  spelling: string;
  cut: number;
  other: string | null;
}

const query: fc.Arbitrary<Query> = fc.record({
  row: fc.nat(),
  type: fc.constantFrom(...TYPES),
  word: fc.nat(),
  spelling: fc.constantFrom(...Object.keys(SPELLINGS)),
  cut: fc.nat({ max: 3 }),
  other: fc.option(word, { freq: 4 }),
});

/** A search from a stored word respelled and maybe cut short, or a random word. */
function searchText(rows: Rows, q: Query): string {
  if (q.other !== null) return q.other;
  const list = rows[q.type];
  if (list.length === 0) return 'a';
  const row = list[q.row % list.length]!;
  const words = [row.reference, ...Object.values(row.text)]
    .join(' ')
    .split(/[\s'’ʼ-]+/u)
    .filter(Boolean);
  const stored = words[q.word % words.length]!;
  const respelled = SPELLINGS[q.spelling]!(stored);
  return [...respelled].slice(0, Math.max(1, [...respelled].length - q.cut)).join('');
}

describe('search folding alike on both databases', () => {
  const envs: Env[] = [];

  beforeAll(async () => {
    for (const provider of providers) envs.push(await env(provider));
  });
  afterAll(async () => {
    for (const e of envs) {
      await e.t.app.close();
      await e.database.cleanup();
    }
  });

  it(`finds the same rows on ${providers.join(' and ')} as a plain reading of the folding, for random words in every searched column`, async () => {
    await fc.assert(
      fc.asyncProperty(rowsArbitrary, fc.array(query, { minLength: 1, maxLength: 4 }), async (drawn, queries) => {
        // References are unique per type: the first of each.
        const rows = Object.fromEntries(
          TYPES.map((type) => [
            type,
            [...new Map(drawn[type].map((r) => [r.reference.normalize('NFC'), r])).values()].map((r, i) => ({
              ...r,
              reference: `${r.reference}${i}`,
            })),
          ]),
        ) as Rows;
        for (const e of envs) await store(e, rows);
        for (const q of queries) {
          const search = searchText(rows, q);
          if (searchWords(search).length === 0) continue;
          const want = expected(rows, q.type, search);
          for (const e of envs) {
            expect(await found(e, q.type, search), `${e.db.provider}, ${q.type}: ${JSON.stringify(search)}`).toEqual(
              want,
            );
          }
        }
      }),
      { numRuns: RUNS, seed: SEED, path: PATH, endOnFailure: true },
    );
  }, 120_000);
});

describe.each(providers)('a database made before search folding, on %s', (provider) => {
  it('is indexed again by the migration: the rows it held are found by the new spellings', async () => {
    const database = await emptyDatabase(provider);
    try {
      const all = readMigrations(provider);
      const folding = all.findIndex((m) => m.name.endsWith('_search_folding'));
      expect(folding).toBeGreaterThan(0);
      const before = all.slice(0, folding);
      const rows = [
        `INSERT INTO "units" ("reference") VALUES ('ST')`,
        `INSERT INTO "products" ("reference", "name_de", "unit_id") SELECT 'OLD-1', 'Weißbrot', "id" FROM "units"`,
        `INSERT INTO "customers" ("reference", "name") VALUES ('OLD-2', 'Bäckerei Müller')`,
        `INSERT INTO "suppliers" ("reference", "name") VALUES ('OLD-3', 'Œuvre & Fils')`,
      ];
      await applyEarlier(provider, database.target.url, database.target.sqliteFile, before, rows);
      expect(await migrate(database.target)).toEqual(all.slice(folding).map((m) => m.name));
      const db = await createDatabase(database.target);
      try {
        const refs = async (type: SearchType, search: string) => {
          const sql = new Sql(db.provider).text(`SELECT "r"."reference" FROM "${type}" "r"`);
          appendSearchJoin(sql, type, searchWords(search), 'r', 's');
          const list = await db.prisma.$queryRawUnsafe<{ reference: string }[]>(sql.toString(), ...sql.values);
          return list.map((r) => r.reference);
        };
        expect(await refs('products', 'weiss')).toEqual(['OLD-1']);
        expect(await refs('customers', 'mueller')).toEqual(['OLD-2']);
        expect(await refs('suppliers', 'oeuvre')).toEqual(['OLD-3']);
      } finally {
        await db.close();
      }
    } finally {
      await database.drop();
    }
  });
});

/**
 * Applies `migrations` as the service's migrator records them (so that it applies only the rest
 * later), then runs `statements`: a database as a release before them left it.
 */
async function applyEarlier(
  provider: Provider,
  url: string,
  sqliteFile: string | undefined,
  migrations: ReturnType<typeof readMigrations>,
  statements: string[],
): Promise<void> {
  const record = `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)`;
  if (provider === 'sqlite') {
    const db = new Sqlite(sqliteFile!);
    try {
      db.exec(`CREATE TABLE "_prisma_migrations" (
        "id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
        "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME,
        "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
        "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`);
      const now = new Date().toISOString();
      for (const m of migrations) {
        db.exec(m.sql);
        db.prepare(`${record} VALUES (?, ?, ?, ?, ?, 1)`).run(randomUUID(), m.checksum, now, m.name, now);
      }
      for (const statement of statements) db.exec(statement);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE TABLE "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    for (const m of migrations) {
      await client.query(m.sql);
      await client.query(`${record} VALUES ($1, $2, now(), $3, now(), 1)`, [randomUUID(), m.checksum, m.name]);
    }
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}
