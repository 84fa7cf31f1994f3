/**
 * Delta sync under a role (docs/reference/roles.md: "a consumer that reads everything and then
 * follows the log holds exactly the role's view of the database"): a consumer that reads its
 * types' LIST pages with its role's token, then follows `/changes`; and a writer of random admin
 * writes that move rows in and out of the roles' row filters, change hidden fields only, change
 * what the roles see, and add, update, remove and replace structure items (tombstones).
 */
import { expect } from 'vitest';
import { resourceByType } from '../../src/resources/registry.ts';
import { expectStatus, type Rest, type RestResponse } from '../rest/support.ts';
import type { Prng } from '../support/prng.ts';

/** A resource as a consumer keeps it. */
export interface Copy {
  attributes: Record<string, unknown>;
  relationships: Record<string, unknown>;
}

interface ChangeObject {
  id: string;
  attributes: {
    resource_type: string;
    resource_id: number;
    op: 'created' | 'updated' | 'deleted';
    version: number;
    changed: string[];
    before: Record<string, unknown> | null;
    after: Record<string, unknown> | null;
  };
}

/** Every field of a type as the log names them (an attribute that shares a relationship's name goes by its column). */
function logNames(type: string): string[] {
  const resource = resourceByType(type)!;
  return [
    ...Object.entries(resource.attributes).map(([name, a]) => (name in resource.relationships ? a.column : name)),
    ...Object.keys(resource.relationships),
  ];
}

/** An entry's fields, by the registry: attributes and relationships. */
function split(type: string, fields: Record<string, unknown>): Copy {
  const resource = resourceByType(type)!;
  const attributes: Record<string, unknown> = {};
  const relationships: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (name in resource.relationships) relationships[name] = value;
    else attributes[name] = value;
  }
  return { attributes, relationships };
}

function copyOf(doc: any): Copy {
  return {
    attributes: { ...doc.attributes },
    relationships: Object.fromEntries(
      Object.entries(doc.relationships ?? {}).map(([name, r]: [string, any]) => [name, r.data]),
    ),
  };
}

/**
 * A consumer with a role: its copy of every resource of `types` it can read, from LIST pages, then
 * kept from `/changes`. What goes against the contract while following is an anomaly: an update
 * of a resource it does not hold, a created one it holds, a deleted one it does not hold, a field
 * or a type it may not see.
 */
export class RoleConsumer {
  readonly copies = new Map<string, Map<number, Copy>>();
  cursor = '';
  readonly anomalies: string[] = [];
  readonly ops = { created: 0, updated: 0, deleted: 0 };
  polls = 0;
  /** Entries per poll. */
  perPage = 200;

  constructor(
    private readonly api: Rest,
    readonly token: string,
    readonly types: readonly string[],
    /** The fields the role sees, by type (every one when not given): nothing else may appear. */
    private readonly visible: Record<string, readonly string[]> = {},
  ) {
    for (const type of types) this.copies.set(type, new Map());
  }

  private async ok(path: string): Promise<any> {
    const res: RestResponse = await this.api.get(path, { token: this.token });
    expectStatus(res, 200, `consumer GET ${path}`);
    return res.body;
  }

  /** Every resource of its types the role sees, page by page; the cursor of the first page. */
  async readAll(): Promise<void> {
    for (const type of this.types) {
      for (let page = 1; ; page++) {
        const body = await this.ok(`/${type}?per_page=50&page=${page}`);
        if (this.cursor === '') this.cursor = body.meta.changes_cursor;
        for (const doc of body.data) this.copies.get(type)!.set(doc.id, copyOf(doc));
        if (page >= body.meta.pages) break;
      }
    }
  }

  /** One page of the log after the cursor, applied. */
  async poll(): Promise<{ hasMore: boolean; count: number }> {
    this.polls++;
    const body = await this.ok(`/changes?after=${this.cursor}&type=${this.types.join(',')}&per_page=${this.perPage}`);
    for (const change of body.data as ChangeObject[]) this.apply(change);
    expect(Number(body.meta.cursor)).toBeGreaterThanOrEqual(Number(this.cursor));
    this.cursor = body.meta.cursor;
    return { hasMore: body.meta.has_more, count: body.data.length };
  }

