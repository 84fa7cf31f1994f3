/**
 * The workloads in PostGraphile 5's own field names (amber preset, connection filter), and its
 * answers turned into the neutral shape.
 *
 * PostGraphile derives names from the database: a table's `id` is `rowId` (`id` is the global
 * Node ID), columns are camelCase (`name_nl` -> `nameNl`, `alpha_2_code` -> `alpha2Code`), a
 * foreign key is `<target>By<Column>` (`unitByUnitId`), and the way back is a connection
 * `<sources>By<Column>` (`productStructuresByProductId`: a connection even though a product has at
 * most one structure, because `product_id` is only a unique index, not a unique constraint).
 * Join tables are types of their own, so a to-many relationship is two hops:
 * `customerCommercialResolveResponsibleUsersByCustomerId { nodes { userByUserId { ... } } }`.
 *
 * Attributes come from the resource registry (every attribute of the spec, its storage column);
 * relationships from the table below, checked against the registry.
 */
import {
  attributeEntries,
  byId,
  canonicalAttribute,
  canonicalDecimal,
  definition,
  relationshipTarget,
  type Neutral,
  type NeutralResource,
  type Selection,
} from '../lib/neutral.ts';
import type { ListParams, ProductUpdate, ReadCase, Totals } from '../workloads.ts';

/** How PostGraphile reaches a relationship of the spec. */
type PeerRelationship =
  /** A to-one foreign key: `unitByUnitId { ... }`. */
  | { one: string }
  /** A to-one held by the other side without a unique constraint: a connection's first node. */
  | { firstOf: string }
  /** To-many children: `productStructureItemsByProductStructureId { nodes { ... } }`. */
  | { many: string }
  /** To-many through a join table: `<join>By<Own> { nodes { <target>By<Target> { ... } } }`. */
  | { many: string; through: string };

const RELATIONSHIPS: Record<string, Record<string, PeerRelationship>> = {
  customers: {
    customer_type: { one: 'customerTypeByCustomerTypeId' },
    language: { one: 'languageByLanguageId' },
    currency: { one: 'currencyByCurrencyId' },
    account_manager: { one: 'userByAccountManagerId' },
    customer_service_manager: { one: 'userByCustomerServiceManagerId' },
    address: { one: 'addressByAddressId' },
    commercial_resolve_responsible_users: {
      many: 'customerCommercialResolveResponsibleUsersByCustomerId',
      through: 'userByUserId',
    },
    inform_on_complaint_users: { many: 'customerInformOnComplaintUsersByCustomerId', through: 'userByUserId' },
    inform_on_complaint_functions: {
      many: 'customerInformOnComplaintFunctionsByCustomerId',
      through: 'functionCorporateGroupByFunctionCorporateGroupId',
    },
  },
  products: {
    unit: { one: 'unitByUnitId' },
    product_group: { one: 'productGroupByProductGroupId' },
    product_structure: { firstOf: 'productStructuresByProductId' },
    brand: { one: 'brandByBrandId' },
    production_line: { one: 'productionLineByProductionLineId' },
    preferred_supplier: { one: 'supplierByPreferredSupplierId' },
  },
  product_groups: { type: { one: 'productGroupTypeByTypeId' } },
  product_structures: { items: { many: 'productStructureItemsByProductStructureId' } },
  product_structure_items: {
    product: { one: 'productByProductId' },
    unit: { one: 'unitByUnitId' },
    type: { one: 'productStructureItemTypeByTypeId' },
    calculation_method: { one: 'productStructureItemCalculationMethodByCalculationMethodId' },
  },
  suppliers: {
    types: { many: 'supplierSupplierTypesBySupplierId', through: 'supplierTypeBySupplierTypeId' },
    currency: { one: 'currencyByCurrencyId' },
    buyer: { one: 'userByBuyerId' },
    key_user: { one: 'userByKeyUserId' },
    address: { one: 'addressByAddressId' },
    evaluation_role_users: {
      many: 'supplierEvaluationRoleUserLinksBySupplierId',
      through: 'supplierEvaluationRoleUserBySupplierEvaluationRoleUserId',
    },
    commercial_resolve_responsible_users: {
      many: 'supplierCommercialResolveResponsibleUsersBySupplierId',
      through: 'userByUserId',
    },
    inform_on_complaint_users: { many: 'supplierInformOnComplaintUsersBySupplierId', through: 'userByUserId' },
  },
};

/** Root fields: `productByRowId(rowId:)` and `allProducts(...)`. */
const ROOTS: Record<string, { one: string; all: string }> = {
  products: { one: 'productByRowId', all: 'allProducts' },
  customers: { one: 'customerByRowId', all: 'allCustomers' },
  suppliers: { one: 'supplierByRowId', all: 'allSuppliers' },
};

