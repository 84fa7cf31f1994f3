/**
 * `npm run import` as an operator moving off the old service runs it: a real server (this one's
 * REST layer, which speaks the old interface) on the demo data of one database, imported into an
 * empty database of the other provider. Every resource of every type, read back through the old
 * interface, is the same (ids, versions and `modified_date` included); a second run writes
 * nothing; an interrupted run, run again, finishes. An export imported into an empty database
 * reproduces it too. Bad records are named (type, id, field) and stop the import, `--check`
 * lists them all and writes nothing, `--accept-invalid` takes what only the clean-data rules
 * refuse; a CSV without ids is upserted on its business key, links given by the target's key.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/auth/clients.ts';
import { exportData } from '../src/transfer/export.ts';
import { importData } from '../src/transfer/import.ts';
import { serviceSource } from '../src/transfer/service-source.ts';
import type { ImportSource } from '../src/transfer/sources.ts';
import { resources } from '../src/resources/registry.ts';
import type { Provider } from '../src/db/url.ts';
import { seedDatabase } from '../src/seed/write.ts';
import { type TestApp, testApp } from './support/app.ts';
import { migratedDatabase, type MigratedDatabase, providers } from './support/databases.ts';
import { createUnit, type Listening, listen, logHead } from './support/live.ts';
import { basic } from './support/oauth.ts';
import { runScript } from './support/process.ts';

const other = (provider: Provider): Provider =>
  providers.length === 1 ? provider : provider === 'sqlite' ? 'postgresql' : 'sqlite';

/** A token of a new admin client of `t`'s database. */
async function tokenOf(database: MigratedDatabase, t: TestApp): Promise<{ token: string; id: string; secret: string }> {
  const client = await createClient(database.db.prisma, `import-${Math.random()}`, ['read', 'write']);
  const res = await t.request('/oauth/token.php', {
    method: 'POST',
    headers: {
      Authorization: basic(client.client_id, client.client_secret),
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  const { access_token: token } = (await res.json()) as { access_token: string };
  return { token, id: client.client_id, secret: client.client_secret };
}

/** Every resource of every type as the old interface lists it, by type, in id order. */
async function everything(t: TestApp, token: string): Promise<Record<string, unknown[]>> {
  const all: Record<string, unknown[]> = {};
  for (const { type } of resources) {
    all[type] = [];
    for (let page = 1; ; page++) {
      const res = await t.request(`/${type}?page=${page}&per_page=50`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(res.status, type).toBe(200);
      const document = (await res.json()) as { data: { id: number }[] };
      all[type].push(...document.data);
      if (document.data.length < 50) break;
    }
    all[type].sort((a, b) => (a as { id: number }).id - (b as { id: number }).id);
  }
  return all;
}

/** Entries in the change log. */
const logLength = (database: MigratedDatabase) => (database.db.prisma as any).change.count() as Promise<number>;

describe.each(providers)('import from a service on %s', (provider) => {
  let source: MigratedDatabase;
  let sourceApp: TestApp;
  let server: Listening;
  let credentials: { token: string; id: string; secret: string };
  let expected: Record<string, unknown[]>;
  const targets: MigratedDatabase[] = [];
  const dirs: string[] = [];

  /** An empty database of the other provider, with an app over it and a token of that app. */
  async function emptyTarget() {
    const database = await migratedDatabase(other(provider));
    targets.push(database);
    const t = testApp(database);
    return { database, t, token: (await tokenOf(database, t)).token };
  }

  const importCli = (target: MigratedDatabase, ...args: string[]) =>
    runScript('src/transfer/import-cli.ts', [...args, '--json'], { DATABASE_URL: target.target.url }, 120_000);

  const fromService = () => [
    '--from-service',
    server.baseUrl,
    '--client-id',
    credentials.id,
    '--client-secret',
    credentials.secret,
  ];

  beforeAll(async () => {
    source = await migratedDatabase(provider);
    await seedDatabase(source.db, { scale: 1 });
    sourceApp = testApp(source);
    server = await listen(sourceApp.app);
    credentials = await tokenOf(source, sourceApp);
    expected = await everything(sourceApp, credentials.token);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await source?.cleanup();
    for (const target of targets) await target.cleanup();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('copies every resource with its id, version and modified_date; a second run writes nothing', async () => {
    const { database, t, token } = await emptyTarget();
    const first = await importCli(database, ...fromService());
    expect(first.code, first.stderr).toBe(0);
    const summary = JSON.parse(first.stdout);
    expect(summary.problems).toEqual([]);
    for (const { type } of resources) {
      expect(summary.types[type], type).toMatchObject({
        read: expected[type]!.length,
        created: expected[type]!.length,
      });
    }
    expect(await everything(t, token)).toEqual(expected);
    // Each imported resource is in the target's change log, as created.
    const entries = await logLength(database);
    expect(entries).toBe(Object.values(expected).reduce((sum, rows) => sum + rows.length, 0));

    const second = await importCli(database, ...fromService());
    expect(second.code, second.stderr).toBe(0);
    for (const [type, counts] of Object.entries(JSON.parse(second.stdout).types))
      expect(counts, type).toMatchObject({ created: 0, updated: 0 });
    expect(await logLength(database)).toBe(entries);

    // A resource changed at the source comes over as that change alone; a new one gets a new id after the imported ones.
    const product = expected.products![0] as { id: number; attributes: { reference: string } };
    const patched = await sourceApp.request(`/products/${product.id}`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${credentials.token}`, 'Content-Type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: 'products', id: product.id, attributes: { consumer_price: 12.34 } } }),
    });
    expect(patched.status).toBe(200);
    const third = JSON.parse((await importCli(database, ...fromService())).stdout);
    expect(third.types.products).toMatchObject({ created: 0, updated: 1 });
    expect(await everything(t, token)).toEqual(await everything(sourceApp, credentials.token));
    const created = await t.request('/brands', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: 'brands', attributes: { reference: 'AFTER-IMPORT' } } }),
    });
    expect(created.status).toBe(201);
    const brandIds = expected.brands!.map((b) => (b as { id: number }).id);
    expect(((await created.json()) as { data: { id: number } }).data.id).toBeGreaterThan(Math.max(...brandIds));
  }, 240_000);

  it('an interrupted import, run again, finishes where it stopped', async () => {
    const { database, t, token } = await emptyTarget();
    const service = serviceSource(server.baseUrl, { clientId: credentials.id, clientSecret: credentials.secret }, []);
    let pages = 0;
    const failing: ImportSource = {
      ...service,
      async *pages(type) {
        for await (const page of service.pages(type)) {
          if (++pages === 30) throw new Error('connection reset');
          yield page;
        }
      },
    };
    await expect(importData(database.db, failing)).rejects.toThrow('connection reset');
    const written = await logLength(database);
    expect(written).toBeGreaterThan(0);
    const rerun = await importCli(database, ...fromService());
    expect(rerun.code, rerun.stderr).toBe(0);
    const summary = JSON.parse(rerun.stdout);
    const created = Object.values(summary.types).reduce((sum: number, c: any) => sum + c.created, 0);
    const total = Object.values(expected).reduce((sum, rows) => sum + rows.length, 0);
    expect(created).toBe(total - written);
    expect(await everything(t, token)).toEqual(await everything(sourceApp, credentials.token));
  }, 240_000);

  it.each(['ndjson', 'csv'] as const)(
    'an export in %s, imported into an empty database, reproduces it',
    async (format) => {
      const dir = mkdtempSync(join(tmpdir(), 'import-'));
      dirs.push(dir);
      await exportData(source.db, { dir, types: resources.map((r) => r.type), format });
      const { database, t, token } = await emptyTarget();
      const run = await importCli(database, '--from', dir);
      expect(run.code, run.stderr).toBe(0);
      expect(await everything(t, token)).toEqual(await everything(sourceApp, credentials.token));
    },
    240_000,
  );

  it('names each bad record; --check lists them all and writes nothing; --accept-invalid takes rule breaks only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-bad-'));
    dirs.push(dir);
    await exportData(source.db, { dir, types: resources.map((r) => r.type), format: 'ndjson' });
    const lines = readFileSync(join(dir, 'products.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const [a, b, c] = lines;
    a.gtin = '4006381333932';
    b.reference = '   ';
    c.unit_id = 987654;
    writeFileSync(join(dir, 'products.ndjson'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    // A file edited on purpose: its digest taken out of the manifest (its rows and fields are still checked).
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    delete manifest.types.products.sha256;
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
    const { database } = await emptyTarget();

    const checked = await importCli(database, '--from', dir, '--check');
    expect(checked.code).toBe(1);
    const problems = JSON.parse(checked.stdout).problems.map((p: any) => [p.type, p.id, p.field]);
    expect(problems).toEqual([
      ['products', a.id, 'gtin'],
      ['products', b.id, 'reference'],
      ['products', c.id, 'unit_id'],
    ]);
    expect(JSON.parse(checked.stdout).problems[2].message).toBe(
      'unit_id: dangling reference, units 987654 does not exist',
    );
    expect(await logLength(database)).toBe(0);
    expect(await (database.db.prisma as any).unit.count()).toBe(0);
    expect(JSON.parse(checked.stdout).types.product_structure_items.read).toBeGreaterThan(0);

    const refused = await importCli(database, '--from', dir);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).problems).toHaveLength(3);
    expect(await (database.db.prisma as any).product.count()).toBe(0);

    c.unit_id = lines[3].unit_id;
    // A decimal as a service that keeps doubles writes it: the same number at 15 digits.
    lines[4].consumer_price = 3.3000000000000003;
    writeFileSync(join(dir, 'products.ndjson'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const accepted = await importCli(database, '--from', dir, '--accept-invalid');
    expect(accepted.code, accepted.stderr).toBe(0);
    const summary = JSON.parse(accepted.stdout);
    expect(summary.accepted.map((p: any) => [p.id, p.field])).toEqual([
      [a.id, 'gtin'],
      [b.id, 'reference'],
    ]);
    expect(await (database.db.prisma as any).product.findUnique({ where: { id: a.id } })).toMatchObject({
      gtin: '4006381333932',
    });
    const priced = await (database.db.prisma as any).product.findUnique({ where: { id: lines[4].id } });
    expect(String(priced.consumer_price)).toBe('3.3');
  }, 240_000);

  it('a CSV with ids (a byte-order mark before them too) keeps them; a reference another row holds is named', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-ids-'));
    dirs.push(dir);
    const { database } = await emptyTarget();
    await database.db.prisma.unit.create({ data: { id: 40, reference: 'HELD' } });
    const file = join(dir, 'units.csv');
    writeFileSync(file, '\uFEFFid,reference,description.en\n70,BOX,Box\n71,HELD,Held elsewhere\n');
    const checked = await importCli(database, '--from-csv', file, '--type', 'units', '--check');
    expect(checked.code).toBe(1);
    expect(JSON.parse(checked.stdout).problems.map((p: any) => [p.id, p.field, p.message])).toEqual([
      [71, 'reference', 'reference "HELD" is already held by units 40'],
    ]);
    writeFileSync(file, '\uFEFFid,reference,description.en\n70,BOX,Box\n');
    const run = await importCli(database, '--from-csv', file, '--type', 'units');
    expect(run.code, run.stderr).toBe(0);
    expect(await database.db.prisma.unit.findUnique({ where: { id: 70 } })).toMatchObject({
      reference: 'BOX',
      description_en: 'Box',
    });
  }, 240_000);

  it('a structure moved to another product: both products get a new version and a change-log entry; a second run writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-move-'));
    dirs.push(dir);
    const { database, t, token } = await emptyTarget();
    const send = async (method: string, path: string, body?: unknown) => {
      const res = await t.request(path, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/vnd.api+json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return ((await res.json()) as any).data;
    };
    const unit = await createUnit(t.request, token);
    const product = (reference: string) =>
      send('POST', '/products', {
        data: {
          type: 'products',
          attributes: { reference },
          relationships: { unit: { data: { type: 'units', id: unit } } },
        },
      });
    const [from, to] = [await product('MOVE-FROM'), await product('MOVE-TO')];
    const structure = await send('POST', `/products/${from.id}/product_structure`, {
      data: { type: 'product_structures', attributes: { quantity: 1 } },
    });
    const versionOf = async (id: number) => (await send('GET', `/products/${id}`)).meta.version;
    const [fromVersion, toVersion] = [await versionOf(from.id), await versionOf(to.id)];
    const before = await logHead(database.db.prisma);
    const file = join(dir, 'structures.csv');
    writeFileSync(file, `id,product_id\n${structure.id},${to.id}\n`);
    const run = await importCli(database, '--from-csv', file, '--type', 'product_structures');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).types.product_structures).toMatchObject({ updated: 1 });
    expect((await send('GET', `/products/${from.id}`)).relationships.product_structure.data).toBeNull();
    expect((await send('GET', `/products/${to.id}`)).relationships.product_structure.data).toEqual({
      type: 'product_structures',
      id: Number(structure.id),
    });
    expect([await versionOf(from.id), await versionOf(to.id)]).toEqual([fromVersion + 1, toVersion + 1]);
    const entries = await database.db.prisma.change.findMany({
      where: { seq: { gt: before } },
      orderBy: { seq: 'asc' },
      select: { resource_type: true, resource_id: true, op: true, version: true, changed: true },
    });
    expect(entries).toEqual(
      expect.arrayContaining([
        {
          resource_type: 'products',
          resource_id: Number(from.id),
          op: 'updated',
          version: fromVersion + 1,
          changed: '["product_structure"]',
        },
        {
          resource_type: 'products',
          resource_id: Number(to.id),
          op: 'updated',
          version: toVersion + 1,
          changed: '["product_structure"]',
        },
      ]),
    );
    const again = await importCli(database, '--from-csv', file, '--type', 'product_structures');
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).types.product_structures).toMatchObject({ updated: 0, unchanged: 1 });
    expect(await logHead(database.db.prisma)).toBe(before + entries.length);
  }, 240_000);

  it('a CSV without ids is upserted on its business key, links by the target key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-csv-'));
    dirs.push(dir);
    const { database, t, token } = await emptyTarget();
    await database.db.prisma.unit.create({ data: { reference: 'KG' } });
    const file = join(dir, 'products.csv');
    writeFileSync(
      file,
      'reference,name.nl,name.en,unit.reference,consumer_price,is_sales\nCSV-1,Kaas,Cheese,KG,2.50,true\nCSV-2,Melk,,KG,,0\n',
    );
    const first = await importCli(database, '--from-csv', file, '--type', 'products');
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).types.products).toMatchObject({ read: 2, created: 2 });
    const res = await t.request('/products?per_page=50', { headers: { Authorization: `Bearer ${token}` } });
    const listed = ((await res.json()) as any).data.map((p: any) => [
      p.attributes.reference,
      p.attributes.name,
      p.attributes.consumer_price,
      p.attributes.is_sales,
    ]);
    expect(listed).toEqual([
      ['CSV-1', { nl: 'Kaas', fr: null, en: 'Cheese', de: null }, 2.5, true],
      ['CSV-2', { nl: 'Melk', fr: null, en: null, de: null }, null, false],
    ]);
    writeFileSync(file, 'reference,unit.reference,consumer_price\nCSV-1,KG,2.50\nCSV-2,KG,3\n');
    const second = await importCli(database, '--from-csv', file, '--type', 'products');
    expect(JSON.parse(second.stdout).types.products).toMatchObject({ unchanged: 1, updated: 1 });
    // Only what changes: rows matched on their key need not repeat their unit.
    writeFileSync(file, 'reference,consumer_price\nCSV-1,2.75\n');
    const partial = await importCli(database, '--from-csv', file, '--type', 'products');
    expect(partial.code, partial.stderr).toBe(0);
    expect(JSON.parse(partial.stdout).types.products).toMatchObject({ updated: 1 });
    writeFileSync(file, 'reference,unit.reference,gtin\nCSV-3,LB,4006381333932\n');
    const bad = await importCli(database, '--from-csv', file, '--type', 'products', '--check');
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).problems.map((p: any) => [p.field, p.message])).toEqual([
      ['gtin', expect.stringMatching(/^gtin has a wrong GS1 check digit/)],
      ['unit.reference', 'unit.reference: none of the units has reference "LB"'],
    ]);
    // What a terminal is told (without --json): counts in the number they take.
    const told = await runScript(
      'src/transfer/import-cli.ts',
      ['--from-csv', file, '--type', 'products'],
      { DATABASE_URL: database.target.url },
      120_000,
    );
    expect(told.code).toBe(1);
    expect(told.stderr).toMatch(/^import: 1 row read in /m);
    expect(told.stderr).toContain('stopped on 2 problems; nothing of their batch was written');
  }, 240_000);
});
