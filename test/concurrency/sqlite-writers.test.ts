/**
 * The embedded default under concurrent writers: a real server process on SQLite, twenty clients
 * writing at once over keep-alive HTTP, half through REST and half through GraphQL, each 200
 * writes of four kinds (creates, updates of rows every writer shares, to-many link changes,
 * bill-of-material items). Every write must be acknowledged (no 5xx, no "database is locked")
 * and every acknowledged write must be in the database afterwards, exactly.
 */
import { describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/client.ts';
import { emptyDatabase } from '../support/databases.ts';
import { runScript, startService } from '../support/process.ts';

const WRITERS = 20;
const WRITES = 200;
/** Products every writer renames: their versions must count every acknowledged rename. */
const SHARED_PRODUCTS = 4;

interface Acknowledged {
  units: Set<string>;
  renames: Map<number, number>;
  links: Map<number, Set<number>>;
  items: Map<number, number>;
}

describe('SQLite under concurrent REST and GraphQL writers', () => {
  it(`${WRITERS} writers x ${WRITES} writes: zero errors, every acknowledged write present`, {
    timeout: 240_000,
  }, async () => {
    const database = await emptyDatabase('sqlite');
    const service = await startService({ DATABASE_URL: database.target.url });
    const failures: string[] = [];
    try {
      const base = service.baseUrl;
      const token = await demoToken(base, service.output());
      const api = client(base, token, failures);

      // Rows of their own for each writer: a customer whose links it adds, a structure it adds items to.
      const users = (await api.rest('GET', '/users?per_page=50')).data.map((u: { id: number }) => u.id) as number[];
      const products = (await api.rest('GET', '/products?per_page=50&active=1')).data.map(
        (p: { id: number }) => p.id,
      ) as number[];
      const shared = products.slice(0, SHARED_PRODUCTS);
      const owners: { customer: number; structure: number }[] = [];
      for (let w = 0; w < WRITERS; w++) {
        const customer = await api.rest('POST', '/customers', {
          data: { type: 'customers', attributes: { reference: `W-${w}`, name: `Writer ${w}` } },
        });
        const product = await api.rest('POST', '/products', {
          data: {
            type: 'products',
            attributes: { reference: `W-P-${w}` },
            relationships: { unit: { data: { type: 'units', id: 1 } } },
          },
        });
        const structure = await api.rest('POST', `/products/${product.data.id}/product_structure`, {
          data: { type: 'product_structures', attributes: { quantity: 1 } },
        });
        owners.push({ customer: customer.data.id, structure: structure.data.id });
      }
      const versionsBefore = await Promise.all(
        shared.map(async (id) => (await api.rest('GET', `/products/${id}`)).data.meta.version as number),
      );

      const acknowledged: Acknowledged = { units: new Set(), renames: new Map(), links: new Map(), items: new Map() };
      const started = performance.now();
      const latencies: number[] = [];
      // Meanwhile another process writes to the same file (the client CLI, as an operator would):
      // it waits for the server's write lock (SQLite's busy timeout) instead of failing.
      const cli = (async () => {
        const results = [];
        for (let n = 0; n < 5; n++) {
          results.push(
            await runScript(
              'src/auth/cli.ts',
              ['create', '--name', `operator-${n}`, '--scopes', 'read', '--role', 'admin'],
              {
                DATABASE_URL: database.target.url,
              },
            ),
          );
        }
        return results;
      })();
      await Promise.all(
        Array.from({ length: WRITERS }, (_, w) =>
          writer(w, w % 2 === 0 ? 'rest' : 'graphql', {
            api,
            shared,
            users,
            products: products.slice(SHARED_PRODUCTS),
            own: owners[w]!,
            acknowledged,
            latencies,
          }),
        ),
      );
      for (const result of await cli) expect(result.code, result.stderr).toBe(0);
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      console.log(
        `[sqlite writers] ${WRITERS * WRITES} writes in ${seconds.toFixed(1)} s: ${((WRITERS * WRITES) / seconds).toFixed(0)} writes/s, ` +
          `p50 ${latencies[Math.floor(latencies.length / 2)]!.toFixed(1)} ms, p99 ${latencies[Math.floor(latencies.length * 0.99)]!.toFixed(1)} ms`,
      );

      expect(failures.slice(0, 5), `${failures.length} writes failed`).toEqual([]);
      expect(service.output()).not.toMatch(/database is locked|SQLITE_BUSY|"level":(40|50)/);

      const db = await createDatabase(database.target);
      try {
        const units = await db.prisma.unit.findMany({
          where: { reference: { startsWith: 'u-' } },
          select: { reference: true },
        });
        expect(new Set(units.map((u) => u.reference))).toEqual(acknowledged.units);
        for (const [i, id] of shared.entries()) {
          // Each rename wrote a value of its own: the version counts them all, none lost.
          const row = await db.prisma.product.findUniqueOrThrow({ where: { id }, select: { version: true } });
          expect(row.version, `product ${id}`).toBe(versionsBefore[i]! + (acknowledged.renames.get(id) ?? 0));
        }
        for (const { customer, structure } of owners) {
          const links = await db.prisma.customerCommercialResolveResponsibleUser.findMany({
            where: { customer_id: customer },
            select: { user_id: true },
          });
          expect(new Set(links.map((l) => l.user_id))).toEqual(acknowledged.links.get(customer) ?? new Set());
          expect(await db.prisma.productStructureItem.count({ where: { product_structure_id: structure } })).toBe(
            acknowledged.items.get(structure) ?? 0,
          );
        }
        expect(await db.prisma.apiClient.count({ where: { name: { startsWith: 'operator-' } } })).toBe(5);
      } finally {
        await db.close();
      }
    } finally {
      await service.stop();
      await database.drop();
    }
  });
});

type Client = ReturnType<typeof client>;

function client(base: string, token: string, failures: string[]) {
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  return {
    async rest(method: string, path: string, body?: unknown) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status >= 300) {
        failures.push(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
        return undefined;
      }
      return JSON.parse(text);
    },
    async graphql(query: string, variables: Record<string, unknown>) {
      const res = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query, variables }),
      });
      const text = await res.text();
      const body = res.status === 200 ? JSON.parse(text) : undefined;
      if (!body || body.errors) {
        failures.push(`graphql ${query.slice(0, 40)}: ${res.status} ${text.slice(0, 200)}`);
        return undefined;
      }
      return body.data;
    },
  };
}

