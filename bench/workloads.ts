/**
 * The workloads, as data: what each one reads (root type, one or a page, the relationships it
 * follows) or, for W5, writes, and how its parameters are found in a prepared database. Each
 * server turns a resolved case into its own request: PostGraphile in peer/queries.ts, ours in
 * ours.ts.
 */
import { canonicalDecimal, dateTimeMillis, type Selection } from './lib/neutral.ts';
import type { SqlReader } from './lib/databases.ts';

export type ReadWorkloadName = 'W0' | 'W1' | 'W2' | 'W3' | 'W4' | 'W6';
export type WorkloadName = ReadWorkloadName | 'W5';

export interface Workload {
  name: WorkloadName;
  title: string;
  /** The spec type at the root. */
  type: 'products' | 'customers' | 'suppliers';
  /** One resource by id, one page of a list ordered by id, or updates of one resource at a time (W5). */
  shape: 'one' | 'list' | 'update';
  /** Relationships followed (all attributes of every resource are read); none for an update. */
  include: Selection;
  /** The root resources' attributes read, by the spec's names, when not all of them (W6). */
  attributes?: string[];
  /** Default page size of a list workload. */
  pageSize?: number;
  /**
   * List filters, in the spec's terms (REST `active=1`, `modified_after=`); W6's in words: a text
   * fragment of the name in any language, a consumer price range (inclusive), and "has a structure
   * with an item whose product is in a product group".
   */
  filters?: {
    active?: true;
    modifiedAfter?: true;
    nameContains?: true;
    consumerPriceRange?: true;
    componentGroup?: true;
  };
  /** The list's totals are read too: its total count and the consumer price's count, min, max, sum (W6). */
  totals?: true;
}

export const WORKLOADS: Record<WorkloadName, Workload> = {
  W0: {
    name: 'W0',
    title: 'one product by id, all scalars',
    type: 'products',
    shape: 'one',
    include: {},
  },
  W1: {
    name: 'W1',
    title: '50 customers + address, customer type, language, currency, two to-many user lists',
    type: 'customers',
    shape: 'list',
    pageSize: 50,
    include: {
      address: {},
      customer_type: {},
      language: {},
      currency: {},
      commercial_resolve_responsible_users: {},
      inform_on_complaint_users: {},
    },
  },
  W2: {
    name: 'W2',
    title: 'products with structures + unit, product group, structure, items, item product and unit',
    type: 'products',
    shape: 'list',
    pageSize: 50,
    include: {
      unit: {},
      product_group: {},
      product_structure: { items: { product: {}, unit: {} } },
    },
  },
  W3: {
    name: 'W3',
    title: '50 suppliers + types, currency, address',
    type: 'suppliers',
    shape: 'list',
    pageSize: 50,
    include: { types: {}, currency: {}, address: {} },
  },
  W4: {
    name: 'W4',
    title: 'active products modified after a date, by id, page 3 of 50',
    type: 'products',
    shape: 'list',
    pageSize: 50,
    include: {},
    filters: { active: true, modifiedAfter: true },
  },
  W5: {
    name: 'W5',
    title: "update one product's consumer price and English name",
    type: 'products',
    shape: 'update',
    include: {},
  },
  W6: {
    name: 'W6',
    title:
      'products by name fragment (any language), price range and component group: first page of 20, totalCount, aggregate',
    type: 'products',
    shape: 'list',
    pageSize: 20,
    include: {},
    attributes: ['reference', 'name', 'consumer_price'],
    filters: { nameContains: true, consumerPriceRange: true, componentGroup: true },
    totals: true,
  },
};

/** One measured thing: a workload at one page size. `W2/10` is W2 with pages of 10. */
export interface WorkloadCase {
  key: string;
  workload: Workload;
  pageSize?: number;
  /** Concurrent connections of the load for this case (the concurrency sweep); the run's own when unset. */
  connections?: number;
}

