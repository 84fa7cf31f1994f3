/**
 * As-of reads (docs/guides/looking-back.md) against what the API answered at the time, on both
 * providers: random writes through REST and GraphQL (test/support/random-writes.ts: attributes,
 * links set and removed, new products and structures, structure items added, updated, removed and
 * replaced, customers' users linked and unlinked in a join table, products and customers moving
 * in and out of a role's rows), one at a time; after each, chosen documents read as they are (REST
 * with `include`, GraphQL nested, a list with a where and its totalCount), for admin and for a
 * restricted role, with the instant of the write's change-log entries. Then every snapshot is read
 * again as of its instant, and as of a moment between it and the next write: the answers must be
 * the same, byte for byte but for `meta.as_of` and the log cursor.
 *
 * Then the same with one kind of write left out of the history (the triggers of a join table
 * dropped): the as-of reads must differ, or the test would not show that the history holds them.
 *
 * The writer's choices come from a seeded PRNG: AS_OF_SEED=<seed> replays them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import { providers } from '../support/databases.ts';
import { getTokens } from '../support/oauth.ts';
import { prng } from '../support/prng.ts';
import { RandomWriter, type World, worldOf } from '../support/random-writes.ts';
import { applyTestRoles, tokenWithRole } from '../support/roles.ts';
import { restSuite, type RestResponse } from '../rest/support.ts';

const SEED = Number(process.env.AS_OF_SEED ?? 20261127);
const WRITES = 60;

/** A restricted role: active products and customers only, some fields of them. */
const QUALITY = {
  products: {
    read: {
      fields: ['reference', 'name', 'consumer_price', 'is_active', 'unit', 'brand', 'product_structure'],
      where: { is_active: { equals: true } },
    },
  },
  product_structures: { read: {} },
  product_structure_items: { read: {} },
  product_structure_item_calculation_methods: { read: {} },
  units: { read: {} },
  brands: { read: {} },
  customers: {
    read: {
      fields: ['reference', 'name', 'is_active', 'commercial_resolve_responsible_users'],
      where: { is_active: { equals: true } },
    },
  },
  users: { read: {} },
};

/** What a principal reads after each write: the same requests again as of the write's instant. */
interface Reading {
  rest: { path: string; status: number; body: unknown }[];
  graphql: unknown;
}

