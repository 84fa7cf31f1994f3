/**
 * A writer of random writes through REST and GraphQL, for the tests that check what the log and
 * the history make of them (test/changes/delta-sync.test.ts, test/history/as-of.test.ts): product
 * attributes (names, prices, the GTIN, the active flag, which moves a product in and out of a
 * role's rows) and links, new products and structures, structure items added, updated, removed
 * and replaced; with `customers`, also customers' attributes and the users linked to them (a join
 * table). Some are refused (a bill-of-material cycle, a GTIN taken): each write answers its kind
 * and outcome. Its choices come from a seeded PRNG (test/support/prng.ts).
 */
import { withCheckDigit } from '../../src/data/formats.ts';
import type { Provider } from '../../src/db/url.ts';
import type { Rest, RestResponse } from '../rest/support.ts';
import type { prng } from './prng.ts';

export type Prng = ReturnType<typeof prng>;

/** What the writer chooses from: lookups, and the products, structures and items as they are now. */
export interface World {
  products: number[];
  /** Products of the working set: the writes go to these (and the ones created), so that they meet. */
  working: number[];
  brands: number[];
  groups: number[];
  units: number[];
  itemTypes: number[];
  methods: number[];
  /** With `customers`: customers the writes go to, and the users they may link. */
  customers?: number[];
  users?: number[];
}

export type Outcome = 'ok' | string;

/** The ids of every row of a Prisma model, ascending. */
export async function idsOf(api: Rest, model: string): Promise<number[]> {
  const rows: { id: number }[] = await api.prisma[model].findMany({ select: { id: true }, orderBy: { id: 'asc' } });
  return rows.map((r) => r.id);
}

/** A world: every lookup, and a working set of `size` products, half with a structure. */
export async function worldOf(api: Rest, rng: Prng, size = 24, customers = 0): Promise<World> {
  const products = await idsOf(api, 'product');
  const withStructure: number[] = (await api.prisma.productStructure.findMany({ select: { product_id: true } })).map(
    (s: { product_id: number }) => s.product_id,
  );
  const withoutStructure = products.filter((id) => !withStructure.includes(id));
  const working = [
    ...new Set([
      ...Array.from({ length: size / 2 }, () => rng.pick(withStructure)),
      ...Array.from({ length: size / 2 }, () => rng.pick(withoutStructure)),
    ]),
  ];
  const world: World = {
    products,
    working,
    brands: await idsOf(api, 'brand'),
    groups: await idsOf(api, 'productGroup'),
    units: await idsOf(api, 'unit'),
    itemTypes: await idsOf(api, 'productStructureItemType'),
    methods: await idsOf(api, 'productStructureItemCalculationMethod'),
  };
  if (customers > 0) {
    const all = await idsOf(api, 'customer');
    world.customers = [...new Set(Array.from({ length: customers }, () => rng.pick(all)))];
    world.users = await idsOf(api, 'user');
  }
  return world;
}

export class RandomWriter {
  private gtins = 0;
  private references = 0;

  constructor(
    private readonly api: Rest,
    private readonly provider: Provider,
    /** The GraphQL half writes as this client. */
    private readonly graphqlToken: string,
  ) {}

  private async gql(query: string, variables: Record<string, unknown>): Promise<{ data?: any; errors?: any[] }> {
    const res = await this.api.env.gql(query, variables, { token: this.graphqlToken });
    return res.body;
  }

  /** A REST answer as an outcome: ok, a refusal the writer expects (its code), or an error. */
  private restOutcome(res: RestResponse, what: string): Outcome {
    if (res.status === 200 || res.status === 201) return 'ok';
    if (res.status === 404) return 'rest:not_found';
    const code = res.body?.error?.code;
    if (res.status === 409 && ['bom_cycle', 'conflict'].includes(code)) return `rest:${code}`;
    throw new Error(`${what}: unexpected answer ${res.status} ${res.text.slice(0, 400)}`);
  }

  private graphqlOutcome(body: { data?: any; errors?: any[] }, what: string): Outcome {
    if (!body.errors) return 'ok';
    const code = body.errors[0]?.extensions?.code;
    if (['BOM_CYCLE', 'CONFLICT', 'NOT_FOUND'].includes(code)) return `graphql:${code}`;
    throw new Error(`${what}: unexpected errors ${JSON.stringify(body.errors).slice(0, 400)}`);
  }

  private async structureOf(
    rng: Prng,
    world: World,
  ): Promise<{ id: number; product: number; items: number[] } | undefined> {
    const structures = await this.api.prisma.productStructure.findMany({
      where: { product_id: { in: world.working } },
      select: { id: true, product_id: true, items: { select: { id: true } } },
    });
    if (structures.length === 0) return undefined;
    const s = rng.pick(structures) as { id: number; product_id: number; items: { id: number }[] };
    return { id: s.id, product: s.product_id, items: s.items.map((i) => i.id) };
  }