  private apply(change: ChangeObject): void {
    const { resource_type: type, resource_id: id, op, changed, before, after } = change.attributes;
    const where = `entry ${change.id} (${type}/${id} ${op})`;
    const copies = this.copies.get(type);
    if (!copies) {
      this.anomalies.push(`${where}: a type not asked for`);
      return;
    }
    const seen = new Set(this.visible[type] ?? logNames(type));
    for (const name of [...changed, ...Object.keys(before ?? {}), ...Object.keys(after ?? {})])
      if (!seen.has(name)) this.anomalies.push(`${where}: the hidden field ${name}`);
    if (op !== 'deleted' && changed.length === 0) this.anomalies.push(`${where}: nothing changed`);
    this.ops[op]++;
    const copy = copies.get(id);
    if (op === 'deleted') {
      if (!copy) this.anomalies.push(`${where}: deletes a resource the copy does not have`);
      copies.delete(id);
    } else if (op === 'created') {
      if (copy) this.anomalies.push(`${where}: the copy already has it`);
      const fields = split(type, after ?? {});
      if (Object.keys(after ?? {}).length !== seen.size)
        this.anomalies.push(`${where}: created with ${Object.keys(after ?? {})} (not every visible field)`);
      copies.set(id, fields);
    } else {
      if (!copy) {
        this.anomalies.push(`${where}: updates a resource the copy does not have`);
        return;
      }
      const { attributes, relationships } = split(type, after ?? {});
      Object.assign(copy.attributes, attributes);
      Object.assign(copy.relationships, relationships);
    }
  }
}

/** The differences between a copy and the truth: `type/id: what differs`. */
export function differences(type: string, copy: Map<number, Copy>, truth: Map<number, Copy>): string[] {
  const found: string[] = [];
  const ids = [...new Set([...copy.keys(), ...truth.keys()])].sort((a, b) => a - b);
  for (const id of ids) {
    const [c, t] = [copy.get(id), truth.get(id)];
    if (!c || !t) {
      found.push(`${type}/${id}: ${c ? 'in the copy but not in the role view' : 'missing from the copy'}`);
      continue;
    }
    const what: string[] = [];
    for (const part of ['attributes', 'relationships'] as const)
      for (const name of new Set([...Object.keys(c[part]), ...Object.keys(t[part])]))
        if (JSON.stringify(c[part][name]) !== JSON.stringify(t[part][name]))
          what.push(`${name} copy ${JSON.stringify(c[part][name])} != ${JSON.stringify(t[part][name])}`);
    if (what.length > 0) found.push(`${type}/${id}: ${what.join('; ')}`);
  }
  return found;
}

/** What the writer chooses from. */
export interface World {
  /** Products the writes go to (and those created): so that they meet. */
  working: number[];
  products: number[];
  brands: number[];
  groups: number[];
  units: number[];
  itemTypes: number[];
  methods: number[];
}

/** A REST answer as an outcome: ok, or a refusal the writer expects; anything else fails. */
function outcome(res: RestResponse, what: string): string {
  if (res.status === 200 || res.status === 201) return 'ok';
  const code = res.body?.error?.code ?? res.body?.errors?.[0]?.code;
  if (res.status === 404 || (res.status === 409 && ['bom_cycle', 'conflict'].includes(code))) return `refused`;
  throw new Error(`${what}: unexpected answer ${res.status} ${res.text.slice(0, 400)}`);
}

/** Product attributes a write may set: what the roles filter on, what they see, what they do not. */
function productAttributes(rng: Prng, n: number): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  const roll = rng.next();
  if (roll < 0.3) {
    // Hidden from every role: nlc, weights, the intrastat code.
    if (rng.chance(0.6)) attributes.nlc = rng.chance(0.2) ? null : rng.amount(40);
    if (rng.chance(0.5)) attributes.gross_weight_in_kilogram = rng.amount(5);
    if (rng.chance(0.4)) attributes.intrastat_code = `IC${rng.int(1e6)}`;
    if (Object.keys(attributes).length === 0) attributes.nlc = rng.amount(40);
    return attributes;
  }
  // In and out of web_shop's filter.
  if (rng.chance(0.35)) attributes.is_sales = rng.chance(0.5);
  if (rng.chance(0.25)) attributes.is_active = rng.chance(0.6);
  // price_watch's filter (a price from 25), and what every role sees.
  if (rng.chance(0.4)) attributes.consumer_price = rng.chance(0.1) ? null : rng.amount(50);
  if (rng.chance(0.3)) attributes.name = { en: rng.chance(0.2) ? `hidden ${n}` : `name ${n}`, fr: `nom ${n}` };
  if (rng.chance(0.15)) attributes.shelf_life = { value: rng.int(30), interval: rng.pick(['days', 'weeks']) };
  if (rng.chance(0.2)) attributes.nlc = rng.amount(40);
  if (Object.keys(attributes).length === 0) attributes.is_sales = rng.chance(0.5);
  return attributes;
}

