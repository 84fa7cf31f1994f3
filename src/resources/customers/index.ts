/** Customers and their classification and contacts, customer products. */
import { ALL_RESOURCE_OPERATIONS, attr, attributes, lookup, operations, toManyJoin, toOne } from '../define.ts';
import type { ResourceDefinition } from '../types.ts';

const CANNOT_BE_REMOVED = { removable: false } as const;

export const customers: ResourceDefinition = {
  type: 'customers',
  model: 'customer',
  group: 'customers',
  attributes: attributes({
    reference: attr.string({ required: true, unique: true }),
    name: attr.string({ required: true }),
    alt_name: attr.string(),
    contact: attr.string(),
    email: attr.string({ format: 'email' }),
    phone: attr.string(),
    fax: attr.string(),
    is_prospect: attr.boolean(),
    is_active: attr.boolean(),
    emergency_phone_nr: attr.string(),
    emergency_contact: attr.string(),
    credit_limit_used: attr.decimal(),
    expired_invoices_total: attr.decimal(),
    modified_date: attr.serverDate(),
  }),
  relationships: {
    customer_type: toOne('customer_type', 'customer_types', operations.toOne, CANNOT_BE_REMOVED),
    language: toOne('language', 'languages', operations.toOne, CANNOT_BE_REMOVED),
    currency: toOne('currency', 'currencies', operations.toOne, CANNOT_BE_REMOVED),
    account_manager: toOne('account_manager', 'users', operations.toOne, CANNOT_BE_REMOVED),
    customer_service_manager: toOne('customer_service_manager', 'users', operations.toOne, CANNOT_BE_REMOVED),
    address: toOne('address', 'addresses', operations.toOne, CANNOT_BE_REMOVED),
    commercial_resolve_responsible_users: toManyJoin('commercial_resolve_responsible_users', 'users', {
      model: 'customerCommercialResolveResponsibleUser',
      table: 'customer_commercial_resolve_responsible_users',
      ownColumn: 'customer_id',
      targetColumn: 'user_id',
      targetRelation: 'user',
    }),
    inform_on_complaint_users: toManyJoin('inform_on_complaint_users', 'users', {
      model: 'customerInformOnComplaintUser',
      table: 'customer_inform_on_complaint_users',
      ownColumn: 'customer_id',
      targetColumn: 'user_id',
      targetRelation: 'user',
    }),
    inform_on_complaint_functions: toManyJoin('inform_on_complaint_functions', 'function_corporate_groups', {
      model: 'customerInformOnComplaintFunction',
      table: 'customer_inform_on_complaint_functions',
      ownColumn: 'customer_id',
      targetColumn: 'function_corporate_group_id',
      targetRelation: 'function_corporate_group',
    }),
  },
  operations: ALL_RESOURCE_OPERATIONS,
  filters: { 'filter[reference]': { kind: 'equals', column: 'reference' } },
  includes: {
    list: [
      'customer_type',
      'language',
      'currency',
      'account_manager',
      'customer_service_manager',
      'address',
      'commercial_resolve_responsible_users',
      'inform_on_complaint_users',
      'inform_on_complaint_functions',
    ],
    get: ['customer_type', 'language', 'currency', 'account_manager', 'customer_service_manager', 'address'],
    // The spec's LIST operation spells it so; accepted there as a synonym.
    aliases: { list: { customer_service_mananger: 'customer_service_manager' } },
  },
  reverseLinks: { customer_products: { type: 'customer_products', relationship: 'customer' } },
};

export const customerProducts: ResourceDefinition = {
  type: 'customer_products',
  model: 'customerProduct',
  group: 'customers',
  attributes: attributes({
    external_reference: attr.string(),
    external_product_name: attr.string(),
  }),
  relationships: {
    customer: toOne('customer', 'customers', ['get', 'related'], {
      removable: false,
      required: true,
      forbidden: {
        operations: ['set'],
        message:
          'the customer of a customer product cannot be changed; add a customer product for the other customer instead',
      },
    }),
    product: toOne('product', 'products', ['get', 'related'], {
      removable: false,
      required: true,
      forbidden: {
        operations: ['set'],
        message:
          'the product of a customer product cannot be changed; add a customer product for the other product instead',
      },
    }),
  },
  operations: ALL_RESOURCE_OPERATIONS,
  filters: {},
  includes: { list: ['customer', 'product'], get: ['customer', 'product'] },
};

export const customerTypes = lookup(
  'customer_types',
  'customerType',
  'customers',
  attributes({
    reference: attr.integer({ required: true, unique: true }),
    import_reference: attr.string(),
    name: attr.localized(),
    modified_date: attr.serverDate(),
  }),
);

export const languages = lookup(
  'languages',
  'language',
  'customers',
  attributes({
    description: attr.string(),
    alpha_2_code: attr.string({ unique: true, format: 'language' }),
  }),
);

export const currencies = lookup(
  'currencies',
  'currency',
  'customers',
  attributes({
    symbol: attr.string(),
    alpha_3_code: attr.string({ unique: true, format: 'currency' }),
    description: attr.localized(),
  }),
);

export const users = lookup(
  'users',
  'user',
  'customers',
  attributes({
    username: attr.string({ required: true, unique: true }),
    modified_date: attr.serverDate(),
  }),
);

export const addresses = lookup(
  'addresses',
  'address',
  'customers',
  attributes({
    line_1: attr.string(),
    line_2: attr.string(),
    postal_code: attr.string(),
    city: attr.string(),
    state: attr.string(),
    country_code: attr.string({ format: 'country' }),
    modified_date: attr.serverDate(),
  }),
);

export const functionCorporateGroups = lookup(
  'function_corporate_groups',
  'functionCorporateGroup',
  'customers',
  attributes({
    reference: attr.string({ required: true, unique: true }),
    name: attr.string(),
    import_reference: attr.string(),
    modified_date: attr.serverDate(),
  }),
);