  /**
   * A structure item in REST's form and in GraphQL's. Its product is often one of the working set,
   * whose structures the writes change: some make a cycle, which is refused (and counted).
   */
  private newItem(rng: Prng, world: World) {
    const product = rng.pick(rng.chance(0.5) ? world.working : world.products);
    const unit = rng.pick(world.units);
    const type = rng.pick(world.itemTypes);
    const method = rng.pick(world.methods);
    const net = rng.amount(20);
    const loss = rng.int(10);
    return {
      rest: {
        type: 'product_structure_items',
        attributes: { net_quantity: net, loss_percentage: loss, is_phantom: rng.chance(0.2) },
        relationships: {
          product: { data: { type: 'products', id: product } },
          unit: { data: { type: 'units', id: unit } },
          type: { data: { type: 'product_structure_item_types', id: type } },
          calculation_method: { data: { type: 'product_structure_item_calculation_methods', id: method } },
        },
      },
      graphql: {
        productId: product,
        unitId: unit,
        typeId: type,
        calculationMethodId: method,
        netQuantity: net,
        lossPercentage: loss,
      },
    };
  }

  /** One random write through REST or GraphQL; answers its kind and outcome. */
  async write(rng: Prng, world: World): Promise<[string, Outcome]> {
    if (world.customers && rng.chance(0.2)) return this.customerWrite(rng, world);
    const rest = rng.chance(0.5);
    const surface = rest ? 'REST' : 'GraphQL';
    const roll = rng.next();
    const product = rng.pick(world.working);

    if (roll < 0.2) {
      // Product attributes: names, prices, GTIN set or cleared, the active flag.
      const attributes: Record<string, unknown> = {};
      if (rng.chance(0.6)) attributes.name = { en: `name ${rng.int(1e6)}`, ...(rng.chance(0.3) ? { fr: null } : {}) };
      if (rng.chance(0.6)) attributes.consumer_price = rng.amount(50);
      if (rng.chance(0.4)) attributes.price_basic_unit_ex_vat = rng.amount(30);
      if (rng.chance(0.3)) attributes.deposit_price = rng.chance(0.3) ? null : rng.amount(1);
      if (rng.chance(0.3))
        attributes.gtin = rng.chance(0.4)
          ? null
          : withCheckDigit(`${this.provider === 'sqlite' ? 40 : 41}${String(++this.gtins).padStart(10, '0')}`);
      if (rng.chance(0.2)) attributes.is_active = rng.chance(0.5);
      const what = `${surface} product ${product} attributes ${JSON.stringify(attributes)}`;
      if (rest)
        return [
          'product attributes',
          this.restOutcome(
            await this.api.patch(`/products/${product}`, { data: { type: 'products', attributes } }),
            what,
          ),
        ];
      const input: Record<string, unknown> = {};
      if ('name' in attributes) input.name = attributes.name;
      if ('consumer_price' in attributes) input.consumerPrice = attributes.consumer_price;
      if ('price_basic_unit_ex_vat' in attributes) input.priceBasicUnitExVat = attributes.price_basic_unit_ex_vat;
      if ('deposit_price' in attributes) input.depositPrice = attributes.deposit_price;
      if ('gtin' in attributes) input.gtin = attributes.gtin;
      if ('is_active' in attributes) input.isActive = attributes.is_active;
      const body = await this.gql(
        'mutation($id: Int!, $input: UpdateProductInput!) { updateProduct(id: $id, input: $input) { id } }',
        { id: product, input },
      );
      return ['product attributes', this.graphqlOutcome(body, what)];
    }

    if (roll < 0.35) {
      // A product's brand, group (both removable) or unit.
      const which = rng.pick(['brand', 'product_group', 'unit'] as const);
      const targets = {
        brand: ['brands', world.brands],
        product_group: ['product_groups', world.groups],
        unit: ['units', world.units],
      } as const;
      const [targetType, ids] = targets[which];
      const target = which !== 'unit' && rng.chance(0.25) ? null : rng.pick(ids);
      const what = `${surface} product ${product} ${which} -> ${target}`;
      if (rest) {
        const data = target === null ? null : { type: targetType, id: target };
        const res =
          which === 'unit' // no REL-SET for the unit: through UPDATE
            ? await this.api.patch(`/products/${product}`, {
                data: { type: 'products', relationships: { unit: { data } } },
              })
            : await this.api.patch(`/products/${product}/relationships/${which}`, { data });
        return ['product link', this.restOutcome(res, what)];
      }
      const field = { brand: 'brandId', product_group: 'productGroupId', unit: 'unitId' }[which];
      const body = await this.gql(
        'mutation($id: Int!, $input: UpdateProductInput!) { updateProduct(id: $id, input: $input) { id } }',
        {
          id: product,
          input: { [field]: target },
        },
      );
      return ['product link', this.graphqlOutcome(body, what)];
    }

    if (roll < 0.43) {
      // A new product, which joins the working set.
      const reference = `SYNC-${this.provider}-${++this.references}`;
      const unit = rng.pick(world.units);
      const name = { en: `synced ${this.references}`, nl: rng.chance(0.5) ? `gesynct ${this.references}` : null };
      const price = rng.amount(20);
      let id: number | undefined;
      let outcome: Outcome;
      if (rest) {
        const res = await this.api.post('/products', {
          data: {
            type: 'products',
            attributes: { reference, name, consumer_price: price },
            relationships: { unit: { data: { type: 'units', id: unit } } },
          },
        });
        outcome = this.restOutcome(res, `${surface} new product`);
        id = res.body?.data?.id;
      } else {
        const body = await this.gql('mutation($input: CreateProductInput!) { createProduct(input: $input) { id } }', {
          input: { reference, name, consumerPrice: price, unitId: unit },
        });
        outcome = this.graphqlOutcome(body, `${surface} new product`);
        id = body.data?.createProduct?.id;
      }
      if (id !== undefined) {
        world.working.push(id);
        world.products.push(id);
      }
      return ['new product', outcome];
    }

    if (roll < 0.5) {
      // A structure for a product that has none (its document's product_structure changes).
      const without = await this.api.prisma.product.findMany({
        where: { id: { in: world.working }, product_structure: { is: null } },
        select: { id: true },
      });
      if (without.length === 0) return ['new structure', 'skipped'];
      const owner = (rng.pick(without) as { id: number }).id;
      const items = [this.newItem(rng, world), this.newItem(rng, world)];
      const what = `${surface} structure for product ${owner}`;
      if (rest) {
        const res = await this.api.post(`/products/${owner}/product_structure`, {
          data: {
            type: 'product_structures',
            attributes: { quantity: 10 },
            relationships: { items: { data: items.map((i) => i.rest) } },
          },
        });
        return ['new structure', this.restOutcome(res, what)];
      }
      const body = await this.gql(
        'mutation($id: Int!, $input: CreateProductStructureInput!) { createProductStructure(productId: $id, input: $input) { id } }',
        { id: owner, input: { quantity: 10, items: items.map((i) => i.graphql) } },
      );
      return ['new structure', this.graphqlOutcome(body, what)];
    }

    const structure = await this.structureOf(rng, world);
    if (!structure) return ['items', 'skipped'];

    if (roll < 0.65) {
      // Items added (a cycle is refused).
      const items = Array.from({ length: 1 + rng.int(2) }, () => this.newItem(rng, world));
      const what = `${surface} items added to structure ${structure.id}`;
      if (rest)
        return [
          'items added',
          this.restOutcome(
            await this.api.post(`/product_structures/${structure.id}/items`, { data: items.map((i) => i.rest) }),
            what,
          ),
        ];
      const body = await this.gql(
        'mutation($id: Int!, $items: [ProductStructureItemInput!]!) { addProductStructureItems(structureId: $id, items: $items) { id } }',
        { id: structure.id, items: items.map((i) => i.graphql) },
      );
      return ['items added', this.graphqlOutcome(body, what)];
    }

    if (roll < 0.8) {
      // An item updated: quantities, a flag, its unit or calculation method.
      if (structure.items.length === 0) return ['item updated', 'skipped'];
      const item = rng.pick(structure.items);
      const attributes: Record<string, unknown> = {};
      if (rng.chance(0.7)) attributes.net_quantity = rng.amount(30);
      if (rng.chance(0.4)) attributes.loss_percentage = rng.chance(0.2) ? null : rng.int(15);
      if (rng.chance(0.3)) attributes.is_phantom = rng.chance(0.5);
      const unit = rng.chance(0.3) ? rng.pick(world.units) : undefined;
      const method = rng.chance(0.2) ? (rng.chance(0.3) ? null : rng.pick(world.methods)) : undefined;
      const what = `${surface} item ${item} ${JSON.stringify({ attributes, unit, method })}`;
      if (rest) {
        const relationships: Record<string, unknown> = {};
        if (unit !== undefined) relationships.unit = { data: { type: 'units', id: unit } };
        if (method !== undefined)
          relationships.calculation_method = {
            data: method === null ? null : { type: 'product_structure_item_calculation_methods', id: method },
          };
        const res = await this.api.patch(`/product_structure_items/${item}`, {
          data: { type: 'product_structure_items', attributes, relationships },
        });
        return ['item updated', this.restOutcome(res, what)];
      }
      const input: Record<string, unknown> = {};
      if ('net_quantity' in attributes) input.netQuantity = attributes.net_quantity;
      if ('loss_percentage' in attributes) input.lossPercentage = attributes.loss_percentage;
      if ('is_phantom' in attributes) input.isPhantom = attributes.is_phantom;
      if (unit !== undefined) input.unitId = unit;
      if (method !== undefined) input.calculationMethodId = method;
      const body = await this.gql(
        'mutation($id: Int!, $input: UpdateProductStructureItemInput!) { updateProductStructureItem(id: $id, input: $input) { id } }',
        { id: item, input },
      );
      return ['item updated', this.graphqlOutcome(body, what)];
    }

    if (roll < 0.92) {
      // Items removed (deleted: tombstones in the log).
      if (structure.items.length === 0) return ['items removed', 'skipped'];
      const ids = [...new Set([rng.pick(structure.items), ...(rng.chance(0.3) ? [rng.pick(structure.items)] : [])])];
      const what = `${surface} items ${ids} removed from structure ${structure.id}`;
      if (rest) {
        const res = await this.api.delete(`/product_structures/${structure.id}/relationships/items`, {
          data: ids.map((id) => ({ type: 'product_structure_items', id })),
        });
        return ['items removed', this.restOutcome(res, what)];
      }
      const body = await this.gql(
        'mutation($id: Int!, $ids: [Int!]!) { removeProductStructureItems(structureId: $id, itemIds: $ids) { id } }',
        { id: structure.id, ids },
      );
      return ['items removed', this.graphqlOutcome(body, what)];
    }

    // Items replaced: the old ones deleted, new ones created.
    const items = Array.from({ length: 1 + rng.int(3) }, () => this.newItem(rng, world));
    const what = `${surface} items of structure ${structure.id} replaced`;
    if (rest) {
      const res = await this.api.patch(`/product_structures/${structure.id}/relationships/items`, {
        data: items.map((i) => i.rest),
      });
      return ['items replaced', this.restOutcome(res, what)];
    }
    const body = await this.gql(
      'mutation($id: Int!, $items: [ProductStructureItemInput!]!) { replaceProductStructureItems(structureId: $id, items: $items) { id } }',
      { id: structure.id, items: items.map((i) => i.graphql) },
    );
    return ['items replaced', this.graphqlOutcome(body, what)];
  }

