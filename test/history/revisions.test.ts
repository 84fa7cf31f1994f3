/**
 * As-of reads over a recipe's revisions and across the history's purge, on both providers
 * (docs/guides/looking-back.md): the explosion of a bill of material as of each revision's date;
 * before the oldest instant the hub keeps, `history_purged` naming it; after it, still exact.
 */
import { describe, expect, it } from 'vitest';
import { purgeHistory } from '../../src/data/changes.ts';
import { providers } from '../support/databases.ts';
import { restSuite } from '../rest/support.ts';

describe.each(providers)('as-of reads of revisions on %s', (provider) => {
  const api = restSuite(provider);

  /** The instant of the newest entry of the log: that of the last write. */
  async function lastInstant(): Promise<Date> {
    const entry = await api.prisma.change.findFirst({ where: { seq: { not: null } }, orderBy: { seq: 'desc' } });
    return new Date(entry.at);
  }

  const lastInstantOf = async (seq: number): Promise<Date> =>
    new Date((await api.prisma.change.findFirst({ where: { seq } })).at);

  const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

  const explosion = `bom { level netQuantity grossQuantity path { reference } product { reference } unit { reference } }`;

  it('bom under asOf, over three revisions of a recipe, is the explosion of each revision on its dates', async () => {
    // A product with a structure, and components of which one has a structure of its own (a second level).
    const structures = await api.prisma.productStructure.findMany({
      select: { id: true, product_id: true },
      orderBy: { id: 'asc' },
    });
    const [recipe, sub] = structures;
    const plain = await api.prisma.product.findMany({
      where: { product_structure: { is: null } },
      select: { id: true },
      orderBy: { id: 'asc' },
      take: 3,
    });
    const unit = (await api.prisma.unit.findFirst({ orderBy: { id: 'asc' } })).id;
    const item = (product: number, quantity: number) => ({
      type: 'product_structure_items',
      attributes: { net_quantity: quantity },
      relationships: {
        product: { data: { type: 'products', id: product } },
        unit: { data: { type: 'units', id: unit } },
      },
    });
    const revisions = [
      [item(plain[0].id, 1.5)],
      [item(plain[0].id, 2), item(sub.product_id, 0.25)],
      [item(plain[1].id, 3), item(plain[2].id, 0.125), item(sub.product_id, 1)],
    ];
    const query = `query($id: Int!) { product(id: $id) { ${explosion} } }`;
    const dated: { at: Date; bom: unknown; items: unknown }[] = [];
    for (const items of revisions) {
      await pause();
      const res = await api.patch(`/product_structures/${recipe.id}/relationships/items`, { data: items });
      expect(res.status, res.text).toBe(200);
      const { body } = await api.env.gql(query, { id: recipe.product_id });
      const rest = await api.get(`/product_structures/${recipe.id}?include=items`);
      dated.push({ at: await lastInstant(), bom: body.data!.product.bom, items: rest.body.included });
    }
    // The three explosions differ: each revision is told apart.
    expect(new Set(dated.map((d) => JSON.stringify(d.bom))).size).toBe(3);
    expect((dated[1]!.bom as { level: number }[]).some((line) => line.level === 2)).toBe(true);

    const asOf = `query($id: Int!, $at: DateTime!) { asOf(at: $at) { product(id: $id) { ${explosion} } } }`;
    for (const [i, { at, bom, items }] of dated.entries()) {
      const next = dated[i + 1]?.at ?? new Date();
      for (const instant of [at, new Date((at.getTime() + next.getTime()) / 2)]) {
        const { body } = await api.env.gql(asOf, { id: recipe.product_id, at: instant.toISOString() });
        expect(body.errors).toBeUndefined();
        expect(body.data!.asOf.product.bom, `revision ${i + 1} as of ${instant.toISOString()}`).toEqual(bom);
        const rest = await api.get(`/product_structures/${recipe.id}?include=items&as_of=${instant.toISOString()}`);
        expect(rest.status).toBe(200);
        expect(rest.body.included).toEqual(items);
        expect(rest.body.meta.as_of).toBe(instant.toISOString());
        // The related path, with the instant's offset written as a URL may leave it (`+` read as a space).
        const local = new Date(instant.getTime() + 3_600_000).toISOString().replace(/\.(\d+)Z$/, '.$1+01:00');
        const related = await api.get(`/products/${recipe.product_id}/product_structure?include=items&as_of=${local}`);
        expect(related.status, related.text).toBe(200);
        expect(related.body.included).toEqual(items);
        expect(related.body.meta.as_of).toBe(instant.toISOString());
      }
    }
  });

  it('an as-of read costs the statements of the same read now: one per type and level, whatever the rows', async () => {
    const at = new Date().toISOString();
    const selection = `products(first: $first) { totalCount nodes { reference unit { reference } brand { id }
      productStructure { items { netQuantity product { reference } unit { reference } } } } }`;
    for (const first of [5, 50]) {
      const now = await api.env.gql(`query($first: Int) { ${selection} }`, { first });
      const past = await api.env.gql(`query($first: Int, $at: DateTime!) { asOf(at: $at) { ${selection} } }`, {
        first,
        at,
      });
      expect(past.body.errors).toBeUndefined();
      expect(past.body.data!.asOf).toEqual(now.body.data);
      expect(past.statements, `first: ${first}`).toBe(now.statements);
    }
    // REST: the page with its total and its structures' ids, then the units included.
    const statementsOf = async (path: string) => {
      const before = api.env.database.db.statementCount;
      const res = await api.get(path);
      return { body: res.body, statements: api.env.database.db.statementCount - before };
    };
    const restNow = await statementsOf('/products?per_page=50&include=product_structure,unit');
    const restPast = await statementsOf(`/products?per_page=50&include=product_structure,unit&as_of=${at}`);
    expect(restPast.body.data).toEqual(restNow.body.data);
    expect(restPast.statements).toBe(restNow.statements);
    expect(restPast.statements).toBe(2);
  });

  it("as of an instant, the log's cursor stands before the first entry written after it, also when numbers and instants disagree", async () => {
    const cursorNow = async () => (await api.get('/units?per_page=1')).body.meta.changes_cursor as string;
    const cursorAsOf = async (at: Date) =>
      (await api.get(`/units?per_page=1&as_of=${at.toISOString()}`)).body.meta.changes_cursor as string;
    const written: { seq: number; cursor: string }[] = [];
    for (const [n, product] of [2, 3, 4].entries()) {
      await pause();
      const res = await api.patch(`/products/${product}`, { data: { type: 'products', attributes: { nlc: 70 + n } } });
      expect(res.status).toBe(200);
      const entry = await api.prisma.change.findFirst({ where: { seq: { not: null } }, orderBy: { seq: 'desc' } });
      written.push({ seq: entry.seq, cursor: await cursorNow() });
    }
    const [first, second, third] = written as [(typeof written)[0], (typeof written)[0], (typeof written)[0]];
    // The third entry dated before the second (a transaction that began later and committed
    // first would be): the first entry after t0 by instant is the third, by number the second.
    const t0 = new Date((await lastInstantOf(first.seq)).getTime() + 1);
    await api.prisma.change.updateMany({ where: { seq: second.seq }, data: { at: new Date(t0.getTime() + 2) } });
    await api.prisma.change.updateMany({ where: { seq: third.seq }, data: { at: new Date(t0.getTime() + 1) } });
    expect(await cursorAsOf(t0)).toBe(first.cursor);
    expect(await cursorAsOf(new Date(t0.getTime() + 1))).toBe(first.cursor);
    // After every entry: the log as it stands.
    expect(await cursorAsOf(new Date())).toBe(third.cursor);
    expect(third.cursor).not.toBe(first.cursor);
    // Around the instants of the log's first entries and of its last ones (PostgreSQL finds the
    // bound by one walk or the other, by where it lies): the entry before the first one after.
    const log: { seq: number; at: number }[] = (
      await api.prisma.change.findMany({ where: { seq: { not: null } }, orderBy: { seq: 'asc' } })
    ).map((e: any) => ({ seq: e.seq as number, at: new Date(e.at).getTime() }));
    expect(log.length).toBeGreaterThan(6);
    for (const entry of [...log.slice(0, 3), ...log.slice(-3)])
      for (const at of [entry.at, entry.at + 1]) {
        const firstAfter = Math.min(...log.filter((e) => e.at > at).map((e) => e.seq));
        const before = log.filter((e) => e.seq < firstAfter).map((e) => e.seq);
        if (before.length > 0) expect(await cursorAsOf(new Date(at))).toBe(String(Math.max(...before)));
      }
  });

  it('across a purge: before the oldest instant kept, history_purged naming it; from it on, exact', async () => {
    const path = '/products/1';
    const renamed: { at: Date; body: unknown }[] = [];
    for (const name of ['first', 'second', 'third']) {
      await pause();
      const res = await api.patch(path, { data: { type: 'products', attributes: { name: { en: `purge ${name}` } } } });
      expect(res.status).toBe(200);
      renamed.push({ at: await lastInstant(), body: (await api.get(path)).body.data });
      await pause();
    }
    const [first, second, third] = renamed as [(typeof renamed)[0], (typeof renamed)[0], (typeof renamed)[0]];
    const versions = () => api.prisma.$queryRawUnsafe(`SELECT COUNT(*) AS n FROM "products_history" WHERE "id" = 1`);
    const before = Number(((await versions()) as { n: unknown }[])[0]!.n);

    // A retention of one day, a day after a moment between the second write and the third.
    const cutoff = new Date(second.at.getTime() + 2);
    const purged = await purgeHistory(api.env.database.db, { now: () => new Date(cutoff.getTime() + 86_400_000) }, 1);
    expect(purged).toBeGreaterThan(0);
    expect(Number(((await versions()) as { n: unknown }[])[0]!.n)).toBeLessThan(before);

    const old = await api.get(`${path}?as_of=${first.at.toISOString()}`);
    expect(old.status).toBe(410);
    // Year 0, which PostgreSQL's calendar does not have, is before the history too.
    expect((await api.get(`${path}?as_of=0000-01-01T00:00:00Z`)).status).toBe(410);
    expect(old.body.error.code).toBe('history_purged');
    expect(old.body.error.message).toContain(cutoff.toISOString());
    const { body } = await api.env.gql('query($at: DateTime!) { asOf(at: $at) { product(id: 1) { id } } }', {
      at: first.at.toISOString(),
    });
    expect(body.errors![0]!.extensions!.code).toBe('HISTORY_PURGED');
    expect(body.errors![0]!.extensions!.oldest).toBe(cutoff.toISOString());

    for (const [at, then] of [
      [cutoff, second.body],
      [third.at, third.body],
      [new Date(), third.body],
      // The last instant RFC 3339 spells, past the present versions' open end: the present.
      [new Date('9999-12-31T23:59:59.999Z'), third.body],
    ] as const) {
      const res = await api.get(`${path}?as_of=${at.toISOString()}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(then);
    }
  });
});