let written = 0;

/** One random admin write over REST; answers its kind and outcome. */
export async function randomWrite(api: Rest, rng: Prng, world: World): Promise<[string, string]> {
  const roll = rng.next();
  const product = rng.pick(world.working);
  const n = ++written;
  if (roll < 0.45) {
    const attributes = productAttributes(rng, n);
    const what = `product ${product} ${JSON.stringify(attributes)}`;
    return [
      'product attributes',
      outcome(await api.patch(`/products/${product}`, { data: { type: 'products', attributes } }), what),
    ];
  }
  if (roll < 0.58) {
    // The brand (price_watch's filter) or the group.
    const which = rng.pick(['brand', 'product_group'] as const);
    const [type, ids] = which === 'brand' ? ['brands', world.brands] : ['product_groups', world.groups];
    const data = rng.chance(0.2) ? null : { type, id: rng.pick(ids) };
    const res = await api.patch(`/products/${product}/relationships/${which}`, { data });
    return ['product link', outcome(res, `product ${product} ${which} -> ${JSON.stringify(data)}`)];
  }
  if (roll < 0.63) {
    const res = await api.post('/products', {
      data: {
        type: 'products',
        attributes: {
          reference: `ROLE-SYNC-${n}-${rng.int(1e9)}`,
          name: { en: `new ${n}` },
          consumer_price: rng.amount(50),
          is_sales: rng.chance(0.5),
        },
        relationships: { unit: { data: { type: 'units', id: rng.pick(world.units) } } },
      },
    });
    const result = outcome(res, 'new product');
    if (res.body?.data?.id) world.working.push(res.body.data.id);
    return ['new product', result];
  }
  return itemWrite(api, rng, world);
}

function newItem(rng: Prng, world: World) {
  return {
    type: 'product_structure_items',
    attributes: { net_quantity: rng.amount(12), is_phantom: rng.chance(0.3), loss_percentage: rng.int(10) },
    relationships: {
      product: { data: { type: 'products', id: rng.pick(world.products) } },
      unit: { data: { type: 'units', id: rng.pick(world.units) } },
      type: { data: { type: 'product_structure_item_types', id: rng.pick(world.itemTypes) } },
      calculation_method: {
        data: { type: 'product_structure_item_calculation_methods', id: rng.pick(world.methods) },
      },
    },
  };
}

/** A write of structure items: added, updated (in and out of bom_reader's filter), removed, replaced. */
async function itemWrite(api: Rest, rng: Prng, world: World): Promise<[string, string]> {
  const structures = await api.prisma.productStructure.findMany({
    select: { id: true, items: { select: { id: true } } },
    orderBy: { id: 'asc' },
    take: 12,
  });
  const structure = rng.pick(structures) as { id: number; items: { id: number }[] };
  const items = structure.items.map((i) => i.id);
  const roll = rng.next();
  const path = `/product_structures/${structure.id}`;
  if (roll < 0.3 || items.length === 0) {
    const data = Array.from({ length: 1 + rng.int(2) }, () => newItem(rng, world));
    return ['items added', outcome(await api.post(`${path}/items`, { data }), `items added to ${path}`)];
  }
  if (roll < 0.7) {
    const item = rng.pick(items);
    const attributes: Record<string, unknown> = {};
    if (rng.chance(0.6)) attributes.net_quantity = rng.amount(12);
    if (rng.chance(0.4)) attributes.is_phantom = rng.chance(0.3);
    // Hidden from bom_reader.
    if (rng.chance(0.3) || Object.keys(attributes).length === 0) attributes.loss_percentage = rng.int(15);
    const res = await api.patch(`/product_structure_items/${item}`, {
      data: { type: 'product_structure_items', attributes },
    });
    return ['item updated', outcome(res, `item ${item} ${JSON.stringify(attributes)}`)];
  }
  if (roll < 0.85) {
    const data = [{ type: 'product_structure_items', id: rng.pick(items) }];
    return [
      'items removed',
      outcome(await api.delete(`${path}/relationships/items`, { data }), `items removed from ${path}`),
    ];
  }
  const data = Array.from({ length: 1 + rng.int(2) }, () => newItem(rng, world));
  return [
    'items replaced',
    outcome(await api.patch(`${path}/relationships/items`, { data }), `items of ${path} replaced`),
  ];
}
