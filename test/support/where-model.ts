/**
 * A model of the GraphQL `where` contract (shared/design/query.md, "`where` on every list"): the
 * rows of the demo data read plainly through Prisma, the same condition evaluated in TypeScript,
 * and the aggregates computed exactly with decimal.js. The property tests compare the service's
 * answers with it; it knows nothing of the service's SQL.
 *
 * Semantics modelled: all fields of one object hold (AND); `AND: []` all, `OR: []` none; `NOT` the
 * exact complement; `not` and `notIn` also match null, every other operator needs a value;
 * contains/startsWith/endsWith compare JavaScript's toLowerCase of both sides; localized text's
 * `any`: some language matches the whole StringWhere; a to-one relationship's where holds when the
 * target exists and matches it (`isNull` says whether it exists); to-many `some`/`every`/`none`.
 */
import { Decimal as BaseDecimal } from 'decimal.js';
import type { PrismaDb } from '../../src/db/client.ts';

/** Enough digits that sums and averages are exact before the contract's rounding. */
export const Decimal = BaseDecimal.clone({ precision: 60, toExpNeg: -40, toExpPos: 40 });
export type Decimal = InstanceType<typeof Decimal>;

export type ScalarKind = 'int' | 'decimal' | 'string' | 'boolean' | 'datetime';
/** A scalar's kind and column; localized text's column prefix; a small object's fields. */
export type FieldSpec = [ScalarKind, string] | ['localized', string] | ['object', Record<string, [ScalarKind, string]>];

/** Scalars as the model holds them: a DateTime as milliseconds, a Decimal as a Decimal. */
export type Value = number | string | boolean | Decimal | null;
export type FieldValue = Value | Record<string, Value>;

export interface ToOne {
  target: string;
  /** This row's column holding the target's id. */
  fk?: string;
  /** Or: the target's column holding this row's id. */
  inverse?: string;
}

export interface ToMany {
  target: string;
  /** The target's column holding this row's id. */
  fk?: string;
  /** Or: a join table. */
  join?: { model: string; own: string; other: string };
}

export interface TypeSpec {
  /** The Prisma model. */
  model: string;
  scalars: Record<string, FieldSpec>;
  toOne: Record<string, ToOne>;
  toMany: Record<string, ToMany>;
}

export const LANGUAGES = ['nl', 'fr', 'en', 'de'] as const;
const ID: Record<string, FieldSpec> = { id: ['int', 'id'], version: ['int', 'version'] };
const MODIFIED: Record<string, FieldSpec> = { modifiedDate: ['datetime', 'modified_date'] };