/** A case by key: `W2` (its workload as defined), `W2/10` (another page size), `W0@1` (another number of connections). */
export function workloadCase(key: string): WorkloadCase {
  const [plain, connections] = key.split('@');
  const [name, size] = plain!.split('/');
  const workload = WORKLOADS[name as WorkloadName];
  if (!workload) throw new Error(`unknown workload ${name} (known: ${Object.keys(WORKLOADS).join(', ')})`);
  if (size !== undefined && (workload.shape !== 'list' || !/^[1-9]\d*$/.test(size))) throw new Error(`bad case ${key}`);
  if (connections !== undefined && !/^[1-9]\d*$/.test(connections)) throw new Error(`bad case ${key}`);
  return {
    key,
    workload,
    pageSize: workload.shape === 'list' ? Number(size ?? workload.pageSize) : undefined,
    ...(connections !== undefined ? { connections: Number(connections) } : {}),
  };
}

/** Parameters of a case in one database, in terms every protocol can use. */
export type CaseParams = OneParams | ListParams | UpdateParams;

export interface OneParams {
  shape: 'one';
  id: number;
}

export interface ListParams {
  shape: 'list';
  pageSize: number;
  /** 1-based page number (REST `page`, with `per_page` = pageSize). */
  page: number;
  /** Rows before the page in the filtered, id-ordered list (SQL/GraphQL `offset`). */
  offset: number;
  /** Id of the last row before the page, 0 on the first page (keyset: `id > afterId`). */
  afterId: number;
  /** Only active products (W4). */
  active?: boolean;
  /** Only rows with modified_date strictly after this ATOM date-time (W4). */
  modifiedAfter?: string;
  /** Only products with this text in their name in at least one language, case-insensitively (W6). */
  nameContains?: string;
  /** Only products whose consumer price is at least `min` and at most `max` (decimals, W6). */
  consumerPrice?: { min: string; max: string };
  /** Only products with a structure that has an item whose product is in this product group (W6). */
  componentGroup?: number;
  /** The ids the page must hold, in order (checked against every answer). */
  expectedIds: number[];
  /** The totals every answer must give, for a workload that reads them (W6). */
  expectedTotals?: Totals;
}

/**
 * A list's totals (W6): how many rows match, and the aggregate of their consumer prices (decimals
 * canonical, lib/neutral.ts; null over no prices). `aggregate` is left out by a target that has no
 * aggregates; `count` is the aggregate's count of rows, the same as totalCount.
 */
export interface Totals {
  totalCount: number;
  aggregate?: { count: number; min: string | null; max: string | null; sum: string | null };
}

/**
 * W5's updates: update n (from 0, counted over every target of the run) writes product
 * `firstId + n % count`, consumer price `firstCents + n` cents and English name `W5 update
 * <firstCents + n>`. A write that changes nothing writes nothing in our server (no version, no
 * change-log entry), so every update must change the product: the prices start above every price
 * these products hold and only go up, across targets and across runs. Consecutive updates go to
 * different products, so that no row lock is what the run measures.
 */
export interface UpdateParams {
  shape: 'update';
  firstId: number;
  count: number;
  firstCents: number;
}

/** One update of W5, in terms every protocol can use. */
export interface ProductUpdate {
  id: number;
  /** A decimal with two places, e.g. `"38.01"`. */
  consumerPrice: string;
  nameEn: string;
}

