/**
 * The workloads, as data: what each one reads (root type, one or a page, the relationships it
 * follows) or, for W5, writes, and how its parameters are found in a prepared database. Each
 * server turns a resolved case into its own request: PostGraphile in peer/queries.ts, ours in
 * ours.ts.
 */
import { canonicalDecimal, dateTimeMillis, type Selection } from './lib/neutral.ts';
import type { SqlReader } from './lib/databases.ts';

export type ReadWorkloadName = 'W0' | 'W1' | 'W2' | 'W3' | 'W4';
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
  /** Default page size of a list workload. */
  pageSize?: number;
  /** List filters, in the spec's terms (REST `active=1`, `modified_after=`). */
  filters?: { active?: true; modifiedAfter?: true };
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
  /** The ids the page must hold, in order (checked against every answer). */
  expectedIds: number[];
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
      case 'W5': {
        // The last products by id (8001-10000 at scale 20, finished goods). Our server sets
        // modified_date on every write, and W4's parameters depend on it: W5's products all come
        // after W4's date product and W4's page, so that the read cases find the same parameters
        // in the next run, after this one's writes.
        const count = Math.min(W5_PRODUCTS, Math.floor(products.length / 5));
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