/** The types the tests reach, by GraphQL name, with the fields of their `<Type>Where`. */
export const SPECS: Record<string, TypeSpec> = {
  Product: {
    model: 'product',
    scalars: {
      ...ID,
      reference: ['string', 'reference'],
      gtin: ['string', 'gtin'],
      intrastatCode: ['string', 'intrastat_code'],
      productionReportTypeComponent: ['string', 'production_report_type_component'],
      isActive: ['boolean', 'is_active'],
      isSales: ['boolean', 'is_sales'],
      isLotcontrolled: ['boolean', 'is_lotcontrolled'],
      name: ['localized', 'name'],
      legalName: ['localized', 'legal_name'],
      nlc: ['decimal', 'nlc'],
      consumerPrice: ['decimal', 'consumer_price'],
      grossWeightInKilogram: ['decimal', 'gross_weight_in_kilogram'],
      priceBasicUnitExVat: ['decimal', 'price_basic_unit_ex_vat'],
      shelfLife: ['object', { value: ['decimal', 'shelf_life_value'], interval: ['string', 'shelf_life_interval'] }],
      ...MODIFIED,
    },
    toOne: {
      unit: { target: 'Unit', fk: 'unit_id' },
      productGroup: { target: 'ProductGroup', fk: 'product_group_id' },
      brand: { target: 'Brand', fk: 'brand_id' },
      productStructure: { target: 'ProductStructure', inverse: 'product_id' },
      preferredSupplier: { target: 'Supplier', fk: 'preferred_supplier_id' },
    },
    toMany: { usedIn: { target: 'ProductStructureItem', fk: 'product_id' } },
  },
  ProductGroup: {
    model: 'productGroup',
    scalars: {
      ...ID,
      isActive: ['boolean', 'is_active'],
      description: ['localized', 'description'],
      informDaysBbd: ['int', 'inform_days_bbd'],
      labelColor: ['string', 'label_color'],
      transportPackagingSettings: [
        'object',
        {
          removeStockWhenPicked: ['boolean', 'transport_packaging_settings_remove_stock_when_picked'],
          rounding: ['string', 'transport_packaging_settings_rounding'],
        },
      ],
      ...MODIFIED,
    },
    toOne: {},
    toMany: { products: { target: 'Product', fk: 'product_group_id' } },
  },
  Unit: {
    model: 'unit',
    scalars: { ...ID, reference: ['string', 'reference'], description: ['localized', 'description'], ...MODIFIED },
    toOne: {},
    toMany: {},
  },
  Brand: { model: 'brand', scalars: { ...ID, reference: ['string', 'reference'], ...MODIFIED }, toOne: {}, toMany: {} },
  ProductStructure: {
    model: 'productStructure',
    scalars: { ...ID, quantity: ['decimal', 'quantity'], ...MODIFIED },
    toOne: { product: { target: 'Product', fk: 'product_id' } },
    toMany: { items: { target: 'ProductStructureItem', fk: 'product_structure_id' } },
  },
  ProductStructureItem: {
    model: 'productStructureItem',
    scalars: {
      ...ID,
      netQuantity: ['decimal', 'net_quantity'],
      grossQuantity: ['decimal', 'gross_quantity'],
      lossPercentage: ['decimal', 'loss_percentage'],
      isPhantom: ['boolean', 'is_phantom'],
      isProcessingAgent: ['boolean', 'is_processing_agent'],
      skipGrainComponentCalculation: ['boolean', 'skip_grain_component_calculation'],
      ...MODIFIED,
    },
    toOne: {
      product: { target: 'Product', fk: 'product_id' },
      productStructure: { target: 'ProductStructure', fk: 'product_structure_id' },
      unit: { target: 'Unit', fk: 'unit_id' },
    },
    toMany: {},
  },
  Supplier: {
    model: 'supplier',
    scalars: {
      ...ID,
      reference: ['string', 'reference'],
      name: ['string', 'name'],
      isActive: ['boolean', 'is_active'],
      isReceivalVatExclusive: ['boolean', 'is_receival_vat_exclusive'],
      isEmergencyNumberMandatory: ['boolean', 'is_emergency_number_mandatory'],
      currencyText: ['string', 'currency_text'],
      gln: ['string', 'gln'],
      email: ['string', 'email'],
      phone: ['string', 'phone'],
      fax: ['string', 'fax'],
      emergencyContact: ['string', 'emergency_contact'],
      ...MODIFIED,
    },
    toOne: {},
    toMany: {
      types: {
        target: 'SupplierType',
        join: { model: 'supplierTypeLink', own: 'supplier_id', other: 'supplier_type_id' },
      },
      products: { target: 'Product', fk: 'preferred_supplier_id' },
    },
  },
  SupplierType: {
    model: 'supplierType',
    scalars: {
      ...ID,
      description: ['localized', 'description'],
      isEmergencyNumberRequired: ['boolean', 'is_emergency_number_required'],
      requestCertificates: ['boolean', 'request_certificates'],
      ...MODIFIED,
    },
    toOne: {},
    toMany: {},
  },
};

export interface Row {
  id: number;
  raw: Record<string, unknown>;
  /** By GraphQL field name. */
  values: Record<string, FieldValue>;
}

function scalarValue(kind: ScalarKind, raw: unknown): Value {
  if (raw === null || raw === undefined) return null;
  switch (kind) {
    case 'decimal':
      // Prisma's Decimal (PostgreSQL numeric; SQLite's REAL read as a Decimal): its digits.
      return new Decimal(String(raw));
    case 'datetime':
      return (raw as Date).getTime();
    case 'boolean':
      return Boolean(raw);
    case 'int':
      return Number(raw);
    default:
      return String(raw);
  }
}

function fieldValue(spec: FieldSpec, raw: Record<string, unknown>): FieldValue {
  if (spec[0] === 'localized') {
    return Object.fromEntries(LANGUAGES.map((l) => [l, scalarValue('string', raw[`${spec[1]}_${l}`])]));
  }
  if (spec[0] === 'object') {
    return Object.fromEntries(
      Object.entries(spec[1]).map(([f, [kind, column]]) => [f, scalarValue(kind, raw[column])]),
    );
  }
  return scalarValue(spec[0], raw[spec[1]]);
}

const lower = (s: string) => s.toLowerCase();

