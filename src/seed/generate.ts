/**
 * Deterministic demo data for a bakery with a dairy line: the same scale and seed always give
 * the same rows, with explicit ids so that rows can reference each other before they are written.
 *
 * Per unit of scale: 500 customers, 500 products (175 raw materials, 50 packaging materials,
 * 100 semi-finished and 175 finished goods), 250 product structures (every semi-finished good and
 * 150 finished goods) with about 2,500 items, 50 suppliers, plus their lookups. Bills of material
 * are acyclic by construction: a structure only uses products of a lower tier, or semi-finished
 * goods created before its own product.
 *
 * Every step draws from one random sequence (class Draw), in the order generateSeed calls them:
 * reordering the steps, or the draws inside one, changes every seeded database and benchmark.
 */
import {
  BRANDS,
  CURRENCIES,
  CUSTOMER_TYPES,
  FINISHED,
  FUNCTION_GROUPS,
  INTERMEDIATES,
  LANGUAGES,
  PACKAGING,
  PRODUCT_GROUPS,
  PRODUCTION_LINES,
  RAW_MATERIALS,
  SUPPLIER_TYPES,
  UNITS,
  VARIANTS,
  groupIndex,
  type Material,
  type Names,
} from './catalog.ts';
import { Decimal, Draw, localized, type Place, type Row, type SeedTable, Tables } from './draw.ts';
import { withCheckDigit } from '../data/formats.ts';
import { addLookups } from './lookups.ts';

export type { SeedTable } from './draw.ts';

export const PER_SCALE = {
  customers: 500,
  rawMaterials: 175,
  packaging: 50,
  intermediates: 100,
  finished: 175,
  finishedWithStructure: 150,
  suppliers: 50,
  users: 25,
  customerProductsPerCustomer: 2,
  evaluationRoleUsersPerSupplier: 2,
} as const;

export function generateSeed(scale: number, seed = 1): SeedTable[] {
  if (!Number.isInteger(scale) || scale < 1) throw new Error('scale must be a whole number >= 1');
  // One random sequence, drawn in this order: reordering the steps changes every seeded database.
  const draw = new Draw(seed);
  const tables = new Tables();
  addLookups(tables);
  const userIds = addUsers(tables, draw, scale);
  const newAddress = addressBook(tables, draw);
  const supplierIds = addSuppliers(tables, draw, scale, userIds, newAddress);
  const { products, infos } = addProducts(tables, draw, scale, supplierIds);
  addBillsOfMaterial(tables, draw, scale, products, infos);
  addCustomers(tables, draw, scale, { userIds, newAddress, products, infos });
  return tables.all;
}

const languageId = (code: string) => LANGUAGES.findIndex((l) => l.code === code) + 1;
const unitId = (reference: string) => UNITS.findIndex((u) => u.reference === reference) + 1;
const ITEM_TYPE = { component: 1, packaging: 2 };
const METHOD = { perBatch: 1, perUnit: 2 };
const GTIN_PREFIX = '540';
const LINE_FOR_GROUP: Record<string, string> = {
  Bread: 'L01',
  Viennoiserie: 'L03',
  'Pastry and cakes': 'L04',
  Cookies: 'L05',
  'Yoghurt and desserts': 'L06',
  Cheese: 'L07',
  Doughs: 'L02',
  'Fillings and creams': 'L08',
  'Dairy bases': 'L06',
};

type Tier = 'raw' | 'packaging' | 'intermediate' | 'finished';
interface ProductInfo {
  id: number;
  tier: Tier;
  base: Material;
  unit: string;
}

/** Users (the people suppliers and customers name); their ids. */
function addUsers(tables: Tables, draw: Draw, scale: number): number[] {
  const usernames = new Set<string>();
  const users = tables.add(
    'user',
    Array.from({ length: PER_SCALE.users * scale }, (_, i) => {
      const first = draw.rng.person
        .firstName()
        .toLowerCase()
        .replace(/[^a-z]/g, '');
      const last = draw.rng.person
        .lastName()
        .toLowerCase()
        .replace(/[^a-z]/g, '');
      let username = `${first}.${last}`;
      for (let n = 2; usernames.has(username); n++) username = `${first}.${last}${n}`;
      usernames.add(username);
      return { id: i + 1, username };
    }),
  );
  return users.map((u) => u.id as number);
}