/** PostGraphile's camelCase of a column: `alpha_2_code` -> `alpha2Code`. */
function camel(column: string): string {
  return column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The PostGraphile field of one attribute, or of one part of it (a locale, an object's field). */
function attributeField(column: string, part?: string): string {
  return camel(part === undefined ? column : `${column}_${part}`);
}

function relationshipOf(type: string, name: string): PeerRelationship {
  relationshipTarget(type, name); // throws for a relationship the spec does not have
  const rel = RELATIONSHIPS[type]?.[name];
  if (!rel) throw new Error(`no PostGraphile mapping for ${type}.${name}`);
  return rel;
}

/**
 * The selection set of one resource: rowId, every attribute (or those named, at the root: W6), the
 * selected relationships.
 */
function selectionSet(type: string, selection: Selection, indent: string, attributes?: readonly string[]): string {
  const def = definition(type);
  const lines = ['rowId'];
  for (const [, a] of attributeEntries(def, attributes)) {
    if (a.type === 'localized') lines.push(['nl', 'fr', 'en', 'de'].map((l) => attributeField(a.column, l)).join(' '));
    else if (typeof a.type === 'object')
      lines.push(
        Object.keys(a.type.object)
          .map((f) => attributeField(a.column, f))
          .join(' '),
      );
    else lines.push(attributeField(a.column));
  }
  for (const [name, below] of Object.entries(selection)) {
    const { target } = relationshipTarget(type, name);
    const rel = relationshipOf(type, name);
    const inner = selectionSet(target, below, `${indent}  `);
    if ('one' in rel) lines.push(`${rel.one} {\n${inner}\n${indent}}`);
    else if ('firstOf' in rel) lines.push(`${rel.firstOf} { nodes {\n${inner}\n${indent}} }`);
    else if ('through' in rel) lines.push(`${rel.many} { nodes { ${rel.through} {\n${inner}\n${indent}} } }`);
    else lines.push(`${rel.many} { nodes {\n${inner}\n${indent}} }`);
  }
  return lines.map((l) => `${indent}${l}`).join('\n');
}

export interface GraphQLRequest {
  query: string;
  variables: Record<string, unknown>;
}

/**
 * The PostGraphile request for a case. Pages are reached by keyset (`rowId > afterId`, the SQL an
 * `after:` cursor produces), the way a client pages through a connection; REST pages by offset.
 */
export function peerRequest(c: ReadCase): GraphQLRequest {
  const { workload, params } = c;
  const root = ROOTS[workload.type];
  if (!root) throw new Error(`no PostGraphile root field for ${workload.type}`);
  const operation = `${workload.name}${c.pageSize && c.pageSize !== workload.pageSize ? `_${c.pageSize}` : ''}`;
  if (params.shape === 'one') {
    const body = selectionSet(workload.type, workload.include, '    ');
    return {
      query: `query ${operation}($id: Int!) {\n  ${root.one}(rowId: $id) {\n${body}\n  }\n}`,
      variables: { id: params.id },
    };
  }
  const { args, variables, declarations } = listArguments(params);
  const body = selectionSet(workload.type, workload.include, '      ', workload.attributes);
  // W6's totals: the connection's totalCount, and @graphile/pg-aggregates' aggregates (no count
  // of its own there: totalCount is the count).
  const totals = workload.totals
    ? '    totalCount\n    aggregates { min { consumerPrice } max { consumerPrice } sum { consumerPrice } }\n'
    : '';
  const query = `query ${operation}(${declarations.join(', ')}) {\n  ${root.all}(${args.join(', ')}) {\n${totals}    nodes {\n${body}\n    }\n  }\n}`;
  return { query, variables };
}

/**
 * W5 through PostGraphile: its update mutation by primary key, a patch of columns (`name_en` ->
 * `nameEn`; a decimal is a `BigFloat`, a string), selecting the row's id.
 */
export function peerUpdate(u: ProductUpdate): GraphQLRequest {
  return {
    query:
      'mutation W5($id: Int!, $patch: ProductPatch!) {\n  updateProductByRowId(input: { rowId: $id, productPatch: $patch }) {\n    product {\n      rowId\n    }\n  }\n}',
    variables: { id: u.id, patch: { consumerPrice: u.consumerPrice, nameEn: u.nameEn } },
  };
}

function listArguments(params: ListParams) {
  const args = ['first: $first', 'orderBy: ROW_ID_ASC'];
  const declarations = ['$first: Int!'];
  const variables: Record<string, unknown> = { first: params.pageSize };
  const filter: string[] = [];
  if (params.afterId > 0) {
    filter.push('rowId: { greaterThan: $afterId }');
    declarations.push('$afterId: Int!');
    variables.afterId = params.afterId;
  }
  if (params.modifiedAfter !== undefined) {
    filter.push('modifiedDate: { greaterThan: $modifiedAfter }');
    declarations.push('$modifiedAfter: Datetime!');
    variables.modifiedAfter = params.modifiedAfter;
  }
  // W6, in the connection filter's terms: `includesInsensitive` (ILIKE '%text%') on each language
  // under `or`, a BigFloat range, and `some` through the structure to its items' products (the
  // foreign key column, as a PostGraphile user would write it, rather than a join to the group).
  if (params.nameContains !== undefined) {
    const languages = ['nameNl', 'nameFr', 'nameEn', 'nameDe'];
    filter.push(`or: [${languages.map((l) => `{ ${l}: { includesInsensitive: $text } }`).join(', ')}]`);
    declarations.push('$text: String!');
    variables.text = params.nameContains;
  }
  if (params.consumerPrice !== undefined) {
    filter.push('consumerPrice: { greaterThanOrEqualTo: $min, lessThanOrEqualTo: $max }');
    declarations.push('$min: BigFloat!', '$max: BigFloat!');
    variables.min = params.consumerPrice.min;
    variables.max = params.consumerPrice.max;
  }
  if (params.componentGroup !== undefined) {
    filter.push(
      'productStructuresByProductId: { some: { productStructureItemsByProductStructureId: { some: { productByProductId: { productGroupId: { equalTo: $group } } } } } }',
    );
    declarations.push('$group: Int!');
    variables.group = params.componentGroup;
  }
  // `condition` is PostGraphile's equality filter (on indexed columns, in amber).
  if (params.active !== undefined) {
    args.push('condition: { isActive: $active }');
    declarations.push('$active: Boolean!');
    variables.active = params.active;
  }
  if (filter.length > 0) args.push(`filter: { ${filter.join(', ')} }`);
  return { args, variables, declarations };
}

type PeerNode = Record<string, unknown>;

function neutralResource(
  type: string,
  node: PeerNode,
  selection: Selection,
  attributeNames?: readonly string[],
): NeutralResource {
  const def = definition(type);
  const attributes = Object.fromEntries(
    attributeEntries(def, attributeNames).map(([name, a]) => [
      name,
      canonicalAttribute(a.type, (part) => node[attributeField(a.column, part)]),
    ]),
  );
  const relationships: NeutralResource['relationships'] = {};
  for (const [name, below] of Object.entries(selection)) {
    const { target } = relationshipTarget(type, name);
    const rel = relationshipOf(type, name);
    const nodesOf = (field: string) => ((node[field] as { nodes?: PeerNode[] } | null)?.nodes ?? []) as PeerNode[];
    if ('one' in rel) {
      const related = node[rel.one] as PeerNode | null;
      relationships[name] = related ? neutralResource(target, related, below) : null;
    } else if ('firstOf' in rel) {
      const [first] = nodesOf(rel.firstOf);
      relationships[name] = first ? neutralResource(target, first, below) : null;
    } else {
      const through = 'through' in rel ? rel.through : undefined;
      const related = nodesOf(rel.many).map((n) => (through ? (n[through] as PeerNode) : n));
      relationships[name] = byId(related.map((r) => neutralResource(target, r, below)));
    }
  }
  return { type, id: Number(node.rowId), attributes, relationships };
}

/** PostGraphile's JSON answer to peerRequest(c), in the neutral shape. Throws on GraphQL errors. */
export function normalisePeer(c: ReadCase, body: unknown): Neutral {
  const { data, errors } = body as { data?: Record<string, unknown> | null; errors?: { message: string }[] };
  if (errors?.length) throw new Error(`PostGraphile: ${errors.map((e) => e.message).join('; ')}`);
  const root = ROOTS[c.workload.type]!;
  if (c.params.shape === 'one') {
    const node = data?.[root.one] as PeerNode | null | undefined;
    return node ? neutralResource(c.workload.type, node, c.workload.include) : null;
  }
  const nodes = (data?.[root.all] as { nodes: PeerNode[] } | undefined)?.nodes;
  if (!nodes) throw new Error(`PostGraphile: no ${root.all} in the answer`);
  return nodes.map((n) => neutralResource(c.workload.type, n, c.workload.include, c.workload.attributes));
}

/** The totals in PostGraphile's answer to peerRequest(c) (W6): totalCount and pg-aggregates' min, max, sum. */
export function peerTotals(c: ReadCase, body: unknown): Totals {
  const { data } = body as { data?: Record<string, unknown> | null };
  const connection = data?.[ROOTS[c.workload.type]!.all] as
    | { totalCount: number; aggregates?: Record<'min' | 'max' | 'sum', { consumerPrice: unknown } | null> }
    | undefined;
  if (!connection) throw new Error('PostGraphile: no totals in the answer');
  const { totalCount, aggregates } = connection;
  return {
    totalCount,
    ...(aggregates && {
      aggregate: {
        count: totalCount,
        min: canonicalDecimal(aggregates.min?.consumerPrice),
        max: canonicalDecimal(aggregates.max?.consumerPrice),
        sum: canonicalDecimal(aggregates.sum?.consumerPrice),
      },
    }),
  };
}
