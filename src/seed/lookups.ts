/**
 * The seed's lookup types, straight from the catalogue (./catalog.ts): no random draws.
 */
import {
  BRANDS,
  CALCULATION_METHODS,
  CURRENCIES,
  CUSTOMER_TYPES,
  FUNCTION_GROUPS,
  ITEM_TYPES,
  LANGUAGES,
  PRODUCT_GROUP_TYPES,
  PRODUCT_GROUPS,
  PRODUCTION_LINES,
  SUPPLIER_TYPES,
  UNITS,
} from './catalog.ts';
import { localized, type Tables } from './draw.ts';
import { withCheckDigit } from '../data/formats.ts';

/** The lookup types, from the catalogue (no draws): those of customers first. */
export function addLookups(tables: Tables): void {
  addCustomerLookups(tables);
  addProductLookups(tables);
}

/** Languages, currencies, customer types and function groups. */
function addCustomerLookups(tables: Tables): void {
  tables.add(
    'language',
    LANGUAGES.map((l, i) => ({ id: i + 1, description: l.description, alpha_2_code: l.code })),
  );
  tables.add(
    'currency',
    CURRENCIES.map((c, i) => ({
      id: i + 1,
      symbol: c.symbol,
      alpha_3_code: c.code,
      ...localized('description', c.names),
    })),
  );
  tables.add(
    'customerType',
    CUSTOMER_TYPES.map((names, i) => ({
      id: i + 1,
      reference: (i + 1) * 10,
      import_reference: `CT${i + 1}`,
      ...localized('name', names),
    })),
  );
  tables.add(
    'functionCorporateGroup',
    FUNCTION_GROUPS.map(([reference, name], i) => ({
      id: i + 1,
      reference,
      name,
      import_reference: `FCG-${reference}`,
    })),
  );
}

/** The lookups of products, suppliers and bills of material. */
function addProductLookups(tables: Tables): void {
  tables.add(
    'unit',
    UNITS.map((u, i) => ({ id: i + 1, reference: u.reference, ...localized('description', u.names) })),
  );
  tables.add(
    'productGroupType',
    PRODUCT_GROUP_TYPES.map((names, i) => ({ id: i + 1, ...localized('description', names) })),
  );
  tables.add(
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
  tables.add(
    'brand',
    BRANDS.map((reference, i) => ({ id: i + 1, reference })),
  );
  tables.add(
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
  tables.add(
    'supplierType',
    SUPPLIER_TYPES.map((t, i) => ({
      id: i + 1,
      ...localized('description', t.names),
      is_emergency_number_required: t.emergency,
      request_certificates: t.certificates,
    })),
  );
  tables.add(
    'productStructureItemType',
    ITEM_TYPES.map((names, i) => ({ id: i + 1, ...localized('description', names) })),
  );
  tables.add(
    'productStructureItemCalculationMethod',
    CALCULATION_METHODS.map((names, i) => ({ id: i + 1, ...localized('description', names) })),
  );
}
