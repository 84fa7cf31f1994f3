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
 * Kept whole: generateSeed is one pass over one random sequence. Every row draws from the same
 * generator in a fixed order, and later tables use ids and choices of earlier ones (a structure's
 * items from the products of lower tiers, suppliers from their currencies), so the steps share
 * all their state; cut into functions, each would take and return most of it, and any reordering
 * of calls would silently change every seeded database and benchmark after it.
 */
import { Faker, base, de, en, fr, fr_BE, nl, nl_BE } from '@faker-js/faker';
import { Prisma } from '../db/client.ts';
import {
  BRANDS,
  CALCULATION_METHODS,
  CURRENCIES,
  CUSTOMER_TYPES,
  FINISHED,
  FUNCTION_GROUPS,
  INTERMEDIATES,
  ITEM_TYPES,
  LANGUAGES,
  PACKAGING,
  PRODUCT_GROUP_TYPES,
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

const Decimal = Prisma.Decimal;
type Row = Record<string, unknown>;

/** Rows of one Prisma model, in an order that satisfies foreign keys when written in sequence. */
export interface SeedTable {
  model: string;
  rows: Row[];
}

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

/** Columns of a localized attribute from [en, nl, fr, de] names. */
function localized(prefix: string, names: Names, suffix: Names = ['', '', '', '']): Row {
  const join = (a: string, b: string) => (b ? `${a} ${b}` : a);
  return {
    [`${prefix}_en`]: join(names[0], suffix[0]),
    [`${prefix}_nl`]: join(names[1], suffix[1]),
    [`${prefix}_fr`]: join(names[2], suffix[2]),
    [`${prefix}_de`]: join(names[3], suffix[3]),
  };
}

/** A GS1 check digit for the digits given (GTIN-13 from 12 digits, GLN likewise). */
function withCheckDigit(digits: string): string {
  const sum = [...digits].reverse().reduce((acc, d, i) => acc + Number(d) * (i % 2 === 0 ? 3 : 1), 0);
  return digits + String((10 - (sum % 10)) % 10);
}

const COUNTRIES = [
  { code: 'BE', language: 'nl', locales: [nl_BE, nl, en, base], weight: 35 },
  { code: 'BE', language: 'fr', locales: [fr_BE, fr, en, base], weight: 20 },
  { code: 'NL', language: 'nl', locales: [nl, en, base], weight: 25 },
  { code: 'DE', language: 'de', locales: [de, en, base], weight: 10 },
  { code: 'FR', language: 'fr', locales: [fr, en, base], weight: 10 },
] as const;

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one pass over one random sequence (see the top of this file)
export function generateSeed(scale: number, seed = 1): SeedTable[] {
  if (!Number.isInteger(scale) || scale < 1) throw new Error('scale must be a whole number >= 1');
  const rng = new Faker({ locale: [en, base], seed });
  const fakers = COUNTRIES.map((c, i) => new Faker({ locale: [...c.locales], seed: seed * 100 + i }));
  const int = (min: number, max: number) => rng.number.int({ min, max });
  const chance = (p: number) => rng.number.float() < p;
  const pick = <T>(list: readonly T[]): T => list[int(0, list.length - 1)]!;
  const some = <T>(list: readonly T[], min: number, max: number): T[] =>
    rng.helpers.arrayElements(list as T[], { min, max });
  /** A decimal with `places` decimals between min and max. */
  const decimal = (min: number, max: number, places: number) => {
    const factor = 10 ** places;
    return new Decimal(int(Math.round(min * factor), Math.round(max * factor))).div(factor).toString();
  };
  const country = () => {
    let roll = int(1, 100);
    for (const [i, c] of COUNTRIES.entries()) {
      roll -= c.weight;
      if (roll <= 0) return { ...c, faker: fakers[i]! };
    }
    return { ...COUNTRIES[0], faker: fakers[0]! };
  };

  const tables: SeedTable[] = [];
  const table = (model: string, rows: Row[]) => {
    tables.push({ model, rows });
    return rows;
  };

  // Lookups --------------------------------------------------------------------------------
  table(
    'language',
    LANGUAGES.map((l, i) => ({ id: i + 1, description: l.description, alpha_2_code: l.code })),
  );
  const languageId = (code: string) => LANGUAGES.findIndex((l) => l.code === code) + 1;
  table(
    'currency',
    CURRENCIES.map((c, i) => ({
      id: i + 1,
      symbol: c.symbol,
      alpha_3_code: c.code,
      ...localized('description', c.names),
    })),
  );
  table(
    'customerType',
    CUSTOMER_TYPES.map((names, i) => ({
      id: i + 1,
      reference: (i + 1) * 10,
      import_reference: `CT${i + 1}`,
      ...localized('name', names),
    })),
  );
  table(
    'functionCorporateGroup',
    FUNCTION_GROUPS.map(([reference, name], i) => ({
      id: i + 1,
      reference,
      name,
      import_reference: `FCG-${reference}`,
    })),
  );
  table(
    'unit',
    UNITS.map((u, i) => ({ id: i + 1, reference: u.reference, ...localized('description', u.names) })),
  );
  const unitId = (reference: string) => UNITS.findIndex((u) => u.reference === reference) + 1;
  table(
    'productGroupType',
    PRODUCT_GROUP_TYPES.map((names, i) => ({ id: i + 1, ...localized('description', names) })),
  );
  table(
    'productGroup',
    PRODUCT_GROUPS.map((g, i) => ({
      id: i + 1,
      is_active: true,
      ...localized('description', g.names),
      import_reference: `PG${String(i + 1).padStart(3, '0')}`,
      inform_days_bbd: g.bbd,
      allow_only_one_unit: g.type === 0,
      remark: g.type === 3 ? 'Packaging is booked per piece' : null,
      label_color: g.color,
      transport_packaging_settings_remove_stock_when_picked: g.type === 0,
      transport_packaging_settings_rounding: 'up',
      type_id: g.type + 1,
    })),
  );
  table(
    'brand',
    BRANDS.map((reference, i) => ({ id: i + 1, reference })),
  );
  table(
    'productionLine',
    PRODUCTION_LINES.map((l, i) => ({
      id: i + 1,
      reference: l.reference,
      is_active: true,
      import_reference: `PL-${l.reference}`,
      ...localized('name', l.names),
      barcode: withCheckDigit(`20000000${String(i + 1).padStart(4, '0')}`),
    })),
  );
  table(
    'supplierType',
    SUPPLIER_TYPES.map((t, i) => ({
      id: i + 1,
      ...localized('description', t.names),
      is_emergency_number_required: t.emergency,
      request_certificates: t.certificates,
    })),
  );
  table(
    'productStructureItemType',
    ITEM_TYPES.map((names, i) => ({ id: i + 1, ...localized('description', names) })),
  );
  table(
    'productStructureItemCalculationMethod',
    CALCULATION_METHODS.map((names, i) => ({ id: i + 1, ...localized('description', names) })),
  );
  const ITEM_TYPE = { component: 1, packaging: 2 };
  const METHOD = { perBatch: 1, perUnit: 2 };

  // People and addresses --------------------------------------------------------------------
  const usernames = new Set<string>();
  const users = table(
    'user',
    Array.from({ length: PER_SCALE.users * scale }, (_, i) => {
      const first = rng.person
        .firstName()
        .toLowerCase()
        .replace(/[^a-z]/g, '');
      const last = rng.person
        .lastName()
        .toLowerCase()
        .replace(/[^a-z]/g, '');
      let username = `${first}.${last}`;
      for (let n = 2; usernames.has(username); n++) username = `${first}.${last}${n}`;
      usernames.add(username);
      return { id: i + 1, username };
    }),
  );
  const userIds = users.map((u) => u.id as number);
  const addresses: Row[] = table('address', []);
  const newAddress = (place: ReturnType<typeof country>) => {
    const id = addresses.length + 1;
    const f = place.faker;
    addresses.push({
      id,
      line_1: `${f.location.street()} ${f.location.buildingNumber()}`,
      line_2: chance(0.15) ? f.location.secondaryAddress() : null,
      postal_code: f.location.zipCode(),
      city: f.location.city(),
      state: place.code === 'DE' || place.code === 'FR' ? f.location.state() : null,
      country_code: place.code,
    });
    return id;
  };

  // Suppliers -------------------------------------------------------------------------------
  const supplierCount = PER_SCALE.suppliers * scale;
  const suppliers = table('supplier', []);
  const supplierTypeLinks = table('supplierTypeLink', []);
  const evaluationRoleUsers = table('supplierEvaluationRoleUser', []);
  const evaluationLinks = table('supplierEvaluationRoleUserLink', []);
  const supplierCommercial = table('supplierCommercialResolveResponsibleUser', []);
  const supplierInform = table('supplierInformOnComplaintUser', []);
  for (let id = 1; id <= supplierCount; id++) {
    const place = country();
    const types = some(
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
      is_active: chance(0.95),
      is_receival_vat_exclusive: chance(0.3),
      currency_text: 'EUR',
      gln: withCheckDigit(`54${String(1_000_000 + id).padStart(10, '0')}`),
      is_emergency_number_mandatory: emergency,
      emergency_number: emergency ? f.phone.number({ style: 'international' }) : null,
      emergency_contact: emergency ? f.person.fullName() : null,
      email: f.internet.email().toLowerCase(),
      phone: f.phone.number({ style: 'international' }),
      fax: chance(0.2) ? f.phone.number({ style: 'international' }) : null,
      currency_id: 1,
      buyer_id: pick(userIds),
      key_user_id: pick(userIds),
      address_id: newAddress(place),
    });
    for (const t of types) supplierTypeLinks.push({ supplier_id: id, supplier_type_id: t });
    for (let n = 0; n < PER_SCALE.evaluationRoleUsersPerSupplier; n++) {
      const roleUserId = evaluationRoleUsers.length + 1;
      evaluationRoleUsers.push({ id: roleUserId });
      evaluationLinks.push({ supplier_id: id, supplier_evaluation_role_user_id: roleUserId });
    }
    for (const u of some(userIds, 1, 2)) supplierCommercial.push({ supplier_id: id, user_id: u });
    for (const u of some(userIds, 0, 2)) supplierInform.push({ supplier_id: id, user_id: u });
  }
  const supplierIds = suppliers.map((s) => s.id as number);

  // Products --------------------------------------------------------------------------------
  type Tier = 'raw' | 'packaging' | 'intermediate' | 'finished';
  interface ProductInfo {
    id: number;
    tier: Tier;
    base: Material;
    unit: string;
  }
  const products = table('product', []);
  const infos: ProductInfo[] = [];
  const GTIN_PREFIX = '540';
  let gtinSequence = 0;
  const lineForGroup: Record<string, string> = {
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
      const line = PRODUCTION_LINES.findIndex((l) => l.reference === lineForGroup[material.group]) + 1;
      const gram = material.gram ?? 0;
      let gtin: string | null = null;
      if (tier === 'finished') {
        gtinSequence += 1;
        const gtin13 = withCheckDigit(`${GTIN_PREFIX}${String(gtinSequence).padStart(9, '0')}`);
        // Some GTINs are kept in their 14-digit form; the spec types the filter as an integer,
        // so the REST filter must find them without the leading zero.
        gtin = gtinSequence % 10 === 0 ? `0${gtin13}` : gtin13;
      }
      const price = tier === 'finished' ? decimal(0.5, 25, 2) : decimal(0.05, 15, 4);
      const shelfDays =
        tier === 'intermediate' ? int(1, 5) : tier === 'finished' ? Math.max(1, group.bbd + int(0, 3)) : int(30, 365);
      products.push({
        id,
        reference: `${{ raw: 'RM', packaging: 'PK', intermediate: 'SF', finished: 'FG' }[tier]}${String(id).padStart(6, '0')}`,
        is_active: chance(0.96),
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
        production_efficiency_per_hour: produced ? decimal(150, 3000, 0) : null,
        production_report_type_component: 'None',
        production_report_type_byprod: 'None',
        is_lotcontrolled:
          tier === 'finished' || (tier === 'raw' && ['Dairy ingredients', 'Fruit and nuts'].includes(material.group)),
        nlc: produced ? decimal(0.1, 12, 4) : null,
        shelf_life_value: group.bbd > 0 || tier !== 'packaging' ? String(shelfDays) : null,
        shelf_life_interval: group.bbd > 0 || tier !== 'packaging' ? 'Days' : null,
        price_basic_unit_ex_vat: price,
        consumer_price:
          tier === 'finished' ? new Decimal(price).times('1.06').times('1.4').toDecimalPlaces(2).toString() : null,
        deposit_price: material.names[0] === 'Plain yoghurt' ? '0.10' : null,
        unit_id: unitId(material.unit),
        product_group_id: groupIndex(material.group) + 1,
        brand_id: tier === 'finished' && chance(0.9) ? int(1, BRANDS.length) : null,
        production_line_id: produced && line > 0 ? line : null,
        preferred_supplier_id: tier === 'raw' || tier === 'packaging' ? pick(supplierIds) : null,
      });
      infos.push({ id, tier, base: material, unit: material.unit });
    }
  };
  addProducts('raw', PER_SCALE.rawMaterials * scale, RAW_MATERIALS);
  addProducts('packaging', PER_SCALE.packaging * scale, PACKAGING);
  addProducts('intermediate', PER_SCALE.intermediates * scale, INTERMEDIATES);
  addProducts('finished', PER_SCALE.finished * scale, FINISHED);

  const byBase = new Map<string, ProductInfo[]>();
  for (const info of infos) {
    const list = byBase.get(info.base.names[0]) ?? [];
    list.push(info);
    byBase.set(info.base.names[0], list);
  }
  const raws = infos.filter((p) => p.tier === 'raw');
  const LOSSES = ['0', '0', '0.5', '1', '1.5', '2', '2.5', '3', '5'];

  // Bills of material -----------------------------------------------------------------------
  const structures = table('productStructure', []);
  const items = table('productStructureItem', []);
  const addStructure = (owner: ProductInfo, quantity: string, lines: { component: ProductInfo; net: string }[]) => {
    const structureId = structures.length + 1;
    structures.push({ id: structureId, quantity, product_id: owner.id });
    products[owner.id - 1]!.product_structure_quantity = quantity;
    for (const { component, net } of lines) {
      const loss = pick(LOSSES);
      const packaging = component.tier === 'packaging';
      items.push({
        id: items.length + 1,
        net_quantity: net,
        // Some items leave gross empty: it is then net x (1 + loss / 100) (see the BOM explosion).
        gross_quantity: chance(0.15)
          ? null
          : new Decimal(net).times(new Decimal(loss).plus(100)).div(100).toDecimalPlaces(6).toString(),
        loss_percentage: loss,
        is_phantom: component.tier === 'intermediate' && chance(0.2),
        is_processing_agent:
          component.base.names[0] === 'Water' || (component.base.group === 'Additives' && chance(0.1)),
        skip_grain_component_calculation: component.base.group === 'Flours and grains' && chance(0.1),
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
        return decimal(20 * share, 800 * share, 1);
      case 'pcs':
        return decimal(5 * share, 60 * share, 0);
      default:
        return decimal(0.5 * share, 40 * share, 3);
    }
  };
  const instanceOf = (baseName: string) => pick(byBase.get(baseName) ?? raws);

  const intermediates = infos.filter((p) => p.tier === 'intermediate');
  for (const [index, owner] of intermediates.entries()) {
    const used = new Map<number, { component: ProductInfo; net: string }>();
    const add = (component: ProductInfo, share: number) => {
      if (!used.has(component.id)) used.set(component.id, { component, net: amount(component, share) });
    };
    for (const baseName of (owner.base as (typeof INTERMEDIATES)[number]).uses) add(instanceOf(baseName), 1);
    for (const extra of some(raws, 2, 5)) add(extra, 0.1);
    // Multi-level: some semi-finished goods use one made before them (never after: no cycles).
    if (index > 0 && chance(0.3)) add(intermediates[int(0, index - 1)]!, 0.5);
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
        component.unit === 'kg' ? decimal(batchKilograms * 0.2, batchKilograms * 0.9, 3) : amount(component, 0.1),
      );
    }
    for (const baseName of recipe.packaging) {
      const component = instanceOf(baseName);
      add(component, component.unit === 'pcs' ? '10' : decimal(0.05, 0.5, 3));
    }
    for (const extra of some(raws, 4, 8)) add(extra, amount(extra, 0.02));
    addStructure(owner, '10', [...used.values()]);
  }

  // Customers -------------------------------------------------------------------------------
  const customers = table('customer', []);
  const customerCommercial = table('customerCommercialResolveResponsibleUser', []);
  const customerInformUsers = table('customerInformOnComplaintUser', []);
  const customerInformFunctions = table('customerInformOnComplaintFunction', []);
  const customerProducts = table('customerProduct', []);
  const sales = infos.filter((p) => p.tier === 'finished');
  for (let id = 1; id <= PER_SCALE.customers * scale; id++) {
    const place = country();
    const f = place.faker;
    const name = f.company.name();
    const reference = `CUS${String(id).padStart(6, '0')}`;
    customers.push({
      id,
      reference,
      name,
      alt_name: chance(0.2) ? `${name.split(/[ ,]/)[0]} ${f.location.city()}` : null,
      contact: f.person.fullName(),
      email: f.internet.email().toLowerCase(),
      phone: f.phone.number({ style: 'international' }),
      fax: chance(0.15) ? f.phone.number({ style: 'international' }) : null,
      is_prospect: chance(0.1),
      is_active: chance(0.92),
      emergency_phone_nr: chance(0.3) ? f.phone.number({ style: 'international' }) : null,
      emergency_contact: chance(0.3) ? f.person.fullName() : null,
      credit_limit_used: decimal(0, 250_000, 2),
      expired_invoices_total: chance(0.7) ? '0' : decimal(10, 20_000, 2),
      customer_type_id: int(1, CUSTOMER_TYPES.length),
      language_id: languageId(place.language),
      currency_id: chance(0.95) ? 1 : int(2, CURRENCIES.length),
      account_manager_id: pick(userIds),
      customer_service_manager_id: pick(userIds),
      address_id: newAddress(place),
    });
    for (const u of some(userIds, 1, 2)) customerCommercial.push({ customer_id: id, user_id: u });
    for (const u of some(userIds, 0, 2)) customerInformUsers.push({ customer_id: id, user_id: u });
    for (const g of some(
      FUNCTION_GROUPS.map((_, i) => i + 1),
      0,
      2,
    ))
      customerInformFunctions.push({ customer_id: id, function_corporate_group_id: g });
    const names = ['en', 'nl', 'fr', 'de'];
    for (let n = 0; n < PER_SCALE.customerProductsPerCustomer; n++) {
      const product = pick(sales);
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
  return tables;
}
