/**
 * The fuzz suites' world: a migrated database with a few resources of every type (made through
 * the API itself, so that ids 1 to 3 exist everywhere), an app over it, a read-write token, and
 * how many cases to run.
 */
import { createClient } from '../../src/auth/clients.ts';
import type { Provider } from '../../src/db/url.ts';
import { resources } from '../../src/resources/registry.ts';
import type { ResourceDefinition } from '../../src/resources/types.ts';
import { testApp, type TestApp } from '../support/app.ts';
import { migratedDatabase, type MigratedDatabase } from '../support/databases.ts';
import { dumpDatabase } from '../support/dump.ts';
import { getTokens } from '../support/oauth.ts';

/**
 * Cases per surface and provider: 1,000 in CI (the default: a share of CI's 20 minutes; the
 * default seed's run finds each defect the fuzzers were shown to catch well within it);
 * `npm run fuzz -- --runs N` sets more.
 */
export const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
/** Random roles per surface and provider, each with its reads sent twice (./roles.ts): 4 in CI. */
export const ROLES = Math.max(1, Math.round(RUNS / 250));
/** Fixed by default, so that a CI failure replays; `npm run fuzz -- --seed S` picks another. */
export const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
/** Resources of each type the fixture makes. */
export const FIXTURE_ROWS = 3;

export interface FuzzEnv {
  database: MigratedDatabase;
  t: TestApp;
  token: string;
}

/** The smallest valid ADD body of a type: its required attributes, its required links to id 1. */
function minimalBody(resource: ResourceDefinition, n: number) {
  const attributes: Record<string, unknown> = {};
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    if (attribute.required)
      attributes[name] = attribute.type === 'integer' ? 1000 + n : `${resource.type}-${name}-${n}`;
  }
  const relationships: Record<string, unknown> = {};
  for (const [name, rel] of Object.entries(resource.relationships)) {
    if (rel.required) relationships[name] = { data: { type: rel.target, id: 1 } };
  }
  return { data: { type: resource.type, attributes, relationships } };
}

async function post(t: TestApp, token: string, path: string, body: unknown): Promise<Response> {
  return t.request(path, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** FIXTURE_ROWS of every type that can be added, in as many passes as their links need; two structures with an item each. */
async function makeFixture(t: TestApp, token: string): Promise<void> {
  const pending = resources.filter((r) => r.operations.includes('add') && !r.forbidden?.operations.includes('add'));
  for (let pass = 0; pending.length > 0; pass++) {
    if (pass > 5) throw new Error(`fixture: cannot add ${pending.map((r) => r.type).join(', ')}`);
    for (const resource of [...pending]) {
      const answers = [];
      for (let n = 1; n <= FIXTURE_ROWS; n++)
        answers.push(await post(t, token, `/${resource.type}`, minimalBody(resource, n)));
      if (answers.every((a) => a.status === 201)) pending.splice(pending.indexOf(resource), 1);
    }
  }
  // Products 1 and 2 get structures (1 uses 2, 2 uses 3); product 3 has none yet.
  for (const product of [1, 2]) {
    const item = {
      type: 'product_structure_items',
      attributes: { net_quantity: 1 },
      relationships: { product: { data: { type: 'products', id: product + 1 } } },
    };
    const res = await post(t, token, `/products/${product}/product_structure`, {
      data: { type: 'product_structures', attributes: { quantity: 2 }, relationships: { items: { data: [item] } } },
    });
    if (res.status !== 201)
      throw new Error(`fixture: structure of product ${product}: ${res.status} ${await res.text()}`);
  }
}

export async function fuzzEnv(provider: Provider): Promise<FuzzEnv> {
  const database = await migratedDatabase(provider);
  const t = testApp(database);
  const token = (await getTokens(t, await createClient(database.db.prisma, 'fuzzer', ['read', 'write']))).access_token;
  await makeFixture(t, token);
  return { database, t, token };
}

/**
 * What a refused write must leave as it was: every table but the answers kept for
 * `Idempotency-Key` (a refusal is kept too, so that a retry gets it again), which the fuzzers send.
 */
export function dataDump(env: FuzzEnv): Promise<string> {
  return dumpDatabase(env.database.db, { except: ['idempotency_keys'] });
}