/** The address table, and a function that adds an address in a place and answers its id. */
function addressBook(tables: Tables, draw: Draw): (place: Place) => number {
  const addresses: Row[] = tables.add('address', []);
  return (place: Place) => {
    const id = addresses.length + 1;
    const f = place.faker;
    addresses.push({
      id,
      line_1: `${f.location.street()} ${f.location.buildingNumber()}`,
      line_2: draw.chance(0.15) ? f.location.secondaryAddress() : null,
      postal_code: f.location.zipCode(),
      city: f.location.city(),
      state: place.code === 'DE' || place.code === 'FR' ? f.location.state() : null,
      country_code: place.code,
    });
    return id;
  };
}

/** Suppliers with their types, evaluation users and responsible users; their ids. */
function addSuppliers(
  tables: Tables,
  draw: Draw,
  scale: number,
  userIds: number[],
  newAddress: (place: Place) => number,
): number[] {
  const supplierCount = PER_SCALE.suppliers * scale;
  const suppliers = tables.add('supplier', []);
  const supplierTypeLinks = tables.add('supplierTypeLink', []);
  const evaluationRoleUsers = tables.add('supplierEvaluationRoleUser', []);
  const evaluationLinks = tables.add('supplierEvaluationRoleUserLink', []);
  const supplierCommercial = tables.add('supplierCommercialResolveResponsibleUser', []);
  const supplierInform = tables.add('supplierInformOnComplaintUser', []);
  for (let id = 1; id <= supplierCount; id++) {
    const place = draw.country();
    const types = draw.some(
      SUPPLIER_TYPES.map((_, i) => i + 1),
      1,
      2,
    );
    const emergency = types.some((t) => SUPPLIER_TYPES[t - 1]!.emergency);
    const f = place.faker;
    suppliers.push({
      id,
      reference: `SUP${String(id).padStart(5, '0')}`,
      name: f.company.name(),
      is_active: draw.chance(0.95),
      is_receival_vat_exclusive: draw.chance(0.3),
      currency_text: 'EUR',
      gln: withCheckDigit(`54${String(1_000_000 + id).padStart(10, '0')}`),
      is_emergency_number_mandatory: emergency,
      emergency_number: emergency ? f.phone.number({ style: 'international' }) : null,
      emergency_contact: emergency ? f.person.fullName() : null,
      email: f.internet.email().toLowerCase(),
      phone: f.phone.number({ style: 'international' }),
      fax: draw.chance(0.2) ? f.phone.number({ style: 'international' }) : null,
      currency_id: 1,
      buyer_id: draw.pick(userIds),
      key_user_id: draw.pick(userIds),
      address_id: newAddress(place),
    });
    for (const t of types) supplierTypeLinks.push({ supplier_id: id, supplier_type_id: t });
    for (let n = 0; n < PER_SCALE.evaluationRoleUsersPerSupplier; n++) {
      const roleUserId = evaluationRoleUsers.length + 1;
      evaluationRoleUsers.push({ id: roleUserId });
      evaluationLinks.push({ supplier_id: id, supplier_evaluation_role_user_id: roleUserId });
    }
    for (const u of draw.some(userIds, 1, 2)) supplierCommercial.push({ supplier_id: id, user_id: u });
    for (const u of draw.some(userIds, 0, 2)) supplierInform.push({ supplier_id: id, user_id: u });
  }
  return suppliers.map((s) => s.id as number);
}