export function productUpdate(params: UpdateParams, n: number): ProductUpdate {
  const cents = params.firstCents + n;
  return {
    id: params.firstId + (n % params.count),
    consumerPrice: `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
    nameEn: `W5 update ${cents}`,
  };
}

/** A product's consumer price (canonical, lib/neutral.ts) and English name, as the database holds them. */
export async function storedProduct(
  sql: SqlReader,
  id: number,
): Promise<{ consumerPrice: string | null; nameEn: string | null } | undefined> {
  const [row] = await sql.all(`SELECT consumer_price, name_en FROM products WHERE id = ${id}`);
  return row && { consumerPrice: canonicalDecimal(row.consumer_price), nameEn: row.name_en as string | null };
}

/** How many products W5 rotates over (fewer on a small dataset: a fifth of its products). */
const W5_PRODUCTS = 2000;

/** The number of products W5 rewrites, the last ones by id, of `total` products. */
function w5Count(total: number): number {
  return Math.min(W5_PRODUCTS, Math.floor(total / 5));
}

export interface ResolvedCase extends WorkloadCase {
  params: CaseParams;
}

/** A case of W0-W4: it reads. */
export type ReadCase = ResolvedCase & {
  workload: Workload & { name: ReadWorkloadName };
  params: OneParams | ListParams;
};

export function isRead(c: ResolvedCase): c is ReadCase {
  return c.params.shape !== 'update';
}

/** ATOM (`YYYY-MM-DDTHH:MM:SS+00:00`), as the REST filter `modified_after` takes it. */
function atom(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

function page(ids: number[], pageSize: number, pageIndex: number, extra: Partial<ListParams> = {}): ListParams {
  const offset = pageIndex * pageSize;
  const expectedIds = ids.slice(offset, offset + pageSize);
  if (expectedIds.length < pageSize)
    throw new Error(`page ${pageIndex + 1} of ${pageSize} is not full (${expectedIds.length} rows)`);
  return {
    shape: 'list',
    pageSize,
    page: pageIndex + 1,
    offset,
    afterId: offset === 0 ? 0 : ids[offset - 1]!,
    expectedIds,
    ...extra,
  };
}

/**
 * Finds each case's parameters in the database. The seed is deterministic, but modified_date is
 * the time of seeding, so W4's date is taken from the data rather than written down.
 */
export async function resolveCases(sql: SqlReader, cases: WorkloadCase[]): Promise<ResolvedCase[]> {
  const products = (
    await sql.all('SELECT id, is_active, is_sales, gtin, brand_id, modified_date FROM products ORDER BY id')
  ).map((r) => ({
    id: Number(r.id),
    active: Boolean(r.is_active),
    sales: Boolean(r.is_sales),
    gtin: r.gtin as string | null,
    brand: r.brand_id as number | null,
    modified: dateTimeMillis(r.modified_date),
  }));
  const structured = new Set(
    (await sql.all('SELECT product_id FROM product_structures')).map((r) => Number(r.product_id)),
  );
  const idsOf = async (table: string) =>
    (await sql.all(`SELECT id FROM ${table} ORDER BY id`)).map((r) => Number(r.id));

  // W4: the modified_date of the middle product, to the second: the seed writes products in
  // batches of 1,000 with one timestamp each, so this keeps roughly the later half. Where that
  // leaves fewer than three pages (scale 1 is a single batch), every product qualifies.
  const middle = products[Math.floor(products.length / 2)]!;
  const w4Page = (size: number) => {
    let after = Math.floor(middle.modified / 1000) * 1000;
    const qualifying = (t: number) => products.filter((p) => p.active && p.modified > t).map((p) => p.id);
    if (qualifying(after).length < 3 * size)
      after = Math.floor(Math.min(...products.map((p) => p.modified)) / 1000) * 1000 - 1000;
    return page(qualifying(after), size, 2, { active: true, modifiedAfter: atom(after) });
  };

  const resolved: ResolvedCase[] = [];
  for (const c of cases) {
    const size = c.pageSize!;
    let params: CaseParams;
    switch (c.workload.name) {
      case 'W0': {
        // A finished good with a GTIN and a brand: most of its scalars are set.
        const product = products.find((p) => p.sales && p.gtin && p.brand);
        if (!product) throw new Error('W0: no finished product with a GTIN and a brand');
        params = { shape: 'one', id: product.id };
        break;
      }
      case 'W1':
        params = page(await idsOf('customers'), size, 0);
        break;
      case 'W3':
        params = page(await idsOf('suppliers'), size, 0);
        break;
      case 'W2': {
        // The first page (of this size, in id order) on which every product has a structure:
        // the first products by id are raw materials, which have none.
        const ids = products.map((p) => p.id);
        let index = -1;
        for (let p = 0; (p + 1) * size <= ids.length; p++) {
          if (ids.slice(p * size, (p + 1) * size).every((id) => structured.has(id))) {
            index = p;
            break;
          }
        }
        if (index < 0) throw new Error(`W2: no page of ${size} products that all have a structure`);
        params = page(ids, size, index);
        break;
      }
      case 'W4':
        params = w4Page(size);
        break;
      case 'W6':
        params = await w6Params(sql, size);
        break;
      case 'W5': {
        // The last products by id (8001-10000 at scale 20, finished goods). Our server sets
        // modified_date on every write, and W4's parameters depend on it: W5's products all come
        // after W4's date product and W4's page, so that the read cases find the same parameters
        // in the next run, after this one's writes.
        const count = w5Count(products.length);
        const rotation = products.slice(-count);
        const firstId = rotation[0]!.id;
        if (rotation.at(-1)!.id !== firstId + count - 1)
          throw new Error(`W5: the last ${count} product ids are not consecutive from ${firstId}`);
        const w4Last = w4Page(WORKLOADS.W4.pageSize!).expectedIds.at(-1)!;
        if (firstId <= middle.id || firstId <= w4Last)
          throw new Error(`W5: products from ${firstId} would rewrite W4's date (${middle.id}) or page (to ${w4Last})`);
        const [row] = await sql.all(`SELECT max(consumer_price) AS price FROM products WHERE id >= ${firstId}`);
        params = {
          shape: 'update',
          firstId,
          count,
          // The next whole unit above the highest price: every update raises the product's price.
          firstCents: (Math.floor(Number(row?.price ?? 0)) + 1) * 100,
        };
        break;
      }
    }
    resolved.push({ ...c, params });
  }
  return resolved;
}