/** Whether one operator holds for a value (`operand` as sent in the GraphQL variables). */
export function operatorHolds(kind: ScalarKind, op: string, operand: unknown, v: Value): boolean {
  const cmp = (x: unknown) => compare(kind, v!, x);
  const eq = (x: unknown) => cmp(x) === 0;
  switch (op) {
    case 'isNull':
      return (v === null) === operand;
    case 'equals':
      return v !== null && eq(operand);
    case 'not':
      return v === null || !eq(operand);
    case 'in':
      return v !== null && (operand as unknown[]).some(eq);
    case 'notIn':
      return v === null || !(operand as unknown[]).some(eq);
    case 'lt':
      return v !== null && cmp(operand) < 0;
    case 'lte':
      return v !== null && cmp(operand) <= 0;
    case 'gt':
      return v !== null && cmp(operand) > 0;
    case 'gte':
      return v !== null && cmp(operand) >= 0;
    case 'contains':
      return v !== null && lower(v as string).includes(lower(operand as string));
    case 'startsWith':
      return v !== null && lower(v as string).startsWith(lower(operand as string));
    case 'endsWith':
      return v !== null && lower(v as string).endsWith(lower(operand as string));
  }
  throw new Error(`the model knows no operator ${op}`);
}

function compare(kind: ScalarKind, v: Exclude<Value, null>, operand: unknown): number {
  switch (kind) {
    case 'decimal':
      return (v as Decimal).cmp(new Decimal(String(operand)));
    case 'datetime':
      return Math.sign((v as number) - Date.parse(operand as string));
    case 'int':
      return Math.sign((v as number) - (operand as number));
    default:
      return v === operand ? 0 : v < (operand as string | boolean) ? -1 : 1;
  }
}

export const scalarMatches = (kind: ScalarKind, where: Record<string, unknown>, v: Value): boolean =>
  Object.entries(where).every(([op, operand]) => operatorHolds(kind, op, operand, v));

export type Where = Record<string, any>;

/** Every row of the types in SPECS, and the evaluation of a `where` over them. */
export class WhereModel {
  private readonly byId = new Map<string, Map<number, Row>>();
  private readonly index = new Map<string, Map<number, Row[]>>();

  private constructor(
    readonly rows: Record<string, Row[]>,
    private readonly links: Record<string, Record<string, unknown>[]>,
  ) {
    for (const [type, list] of Object.entries(rows)) this.byId.set(type, new Map(list.map((r) => [r.id, r])));
  }

  /** Reads every row of every type in SPECS (and the join tables) with Prisma, in id order. */
  static async load(prisma: PrismaDb): Promise<WhereModel> {
    const client = prisma as unknown as Record<string, { findMany(args?: object): Promise<Record<string, unknown>[]> }>;
    const rows: Record<string, Row[]> = {};
    const links: Record<string, Record<string, unknown>[]> = {};
    for (const [type, spec] of Object.entries(SPECS)) {
      const raws = await client[spec.model]!.findMany({ orderBy: { id: 'asc' } });
      rows[type] = raws.map((raw) => ({
        id: raw.id as number,
        raw,
        values: Object.fromEntries(Object.entries(spec.scalars).map(([f, s]) => [f, fieldValue(s, raw)])),
      }));
      for (const many of Object.values(spec.toMany)) {
        if (many.join) links[many.join.model] ??= await client[many.join.model]!.findMany();
      }
    }
    return new WhereModel(rows, links);
  }

  /** The rows of `type` a `where` keeps, in id order. */
  filter(type: string, where: Where | undefined): Row[] {
    return this.rows[type]!.filter((row) => where === undefined || this.matches(type, where, row));
  }

  matches(type: string, where: Where, row: Row): boolean {
    const spec = SPECS[type]!;
    return Object.entries(where).every(([key, w]) => {
      if (key === 'AND') return (w as Where[]).every((x) => this.matches(type, x, row));
      if (key === 'OR') return (w as Where[]).some((x) => this.matches(type, x, row));
      if (key === 'NOT') return !this.matches(type, w, row);
      const field = spec.scalars[key];
      if (field) return fieldMatches(field, w, row.values[key]!);
      if (spec.toOne[key]) return this.toOneMatches(spec.toOne[key], w, row);
      if (spec.toMany[key]) return this.toManyMatches(spec.toMany[key], w, row);
      throw new Error(`the model has no field ${type}.${key}`);
    });
  }

  private toOneMatches(rel: ToOne, where: Where, row: Row): boolean {
    const target = this.toOne(rel, row);
    const { isNull, ...rest } = where;
    if (isNull !== undefined && (target === null) !== isNull) return false;
    if (Object.keys(rest).length === 0) return isNull !== undefined || target !== null;
    return target !== null && this.matches(rel.target, rest, target);
  }