/** Products by tier (raw, packaging, semi-finished, finished), each from the catalogue's materials. */
function addProducts(
  tables: Tables,
  draw: Draw,
  scale: number,
  supplierIds: number[],
): { products: Row[]; infos: ProductInfo[] } {
  const products = tables.add('product', []);
  const infos: ProductInfo[] = [];
  let gtinSequence = 0;
  const addProducts = (tier: Tier, count: number, catalogue: readonly (Material & { gram?: number })[]) => {
    for (let k = 0; k < count; k++) {
      const id = products.length + 1;
      const material = catalogue[k % catalogue.length]!;
      const round = Math.floor(k / catalogue.length);
      const variant = VARIANTS[round % VARIANTS.length]!;
      const edition = Math.floor(round / VARIANTS.length);
      const suffix: Names =
        edition > 0 ? (variant.map((v) => `${v} ${edition + 1}`.trim()) as unknown as Names) : variant;
      const group = PRODUCT_GROUPS[groupIndex(material.group)]!;
      const produced = tier === 'intermediate' || tier === 'finished';
      const line = PRODUCTION_LINES.findIndex((l) => l.reference === LINE_FOR_GROUP[material.group]) + 1;
      const gram = material.gram ?? 0;
      let gtin: string | null = null;
      if (tier === 'finished') {
        gtinSequence += 1;
        const gtin13 = withCheckDigit(`${GTIN_PREFIX}${String(gtinSequence).padStart(9, '0')}`);
        // Some GTINs are kept in their 14-digit form; the spec types the filter as an integer,
        // so the REST filter must find them without the leading zero.
        gtin = gtinSequence % 10 === 0 ? `0${gtin13}` : gtin13;
      }
      const price = tier === 'finished' ? draw.decimal(0.5, 25, 2) : draw.decimal(0.05, 15, 4);
      const shelfDays =
        tier === 'intermediate'
          ? draw.int(1, 5)
          : tier === 'finished'
            ? Math.max(1, group.bbd + draw.int(0, 3))
            : draw.int(30, 365);
      products.push({
        id,
        reference: `${{ raw: 'RM', packaging: 'PK', intermediate: 'SF', finished: 'FG' }[tier]}${String(id).padStart(6, '0')}`,
        is_active: draw.chance(0.96),
        is_sales: tier === 'finished',
        ...localized('name', material.names, suffix),
        ...(tier === 'finished'
          ? localized('legal_name', group.names.map((g, i) => `${g}: ${material.names[i]}`) as unknown as Names)
          : {}),
        gtin,
        intrastat_code: material.intrastat,
        gross_weight_in_kilogram: tier === 'finished' ? new Decimal(gram).div(1000).plus('0.015').toString() : null,
        net_weight_in_kilogram: tier === 'finished' ? new Decimal(gram).div(1000).toString() : null,
        drained_weight_in_kilogram: null,
        production_efficiency_per_hour: produced ? draw.decimal(150, 3000, 0) : null,
        production_report_type_component: 'None',
        production_report_type_byprod: 'None',
        is_lotcontrolled:
          tier === 'finished' || (tier === 'raw' && ['Dairy ingredients', 'Fruit and nuts'].includes(material.group)),
        nlc: produced ? draw.decimal(0.1, 12, 4) : null,
        shelf_life_value: group.bbd > 0 || tier !== 'packaging' ? String(shelfDays) : null,
        shelf_life_interval: group.bbd > 0 || tier !== 'packaging' ? 'Days' : null,
        price_basic_unit_ex_vat: price,
        consumer_price:
          tier === 'finished' ? new Decimal(price).times('1.06').times('1.4').toDecimalPlaces(2).toString() : null,
        deposit_price: material.names[0] === 'Plain yoghurt' ? '0.10' : null,
        unit_id: unitId(material.unit),
        product_group_id: groupIndex(material.group) + 1,
        brand_id: tier === 'finished' && draw.chance(0.9) ? draw.int(1, BRANDS.length) : null,
        production_line_id: produced && line > 0 ? line : null,
        preferred_supplier_id: tier === 'raw' || tier === 'packaging' ? draw.pick(supplierIds) : null,
      });
      infos.push({ id, tier, base: material, unit: material.unit });
    }
  };
  addProducts('raw', PER_SCALE.rawMaterials * scale, RAW_MATERIALS);
  addProducts('packaging', PER_SCALE.packaging * scale, PACKAGING);
  addProducts('intermediate', PER_SCALE.intermediates * scale, INTERMEDIATES);
  addProducts('finished', PER_SCALE.finished * scale, FINISHED);
  return { products, infos };
}