  /** A customer's attributes (the active flag moves it in and out of a role's rows), or the users linked to it (a join table). */
  private async customerWrite(rng: Prng, world: World): Promise<[string, Outcome]> {
    const rest = rng.chance(0.5);
    const surface = rest ? 'REST' : 'GraphQL';
    const customer = rng.pick(world.customers!);
    if (rng.chance(0.4)) {
      const attributes: Record<string, unknown> = {};
      if (rng.chance(0.6)) attributes.name = `customer ${rng.int(1e6)}`;
      if (rng.chance(0.4)) attributes.email = rng.chance(0.3) ? null : `buyer${rng.int(1e4)}@example.com`;
      if (rng.chance(0.4)) attributes.is_active = rng.chance(0.5);
      const what = `${surface} customer ${customer} attributes ${JSON.stringify(attributes)}`;
      if (rest)
        return [
          'customer attributes',
          this.restOutcome(
            await this.api.patch(`/customers/${customer}`, { data: { type: 'customers', attributes } }),
            what,
          ),
        ];
      const input: Record<string, unknown> = {};
      if ('name' in attributes) input.name = attributes.name;
      if ('email' in attributes) input.email = attributes.email;
      if ('is_active' in attributes) input.isActive = attributes.is_active;
      const body = await this.gql(
        'mutation($id: Int!, $input: UpdateCustomerInput!) { updateCustomer(id: $id, input: $input) { id } }',
        { id: customer, input },
      );
      return ['customer attributes', this.graphqlOutcome(body, what)];
    }
    const users = [...new Set(Array.from({ length: rng.int(3) + 1 }, () => rng.pick(world.users!)))];
    const how = rng.pick(['add', 'remove', 'set'] as const);
    const what = `${surface} customer ${customer} users ${how} ${users}`;
    if (rest) {
      const path = `/customers/${customer}/relationships/commercial_resolve_responsible_users`;
      const data = users.map((id) => ({ type: 'users', id }));
      const res =
        how === 'add'
          ? await this.api.post(path, { data })
          : how === 'remove'
            ? await this.api.delete(path, { data })
            : await this.api.patch(path, { data });
      return [`customer users ${how}`, this.restOutcome(res, what)];
    }
    const body = await this.gql(
      'mutation($id: Int!, $input: UpdateCustomerInput!) { updateCustomer(id: $id, input: $input) { id } }',
      { id: customer, input: { commercialResolveResponsibleUsers: { [how]: users } } },
    );
    return [`customer users ${how}`, this.graphqlOutcome(body, what)];
  }
}