/** The demo client the first start printed, and a read-write token for it. */
async function demoToken(base: string, output: string): Promise<string> {
  const id = output.match(/client_id: +(\S+)/)![1]!;
  const secret = output.match(/client_secret: +(\S+)/)![1]!;
  const res = await fetch(`${base}/oauth/token.php`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

interface WriterContext {
  api: Client;
  shared: number[];
  users: number[];
  products: number[];
  own: { customer: number; structure: number };
  acknowledged: Acknowledged;
  latencies: number[];
}

/** One writer's 200 writes, the four kinds in turn, through one API. */
async function writer(
  w: number,
  surface: 'rest' | 'graphql',
  { api, shared, users, products, own, acknowledged, latencies }: WriterContext,
) {
  for (let i = 0; i < WRITES; i++) {
    const started = performance.now();
    const kind = i % 4;
    if (kind === 0) {
      const reference = `u-${w}-${i}`;
      const done =
        surface === 'rest'
          ? await api.rest('POST', '/units', { data: { type: 'units', attributes: { reference } } })
          : await api.graphql('mutation($r: String!) { createUnit(input: { reference: $r }) { id } }', {
              r: reference,
            });
      if (done) acknowledged.units.add(reference);
    } else if (kind === 1) {
      const id = shared[(w + i) % shared.length]!;
      const name = `writer ${w} write ${i}`;
      const done =
        surface === 'rest'
          ? await api.rest('PATCH', `/products/${id}`, {
              data: { type: 'products', attributes: { name: { en: name } } },
            })
          : await api.graphql(
              'mutation($id: Int!, $n: String) { updateProduct(id: $id, input: { name: { en: $n } }) { version } }',
              { id, n: name },
            );
      if (done) acknowledged.renames.set(id, (acknowledged.renames.get(id) ?? 0) + 1);
    } else if (kind === 2) {
      const user = users[i % users.length]!;
      const done =
        surface === 'rest'
          ? await api.rest('POST', `/customers/${own.customer}/relationships/commercial_resolve_responsible_users`, {
              data: [{ type: 'users', id: user }],
            })
          : await api.graphql(
              'mutation($id: Int!, $u: Int!) { updateCustomer(id: $id, input: { commercialResolveResponsibleUsers: { add: [$u] } }) { id } }',
              { id: own.customer, u: user },
            );
      if (done) {
        const links = acknowledged.links.get(own.customer) ?? new Set<number>();
        acknowledged.links.set(own.customer, links.add(user));
      }
    } else {
      const product = products[(w * WRITES + i) % products.length]!;
      const done =
        surface === 'rest'
          ? await api.rest('POST', `/product_structures/${own.structure}/items`, {
              data: [
                {
                  type: 'product_structure_items',
                  attributes: { net_quantity: 1 },
                  relationships: { product: { data: { type: 'products', id: product } } },
                },
              ],
            })
          : await api.graphql(
              'mutation($s: Int!, $p: Int!) { addProductStructureItems(structureId: $s, items: [{ productId: $p, netQuantity: 1 }]) { id } }',
              {
                s: own.structure,
                p: product,
              },
            );
      if (done) acknowledged.items.set(own.structure, (acknowledged.items.get(own.structure) ?? 0) + 1);
    }
    latencies.push(performance.now() - started);
  }
}