/** A structure for every semi-finished good and most finished goods, acyclic by construction. */
function addBillsOfMaterial(tables: Tables, draw: Draw, scale: number, products: Row[], infos: ProductInfo[]): void {
  const byBase = new Map<string, ProductInfo[]>();
  for (const info of infos) {
    const list = byBase.get(info.base.names[0]) ?? [];
    list.push(info);
    byBase.set(info.base.names[0], list);
  }
  const raws = infos.filter((p) => p.tier === 'raw');
  const LOSSES = ['0', '0', '0.5', '1', '1.5', '2', '2.5', '3', '5'];

  const structures = tables.add('productStructure', []);
  const items = tables.add('productStructureItem', []);
  const addStructure = (owner: ProductInfo, quantity: string, lines: { component: ProductInfo; net: string }[]) => {
    const structureId = structures.length + 1;
    structures.push({ id: structureId, quantity, product_id: owner.id });
    products[owner.id - 1]!.product_structure_quantity = quantity;
    for (const { component, net } of lines) {
      const loss = draw.pick(LOSSES);
      const packaging = component.tier === 'packaging';
      items.push({
        id: items.length + 1,
        net_quantity: net,
        // Some items leave gross empty: it is then net x (1 + loss / 100) (see the BOM explosion).
        gross_quantity: draw.chance(0.15)
          ? null
          : new Decimal(net).times(new Decimal(loss).plus(100)).div(100).toDecimalPlaces(6).toString(),
        loss_percentage: loss,
        is_phantom: component.tier === 'intermediate' && draw.chance(0.2),
        is_processing_agent:
          component.base.names[0] === 'Water' || (component.base.group === 'Additives' && draw.chance(0.1)),
        skip_grain_component_calculation: component.base.group === 'Flours and grains' && draw.chance(0.1),
        product_structure_id: structureId,
        product_id: component.id,
        unit_id: unitId(component.unit),
        type_id: packaging ? ITEM_TYPE.packaging : ITEM_TYPE.component,
        calculation_method_id: packaging ? METHOD.perUnit : METHOD.perBatch,
      });
    }
  };
  /** A quantity in the component's unit for a batch of the given size. */
  const amount = (component: ProductInfo, share: number) => {
    switch (component.unit) {
      case 'g':
        return draw.decimal(20 * share, 800 * share, 1);
      case 'pcs':
        return draw.decimal(5 * share, 60 * share, 0);
      default:
        return draw.decimal(0.5 * share, 40 * share, 3);
    }
  };
  const instanceOf = (baseName: string) => draw.pick(byBase.get(baseName) ?? raws);

  const intermediates = infos.filter((p) => p.tier === 'intermediate');
  for (const [index, owner] of intermediates.entries()) {
    const used = new Map<number, { component: ProductInfo; net: string }>();
    const add = (component: ProductInfo, share: number) => {
      if (!used.has(component.id)) used.set(component.id, { component, net: amount(component, share) });
    };
    for (const baseName of (owner.base as (typeof INTERMEDIATES)[number]).uses) add(instanceOf(baseName), 1);
    for (const extra of draw.some(raws, 2, 5)) add(extra, 0.1);
    // Multi-level: some semi-finished goods use one made before them (never after: no cycles).
    if (index > 0 && draw.chance(0.3)) add(intermediates[draw.int(0, index - 1)]!, 0.5);
    addStructure(owner, '100', [...used.values()]);
  }
  const finishedGoods = infos.filter((p) => p.tier === 'finished').slice(0, PER_SCALE.finishedWithStructure * scale);
  for (const owner of finishedGoods) {
    const recipe = owner.base as (typeof FINISHED)[number];
    const batchKilograms = (recipe.gram * 10) / 1000;
    const used = new Map<number, { component: ProductInfo; net: string }>();
    const add = (component: ProductInfo, net: string) => {
      if (!used.has(component.id)) used.set(component.id, { component, net });
    };
    for (const baseName of recipe.uses) {
      const component = instanceOf(baseName);
      add(
        component,
        component.unit === 'kg' ? draw.decimal(batchKilograms * 0.2, batchKilograms * 0.9, 3) : amount(component, 0.1),
      );
    }
    for (const baseName of recipe.packaging) {
      const component = instanceOf(baseName);
      add(component, component.unit === 'pcs' ? '10' : draw.decimal(0.05, 0.5, 3));
    }
    for (const extra of draw.some(raws, 4, 8)) add(extra, amount(extra, 0.02));
    addStructure(owner, '10', [...used.values()]);
  }
}