describe.each(providers)('as-of reads on %s', (provider) => {
  const api = restSuite(provider);
  let writerToken: string;
  let roleToken: string;

  beforeAll(async () => {
    writerToken = (await getTokens(api.env.t, await createClient(api.prisma, 'mes', ['read', 'write']))).access_token;
    await applyTestRoles(api.env.database.db, { quality: QUALITY });
    roleToken = await tokenWithRole(api.env.t, api.env.database.db, 'quality', ['read']);
  });

  /** The GraphQL selection, the same on Query and on PastQuery. */
  const selection = `
    products(filter: { idIn: $products }, first: 50) { totalCount nodes { id version reference name { en nl } consumerPrice isActive
      unit { reference } brand { id }
      productStructure { id version quantity items { id version netQuantity lossPercentage isPhantom product { id reference } unit { reference } calculationMethod { id } } } } }
    active: products(filter: { idIn: $products }, where: { isActive: { equals: true } }) { totalCount }
    customers(filter: { idIn: $customers }) { nodes { id version name isActive commercialResolveResponsibleUsers { id username } } }`;

  /** `at` undefined: now. */
  async function read(world: World, token: string, at?: Date): Promise<Reading> {
    const asOf = at ? `as_of=${at.toISOString()}&` : '';
    const paths = [
      ...world.working.slice(0, 6).map((id) => `/products/${id}?${asOf}include=product_structure,unit,brand`),
      ...world.customers!.map((id) => `/customers/${id}?${asOf}include=commercial_resolve_responsible_users`),
      `/product_structures?${asOf}per_page=50&include=items`,
      `/customers/${world.customers![0]}/relationships/commercial_resolve_responsible_users${asOf ? `?${asOf.slice(0, -1)}` : ''}`,
    ];
    const rest = [];
    for (const path of paths) {
      const res: RestResponse = await api.get(path, { token });
      rest.push({
        path: path.replace(/as_of=[^&]*&?/, '').replace(/\?$/, ''),
        status: res.status,
        body: comparable(res.body),
      });
    }
    const variables = { products: world.working, customers: world.customers, ...(at ? { at: at.toISOString() } : {}) };
    const query = at
      ? `query($products: [Int!], $customers: [Int!], $at: DateTime!) { asOf(at: $at) { ${selection} } }`
      : `query($products: [Int!], $customers: [Int!]) { ${selection} }`;
    const { body } = await api.env.gql(query, variables, { token });
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return { rest, graphql: at ? body.data!.asOf : body.data };
  }

  /** The instant of the newest entry of the log, and its position. */
  async function newestEntry(): Promise<{ seq: number; at: Date } | undefined> {
    const entry = await api.prisma.change.findFirst({ where: { seq: { not: null } }, orderBy: { seq: 'desc' } });
    return entry ? { seq: entry.seq, at: new Date(entry.at) } : undefined;
  }

  /** Writes at random and reads after each write that logged entries; answers the readings by the write's instant. */
  async function writeAndRead(seed: number, world: World, writes: number) {
    const rng = prng(seed);
    const writer = new RandomWriter(api, provider, writerToken);
    const steps: { at: Date; admin: Reading; role: Reading }[] = [];
    const outcomes = new Map<string, number>();
    let last = await newestEntry();
    for (let n = 0; n < writes; n++) {
      // Writes a millisecond or more apart: an instant is the millisecond of its write.
      await new Promise((resolve) => setTimeout(resolve, 3));
      const [kind, outcome] = await writer.write(rng, world);
      outcomes.set(`${kind}: ${outcome}`, (outcomes.get(`${kind}: ${outcome}`) ?? 0) + 1);
      const newest = await newestEntry();
      if (!newest || newest.seq === last?.seq) continue;
      last = newest;
      steps.push({ at: newest.at, admin: await read(world, api.env.token), role: await read(world, roleToken) });
    }
    return { steps, outcomes };
  }

  /** The differences between the readings then and as of their instants (and a moment after each). */
  async function differences(world: World, steps: { at: Date; admin: Reading; role: Reading }[]) {
    const found: string[] = [];
    for (const [i, step] of steps.entries()) {
      const next = steps[i + 1]?.at.getTime() ?? step.at.getTime() + 2;
      const between = new Date(step.at.getTime() + Math.floor((next - step.at.getTime()) / 2));
      for (const at of new Set([step.at.getTime(), between.getTime()])) {
        for (const [who, token, then] of [
          ['admin', api.env.token, step.admin],
          ['role', roleToken, step.role],
        ] as const) {
          const past = await read(world, token, new Date(at));
          const label = `write ${i} at ${step.at.toISOString()}, read as of ${new Date(at).toISOString()} as ${who}`;
          for (const [r, answer] of past.rest.entries())
            if (JSON.stringify(answer) !== JSON.stringify(then.rest[r]))
              found.push(`${label}: REST ${answer.path}: ${diff(then.rest[r], answer)}`);
          if (JSON.stringify(past.graphql) !== JSON.stringify(then.graphql))
            found.push(`${label}: GraphQL: ${diff(then.graphql, past.graphql)}`);
        }
      }
    }
    return found;
  }

  it(`as of every write's instant, and between writes, both APIs answer what they answered then, for admin and for a role (${WRITES} random writes)`, {
    timeout: 300_000,
  }, async () => {
    const world = await worldOf(api, prng(SEED), 8, 4);
    const { steps, outcomes } = await writeAndRead(SEED, world, WRITES);
    console.log(
      `as-of on ${provider}: seed ${SEED}, ${steps.length} writes read again: ${[...outcomes].map(([k, v]) => `${k} x${v}`).join(', ')}`,
    );
    // Every kind of write is among them, and rows moved in and out of the role's.
    for (const kind of [
      'product attributes',
      'product link',
      'items added',
      'items removed',
      'items replaced',
      'item updated',
    ])
      expect(
        [...outcomes.keys()].some((k) => k.startsWith(`${kind}: ok`)),
        kind,
      ).toBe(true);
    expect([...outcomes.keys()].some((k) => k.startsWith('customer users'))).toBe(true);
    const roleCounts = new Set(steps.map((s) => JSON.stringify((s.role.graphql as any).products.totalCount)));
    expect(roleCounts.size, 'the role sees a changing number of products').toBeGreaterThan(1);
    expect(await differences(world, steps)).toEqual([]);
  });

  it('with the history of a join table left out, the as-of reads of its links differ from what was answered then', {
    timeout: 300_000,
  }, async () => {
    const db = api.env.database.db;
    for (const statement of provider === 'sqlite'
      ? [
          'DROP TRIGGER "customer_commercial_resolve_responsible_users_history_insert"',
          'DROP TRIGGER "customer_commercial_resolve_responsible_users_history_delete"',
        ]
      : [
          'DROP TRIGGER "customer_commercial_resolve_responsible_users_history_write" ON "customer_commercial_resolve_responsible_users"',
        ])
      await db.transaction((tx) => tx.execute({ toString: () => statement, values: [] }));
    const world = await worldOf(api, prng(SEED + 1), 8, 4);
    const { steps } = await writeAndRead(SEED + 1, world, 30);
    const found = await differences(world, steps);
    expect(found.some((d) => d.includes('commercial'))).toBe(true);
  });
});

/**
 * An answer without what an as-of read adds to it (`meta.as_of`, and `as_of` in the links of
 * pages, which keep the query), and the log position, which is not part of a document's state.
 */
function comparable(answer: any): unknown {
  if (!answer || typeof answer !== 'object') return answer;
  const body = JSON.parse(
    JSON.stringify(answer)
      .replace(/as_of=[^&"]*(&|(?="))/g, '')
      .replace(/\?(?=")/g, ''),
  );
  const { meta, ...rest } = body as { meta?: Record<string, unknown> };
  if (!meta) return rest;
  const { as_of: _asOf, changes_cursor: _cursor, ...kept } = meta;
  return Object.keys(kept).length > 0 ? { ...rest, meta: kept } : rest;
}

/** Where two JSON values first differ, briefly. */
function diff(then: unknown, now: unknown, path = ''): string {
  if (JSON.stringify(then) === JSON.stringify(now)) return '';
  if (then && now && typeof then === 'object' && typeof now === 'object') {
    for (const key of new Set([...Object.keys(then), ...Object.keys(now)])) {
      const d = diff((then as any)[key], (now as any)[key], `${path}.${key}`);
      if (d) return d;
    }
  }
  return `${path || '.'}: then ${JSON.stringify(then)?.slice(0, 200)}, as of ${JSON.stringify(now)?.slice(0, 200)}`;
}
