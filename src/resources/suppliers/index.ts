/** Suppliers and their classification: supplier types, evaluation role users. */
import { ALL_RESOURCE_OPERATIONS, attr, attributes, lookup, operations, toManyJoin, toOne } from '../define.ts';
import type { ResourceDefinition } from '../types.ts';

const DEPRECATED = { replacedBy: 'evaluation_role_users' };

export const suppliers: ResourceDefinition = {
  type: 'suppliers',
  model: 'supplier',
  group: 'suppliers',
  attributes: attributes({
    reference: attr.string({ required: true, unique: true }),
    name: attr.string({ required: true }),
    is_active: attr.boolean(),
    is_receival_vat_exclusive: attr.boolean(),
    // The spec has an attribute and a relationship both named `currency`; the column differs.
    currency: attr.string({ column: 'currency_text' }),
    gln: attr.string({ format: 'gln' }),
    is_emergency_number_mandatory: attr.boolean(),
    emergency_number: attr.string(),
    emergency_contact: attr.string(),
    email: attr.string({ format: 'email' }),
    phone: attr.string(),
    fax: attr.string(),
    modified_date: attr.serverDate(),
  }),
  relationships: {
    types: toManyJoin('types', 'supplier_types', {
      model: 'supplierTypeLink',
      table: 'supplier_supplier_types',
      ownColumn: 'supplier_id',
      targetColumn: 'supplier_type_id',
      targetRelation: 'supplier_type',
    }),
    currency: toOne('currency', 'currencies', operations.toOne, { removable: false }),
    buyer: toOne('buyer', 'users', operations.toOne, { removable: false, deprecated: DEPRECATED }),
    key_user: toOne('key_user', 'users', operations.toOne, { removable: false, deprecated: DEPRECATED }),
    address: toOne('address', 'addresses', operations.toOne, { removable: false }),
    evaluation_role_users: toManyJoin(
      'evaluation_role_users',
      'supplier_evaluation_role_users',
      {
        model: 'supplierEvaluationRoleUserLink',
        table: 'supplier_evaluation_role_user_links',
        ownColumn: 'supplier_id',
        targetColumn: 'supplier_evaluation_role_user_id',
        targetRelation: 'supplier_evaluation_role_user',
      },
      // The spec shows only REL-GET; further operations: not shown.
      ['get'],
    ),
    // Listed as relationships and includes, with no relationship operations in the spec:
    // written through ADD and UPDATE bodies only.
    commercial_resolve_responsible_users: toManyJoin(
      'commercial_resolve_responsible_users',
      'users',
      {
        model: 'supplierCommercialResolveResponsibleUser',
        table: 'supplier_commercial_resolve_responsible_users',
        ownColumn: 'supplier_id',
        targetColumn: 'user_id',
        targetRelation: 'user',
      },
      [],
    ),
    inform_on_complaint_users: toManyJoin(
      'inform_on_complaint_users',
      'users',
      {
        model: 'supplierInformOnComplaintUser',
        table: 'supplier_inform_on_complaint_users',
        ownColumn: 'supplier_id',
        targetColumn: 'user_id',
        targetRelation: 'user',
      },
      [],
    ),
  },
  operations: ALL_RESOURCE_OPERATIONS,
  filters: {},
  includes: {
    list: [
      'types',
      'currency',
      'buyer',
      'key_user',
      'address',
      'commercial_resolve_responsible_users',
      'inform_on_complaint_users',
    ],
    get: [
      'types',
      'currency',
      'buyer',
      'key_user',
      'address',
      'commercial_resolve_responsible_users',
      'inform_on_complaint_users',
    ],
  },
  reverseLinks: { products: { type: 'products', relationship: 'preferred_supplier' } },
};

export const supplierTypes = lookup(
  'supplier_types',
  'supplierType',
  'suppliers',
  attributes({
    description: attr.localized(),
    is_emergency_number_required: attr.boolean(),
    request_certificates: attr.boolean(),
    modified_date: attr.serverDate(),
  }),
);

export const supplierEvaluationRoleUsers = lookup(
  'supplier_evaluation_role_users',
  'supplierEvaluationRoleUser',
  'suppliers',
  attributes({
    created_date: attr.serverDate(),
    modified_date: attr.serverDate(),
  }),
);