/** Customers with their responsible users and the products they buy under their own references. */
function addCustomers(
  tables: Tables,
  draw: Draw,
  scale: number,
  made: { userIds: number[]; newAddress: (place: Place) => number; products: Row[]; infos: ProductInfo[] },
): void {
  const { userIds, newAddress, products, infos } = made;
  const customers = tables.add('customer', []);
  const customerCommercial = tables.add('customerCommercialResolveResponsibleUser', []);
  const customerInformUsers = tables.add('customerInformOnComplaintUser', []);
  const customerInformFunctions = tables.add('customerInformOnComplaintFunction', []);
  const customerProducts = tables.add('customerProduct', []);
  const sales = infos.filter((p) => p.tier === 'finished');
  for (let id = 1; id <= PER_SCALE.customers * scale; id++) {
    const place = draw.country();
    const f = place.faker;
    const name = f.company.name();
    const reference = `CUS${String(id).padStart(6, '0')}`;
    customers.push({
      id,
      reference,
      name,
      alt_name: draw.chance(0.2) ? `${name.split(/[ ,]/)[0]} ${f.location.city()}` : null,
      contact: f.person.fullName(),
      email: f.internet.email().toLowerCase(),
      phone: f.phone.number({ style: 'international' }),
      fax: draw.chance(0.15) ? f.phone.number({ style: 'international' }) : null,
      is_prospect: draw.chance(0.1),
      is_active: draw.chance(0.92),
      emergency_phone_nr: draw.chance(0.3) ? f.phone.number({ style: 'international' }) : null,
      emergency_contact: draw.chance(0.3) ? f.person.fullName() : null,
      credit_limit_used: draw.decimal(0, 250_000, 2),
      expired_invoices_total: draw.chance(0.7) ? '0' : draw.decimal(10, 20_000, 2),
      customer_type_id: draw.int(1, CUSTOMER_TYPES.length),
      language_id: languageId(place.language),
      currency_id: draw.chance(0.95) ? 1 : draw.int(2, CURRENCIES.length),
      account_manager_id: draw.pick(userIds),
      customer_service_manager_id: draw.pick(userIds),
      address_id: newAddress(place),
    });
    for (const u of draw.some(userIds, 1, 2)) customerCommercial.push({ customer_id: id, user_id: u });
    for (const u of draw.some(userIds, 0, 2)) customerInformUsers.push({ customer_id: id, user_id: u });
    for (const g of draw.some(
      FUNCTION_GROUPS.map((_, i) => i + 1),
      0,
      2,
    ))
      customerInformFunctions.push({ customer_id: id, function_corporate_group_id: g });
    const names = ['en', 'nl', 'fr', 'de'];
    for (let n = 0; n < PER_SCALE.customerProductsPerCustomer; n++) {
      const product = draw.pick(sales);
      const productRow = products[product.id - 1]!;
      customerProducts.push({
        id: customerProducts.length + 1,
        external_reference: `${reference}-${String(n + 1).padStart(2, '0')}`,
        external_product_name: String(productRow[`name_${names.includes(place.language) ? place.language : 'en'}`]),
        customer_id: id,
        product_id: product.id,
      });
    }
  }
}