  private toManyMatches(rel: ToMany, where: Where, row: Row): boolean {
    const list = this.toMany(rel, row);
    const test = (w: Where) => (r: Row) => this.matches(rel.target, w, r);
    return (
      (where.some === undefined || list.some(test(where.some))) &&
      (where.every === undefined || list.every(test(where.every))) &&
      (where.none === undefined || !list.some(test(where.none)))
    );
  }

  toOne(rel: ToOne, row: Row): Row | null {
    if (rel.fk) {
      const id = row.raw[rel.fk] as number | null;
      return id === null ? null : (this.byId.get(rel.target)!.get(id) ?? null);
    }
    return this.grouped(rel.target, rel.inverse!).get(row.id)?.[0] ?? null;
  }

  toMany(rel: ToMany, row: Row): Row[] {
    if (rel.fk) return this.grouped(rel.target, rel.fk).get(row.id) ?? [];
    const { model, own, other } = rel.join!;
    const key = `${model}.${own}`;
    let byOwner = this.index.get(key);
    if (!byOwner) {
      byOwner = new Map();
      const targets = this.byId.get(rel.target)!;
      for (const link of this.links[model]!) {
        const list = byOwner.get(link[own] as number) ?? [];
        list.push(targets.get(link[other] as number)!);
        byOwner.set(link[own] as number, list);
      }
      for (const list of byOwner.values()) list.sort((a, b) => a.id - b.id);
      this.index.set(key, byOwner);
    }
    return byOwner.get(row.id) ?? [];
  }

  /** The rows of `type` by the value of their column `column`. */
  private grouped(type: string, column: string): Map<number, Row[]> {
    const key = `${type}.${column}`;
    let map = this.index.get(key);
    if (!map) {
      map = new Map();
      for (const r of this.rows[type]!) {
        const v = r.raw[column] as number | null;
        if (v !== null) map.set(v, [...(map.get(v) ?? []), r]);
      }
      this.index.set(key, map);
    }
    return map;
  }
}

function fieldMatches(spec: FieldSpec, where: Where, v: FieldValue): boolean {
  if (spec[0] === 'localized') {
    const text = v as Record<string, string | null>;
    return Object.entries(where).every(([lang, w]) =>
      lang === 'any'
        ? LANGUAGES.some((l) => scalarMatches('string', w, text[l]!))
        : scalarMatches('string', w, text[lang]!),
    );
  }
  if (spec[0] === 'object') {
    const object = v as Record<string, Value>;
    return Object.entries(where).every(([f, w]) => scalarMatches(spec[1][f]![0], w, object[f]!));
  }
  return scalarMatches(spec[0], where, v as Value);
}

export interface ExpectedAggregate {
  count: number;
  sum: Record<string, string | null>;
  /** Rounded to 15 significant digits half away from zero, and half to even (the contract names no mode). */
  avg: Record<string, [string, string] | null>;
  min: Record<string, string | null>;
  max: Record<string, string | null>;
}

/** count, and sum/avg/min/max of `decimals`, min/max of `dates` (as ISO strings), over `rows`. */
export function expectedAggregate(rows: Row[], decimals: string[], dates: string[]): ExpectedAggregate {
  const out: ExpectedAggregate = { count: rows.length, sum: {}, avg: {}, min: {}, max: {} };
  for (const f of decimals) {
    const values = rows.map((r) => r.values[f] as Decimal | null).filter((v): v is Decimal => v !== null);
    const sum = values.reduce((a, b) => a.plus(b), new Decimal(0));
    const avg = sum.div(values.length || 1);
    out.sum[f] = values.length ? sum.toString() : null;
    out.avg[f] = values.length
      ? [
          avg.toSignificantDigits(15, Decimal.ROUND_HALF_UP).toString(),
          avg.toSignificantDigits(15, Decimal.ROUND_HALF_EVEN).toString(),
        ]
      : null;
    out.min[f] = values.length ? Decimal.min(...values).toString() : null;
    out.max[f] = values.length ? Decimal.max(...values).toString() : null;
  }
  for (const f of dates) {
    const values = rows.map((r) => r.values[f] as number | null).filter((v): v is number => v !== null);
    out.min[f] = values.length ? new Date(Math.min(...values)).toISOString() : null;
    out.max[f] = values.length ? new Date(Math.max(...values)).toISOString() : null;
  }
  return out;
}