// ---------------------------------------------------------------------------------------------
// W6: a name fragment, a price range and a component group, found in the data
// ---------------------------------------------------------------------------------------------

/** A decimal's canonical text as a whole number of 10^-scale units (exact). */
function decimalUnits(canonical: string, scale: number): bigint {
  const negative = canonical.startsWith('-');
  const [whole, fraction = ''] = canonical.replace('-', '').split('.');
  const units = BigInt(whole! + fraction.padEnd(scale, '0'));
  return negative ? -units : units;
}

function fractionDigits(canonical: string): number {
  return canonical.split('.')[1]?.length ?? 0;
}

function compareDecimals(a: string, b: string): number {
  const scale = Math.max(fractionDigits(a), fractionDigits(b));
  const [x, y] = [decimalUnits(a, scale), decimalUnits(b, scale)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The exact sum of canonical decimals, canonical (null for none). */
function sumDecimals(values: string[]): string | null {
  if (values.length === 0) return null;
  const scale = Math.max(...values.map(fractionDigits));
  const total = values.reduce((sum, v) => sum + decimalUnits(v, scale), 0n);
  const digits = (total < 0n ? -total : total).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return canonicalDecimal(`${total < 0n ? '-' : ''}${text}`);
}

interface W6Product {
  id: number;
  /** name_nl, name_fr, name_en, name_de (empty where unset). */
  names: string[];
  price: string | null;
  /** The product groups of the products its structure's items hold. */
  componentGroups: Set<number>;
}

/** Matched case-insensitively the way every side does it for an ASCII fragment. */
function nameMatches(p: W6Product, fragment: string): boolean {
  return p.names.some((n) => n.toLowerCase().includes(fragment));
}

/**
 * W6's parameters, found in the data, and the page and totals that follow from them:
 *
 * - the price range: the lower and upper quartiles of the consumer prices (the prices of real
 *   products, so that both inclusive bounds are met by some product);
 * - the group: of the product groups the items' products are in, the one whose products are in
 *   the structures of the number of priced products nearest to half of those with a structure;
 * - the fragment: four lowercase ASCII letters (no LIKE wildcard, the same case folding
 *   everywhere) found in the names, such that `any` and case-insensitivity both matter (no single
 *   language holds every match, and some product holds it only in another case, e.g. `Appel...`
 *   for `appe`), and all three filters leave more than a page; of those, the one matching the
 *   number of products nearest to 5% of them (ties: alphabetically first).
 *
 * All three are chosen among the products W5 does not rewrite (the last ones by id), so that the
 * parameters stay the same across runs. The page and the totals are the database's as it is now:
 * W5's products leave the price range at their first update (it raises their prices above every
 * price), so the totals of a database W5 has written are smaller than a fresh one's.
 */
async function w6Params(sql: SqlReader, size: number): Promise<ListParams> {
  const rows = await sql.all('SELECT id, name_nl, name_fr, name_en, name_de, consumer_price FROM products ORDER BY id');
  const byId = new Map<number, W6Product>();
  const all = rows.map((r) => {
    const p: W6Product = {
      id: Number(r.id),
      names: [r.name_nl, r.name_fr, r.name_en, r.name_de].map((n) => (n as string | null) ?? ''),
      price: canonicalDecimal(r.consumer_price),
      componentGroups: new Set(),
    };
    byId.set(p.id, p);
    return p;
  });
  const components = await sql.all(
    'SELECT s.product_id AS parent, c.product_group_id AS grp FROM product_structures s ' +
      'JOIN product_structure_items i ON i.product_structure_id = s.id JOIN products c ON c.id = i.product_id ' +
      'WHERE c.product_group_id IS NOT NULL',
  );
  for (const r of components) byId.get(Number(r.parent))?.componentGroups.add(Number(r.grp));
  const stable = all.slice(0, all.length - w5Count(all.length));

  const prices = stable
    .map((p) => p.price)
    .filter((v): v is string => v !== null)
    .sort(compareDecimals);
  if (prices.length < 4) throw new Error('W6: too few products with a consumer price');
  const range = {
    min: prices[Math.floor((prices.length - 1) / 4)]!,
    max: prices[Math.floor((3 * (prices.length - 1)) / 4)]!,
  };
  const inRange = (p: W6Product) =>
    p.price !== null && compareDecimals(p.price, range.min) >= 0 && compareDecimals(p.price, range.max) <= 0;

  const structured = stable.filter((p) => p.price !== null && p.componentGroups.size > 0);
  const groups = [...new Set(structured.flatMap((p) => [...p.componentGroups]))].sort((a, b) => a - b);
  const usedBy = (g: number) => structured.filter((p) => p.componentGroups.has(g)).length;
  const group = groups.reduce<number | undefined>(
    (best, g) =>
      best === undefined || Math.abs(usedBy(g) - structured.length / 2) < Math.abs(usedBy(best) - structured.length / 2)
        ? g
        : best,
    undefined,
  );
  if (group === undefined) throw new Error("W6: no product group among the structures' items");

  // Every four-letter lowercase ASCII run of the lowercased names: which products hold it, in
  // which language, and which hold it as written (so the others need case-insensitivity).
  const grams = new Map<string, { ids: Set<number>; byLanguage: Set<number>[]; asWritten: Set<number> }>();
  for (const p of stable) {
    p.names.forEach((name, language) => {
      const lower = name.toLowerCase();
      for (let i = 0; i + 4 <= lower.length; i++) {
        const gram = lower.slice(i, i + 4);
        if (!/^[a-z]{4}$/.test(gram)) continue;
        let entry = grams.get(gram);
        if (!entry) {
          entry = { ids: new Set(), byLanguage: [new Set(), new Set(), new Set(), new Set()], asWritten: new Set() };
          grams.set(gram, entry);
        }
        entry.ids.add(p.id);
        entry.byLanguage[language]!.add(p.id);
        if (name.includes(gram)) entry.asWritten.add(p.id);
      }
    });
  }
  const target = all.length * 0.05;
  const matchesAll = (p: W6Product, fragment: string) =>
    inRange(p) && p.componentGroups.has(group) && nameMatches(p, fragment);
  const candidates = [...grams.entries()]
    .filter(
      ([gram, e]) =>
        e.byLanguage.every((ids) => ids.size < e.ids.size) &&
        e.asWritten.size < e.ids.size &&
        stable.filter((p) => matchesAll(p, gram)).length > size,
    )
    .sort(([a, x], [b, y]) => Math.abs(x.ids.size - target) - Math.abs(y.ids.size - target) || (a < b ? -1 : 1));
  const fragment = candidates[0]?.[0];
  if (fragment === undefined) throw new Error('W6: no name fragment for which any language and case both matter');

  const matching = all.filter((p) => matchesAll(p, fragment));
  const matchingPrices = matching.map((p) => p.price!);
  const sorted = [...matchingPrices].sort(compareDecimals);
  return {
    ...page(
      matching.map((p) => p.id),
      size,
      0,
    ),
    nameContains: fragment,
    consumerPrice: range,
    componentGroup: group,
    expectedTotals: {
      totalCount: matching.length,
      aggregate: {
        count: matching.length,
        min: sorted[0] ?? null,
        max: sorted.at(-1) ?? null,
        sum: sumDecimals(matchingPrices),
      },
    },
  };
}
