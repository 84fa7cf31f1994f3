/**
 * What a role may use of the GraphQL schema, name by name. Each type and field of the full schema
 * (./schema.ts) is read back to what it shows or sets (a resource type, an attribute, a
 * relationship, an operation), with the names both APIs derive from the spec's
 * (../resources/names.ts), and asked of the role's Access (src/permissions). Deny by default: a
 * field of a resource's types that this module cannot place is not shown to a restricted role.
 * ./role-schema.ts makes a role's schema from these answers.
 */
import type { Access } from '../permissions/access.ts';
import { type FieldMeaning, keyOfColumn } from '../query/fields.ts';
import { searchedColumns } from '../query/search.ts';
import type { RoleOperation } from '../permissions/roles.ts';
import { resourceByType, resources } from '../resources/registry.ts';
import type { ResourceDefinition } from '../resources/types.ts';
import { attributeField, camel, pascal, singular, typeName } from '../resources/names.ts';
import { FEDERATION_QUERIES } from './federation.ts';
import { inputFieldsOf } from './mutations.ts';
import { type FilterField, filterFields } from './queries.ts';

/** What a field of a resource's object type, where input or aggregate shows. */
export type Shows =
  | { kind: 'always' }
  /** What a where field of the same name reads (src/query/fields.ts), asked of the role alike. */
  | Exclude<FieldMeaning, { kind: 'own' }>
  /** `Product.bom` and `Product.whereUsed`. */
  | { kind: 'bom' };

/** What the types made for a resource type are: its object type, its list's types, its inputs. */
type TypeKind =
  | 'object'
  | 'connection'
  | 'edge'
  | 'aggregate'
  | 'aggregateParts'
  | 'where'
  | 'listWhere'
  | 'filter'
  | 'orderBy'
  | 'create'
  | 'update';

export interface ResourceTypePart {
  type: string;
  kind: TypeKind;
}

const ALWAYS: Shows = { kind: 'always' };
const STRUCTURES = 'product_structures';
const ITEMS = 'product_structure_items';

/** GraphQL field name -> what it shows: object fields, where inputs and aggregates name them alike. */
function fieldsOf(resource: ResourceDefinition): Map<string, Shows> {
  const fields = new Map<string, Shows>(
    ['id', 'version', 'history', 'AND', 'OR', 'NOT', 'isNull'].map((name) => [name, ALWAYS]),
  );
  for (const [name, attribute] of Object.entries(resource.attributes))
    fields.set(attributeField(resource, name, attribute.column), { kind: 'attribute', name });
  for (const name of Object.keys(resource.relationships)) fields.set(camel(name), { kind: 'relationship', name });
  for (const name of Object.keys(resource.ownerLinks ?? {})) fields.set(camel(name), { kind: 'owner', name });
  for (const name of Object.keys(resource.reverseLinks ?? {})) fields.set(camel(name), { kind: 'reverse', name });
  if (resource.type === 'products') for (const name of ['bom', 'whereUsed']) fields.set(name, { kind: 'bom' });
  return fields;
}

const fieldsByType = new Map(resources.map((r) => [r.type, fieldsOf(r)]));
const filtersByType = new Map<string, Map<string, FilterField>>();

/** The GraphQL types made for each resource type, by name. */
const parts = new Map<string, ResourceTypePart>();
for (const { type } of resources) {
  const name = typeName(type);
  const add = (kind: TypeKind, ...names: string[]) => {
    for (const n of names) parts.set(n, { type, kind });
  };
  add('object', name);
  add('connection', `${name}Connection`);
  add('edge', `${name}Edge`);
  add('aggregate', `${name}Aggregate`);
  add('aggregateParts', `${name}Sums`, `${name}Averages`, `${name}Minimums`, `${name}Maximums`);
  add('where', `${name}Where`);
  add('listWhere', `${name}ListWhere`);
  add('filter', `${name}Filter`);
  add('orderBy', `${name}OrderBy`);
  add('create', `Create${name}Input`);
  add('update', `Update${name}Input`);
}
// The items given with a structure, or added to one, are created.
parts.set('ProductStructureItemInput', { type: ITEMS, kind: 'create' });

/** The resource type a GraphQL type was made for, and what it is of it; undefined for the others. */
export function resourcePartOf(name: string): ResourceTypePart | undefined {
  return parts.get(name);
}

/** The root fields of Query, by name: the resource type each reads. */
const queryFields = new Map(resources.flatMap((r) => [camel(singular(r.type)), camel(r.type)].map((f) => [f, r.type])));

/**
 * The root fields of Mutation made for each type, by name, with what a role must be allowed to
 * see them: `createX`, `updateX`, and the bulk `createXs`, `updateXs`, `upsertXs` (an upsert
 * creates some rows and updates others).
 */
const mutationFields = new Map<string, readonly (readonly [string, RoleOperation])[]>(
  resources.flatMap((r) => [
    [`create${typeName(r.type)}`, [[r.type, 'create']]],
    [`update${typeName(r.type)}`, [[r.type, 'update']]],
    [`create${pascal(r.type)}`, [[r.type, 'create']]],
    [`update${pascal(r.type)}`, [[r.type, 'update']]],
    [
      `upsert${pascal(r.type)}`,
      [
        [r.type, 'create'],
        [r.type, 'update'],
      ],
    ],
  ]),
);

/** The mutations of bills of material, and what a role must be allowed to see them. */
const STRUCTURE_MUTATIONS: Readonly<Record<string, readonly (readonly [string, RoleOperation])[]>> = {
  createProductStructure: [[STRUCTURES, 'create']],
  addProductStructureItems: [[ITEMS, 'create']],
  // The old items are deleted, the given ones created.
  replaceProductStructureItems: [
    [ITEMS, 'delete'],
    [ITEMS, 'create'],
  ],
  removeProductStructureItems: [[ITEMS, 'delete']],
};

/** The root fields of webhooks (./webhooks.ts): a client's own endpoints, sent only what its role sees. */
const WEBHOOK_QUERIES = new Set(['webhooks', 'webhook']);
const WEBHOOK_MUTATIONS = new Set([
  'createWebhook',
  'updateWebhook',
  'deleteWebhook',
  'replayWebhook',
  'rotateWebhookSecret',
]);

/**
 * The root fields of change requests (./change-requests.ts): seen by roles that write (propose,
 * withdraw) or approve (approve, reject); the requests each may see are narrowed apart.
 */
const CHANGE_REQUEST_QUERIES = new Set(['changeRequests', 'changeRequest']);
const CHANGE_REQUEST_MUTATIONS = new Set([
  'createChangeRequest',
  'withdrawChangeRequest',
  'approveChangeRequest',
  'rejectChangeRequest',
]);
const WRITES: readonly RoleOperation[] = ['create', 'update', 'delete'];

/** What one role may see and set, in the GraphQL schema's names. */
export class RoleView {
  constructor(readonly access: Access) {}

  reads(type: string): boolean {
    return this.access.can(type, 'read');
  }

  /** Whether the role reads any type at all (else it has the change log of none). */
  readsAny(): boolean {
    return resources.some((r) => this.reads(r.type));
  }

  /** Whether the role writes any type, itself or by change requests (it may propose and withdraw them). */
  writesAny(): boolean {
    return resources.some((r) => WRITES.some((operation) => this.access.can(r.type, operation)));
  }

  /** Whether the role may approve change requests of any type. */
  approvesAny(): boolean {
    return resources.some((r) => this.access.mayApprove(r.type));
  }

  /** Whether a resource type's field `field` (its GraphQL name) is shown; unknown fields are not. */
  showsField(type: string, field: string): boolean {
    const shows = fieldsByType.get(type)?.get(field);
    return shows !== undefined && this.reads(type) && this.shows(type, shows);
  }

  /** What the field `field` of `type`'s object type shows, if it is a relationship or owner link: its target. */
  toOneTarget(type: string, field: string): string | undefined {
    const shows = fieldsByType.get(type)?.get(field);
    const resource = resourceByType(type)!;
    if (shows?.kind === 'relationship') return resource.relationships[shows.name]!.target;
    if (shows?.kind === 'owner') return resource.ownerLinks![shows.name]!.target;
    return undefined;
  }

  private shows(type: string, shows: Shows): boolean {
    switch (shows.kind) {
      case 'always':
        return true;
      case 'bom':
        return this.reads(STRUCTURES) && this.access.sees(ITEMS, 'product');
      default:
        return this.access.seesMeaning(type, shows);
    }
  }

  /** An attribute (spec name) the role reads. */
  private seesAttribute(type: string, name: string): boolean {
    return this.access.seesAttribute(type, name);
  }

  /** A field of `BomLine` or `WhereUsedLine`: what its values come from must be seen. */
  showsLineField(line: 'BomLine' | 'WhereUsedLine', field: string): boolean {
    const quantity = line === 'WhereUsedLine' || this.seesAttribute(STRUCTURES, 'quantity');
    switch (field) {
      case 'unit':
        // The item's unit, or the component's own.
        return this.access.sees(ITEMS, 'unit') && this.access.sees('products', 'unit');
      case 'netQuantity':
        return this.seesAttribute(ITEMS, 'net_quantity') && quantity;
      case 'grossQuantity':
        return this.seesAttribute(ITEMS, 'gross_quantity') && quantity;
      case 'isPhantom':
        return this.seesAttribute(ITEMS, 'is_phantom');
      case 'structureQuantity':
        return this.seesAttribute(STRUCTURES, 'quantity');
      default:
        return true;
    }
  }

  /** A field of a list's `filter` input. */
  showsFilter(type: string, field: string): boolean {
    let filters = filtersByType.get(type);
    if (!filters) filtersByType.set(type, (filters = filterFields(resourceByType(type)!)));
    const reads = filters.get(field)?.reads;
    return reads?.every(([t, key]) => this.access.mayName(t, key)) ?? false;
  }

  /** An `orderBy` value on the column `column` (`id`, or an attribute's). */
  ordersBy(type: string, column: string): boolean {
    return this.mayNameColumn(type, column);
  }

  private mayNameColumn(type: string, column: string): boolean {
    const key = keyOfColumn(type, column);
    return key !== undefined && this.access.mayName(type, key);
  }

  /**
   * Whether the role may look for rows of `type` by `search`: it sees every attribute search looks
   * in (src/query/search.ts), or search would find rows by what it may not see.
   */
  searches(type: string): boolean {
    return searchedColumns(type).every((column) => this.mayNameColumn(type, column));
  }

  /** Whether the operation may set the field `name` (spec name) of `type`. */
  sets(type: string, operation: RoleOperation, name: string): boolean {
    const rule = this.access.rule(type, operation);
    return rule !== undefined && (!rule.fields || rule.fields.has(name));
  }

  /** A field of a create or update input (`inputName`), or of the input of a structure. */
  setsInputField(inputName: string, part: ResourceTypePart, field: string): boolean {
    const operation = part.kind === 'update' ? 'update' : 'create';
    const meaning = inputFieldsOf(inputName)?.get(field);
    if (!meaning) return false;
    const name = 'attribute' in meaning ? meaning.attribute : 'toOne' in meaning ? meaning.toOne : meaning.toMany;
    return this.sets(part.type, operation, name);
  }

  /** A field of `CreateProductStructureInput`. */
  setsStructureInput(field: string): boolean {
    if (field === 'items') return this.access.can(ITEMS, 'create');
    return this.sets(STRUCTURES, 'create', field);
  }

  /**
   * A root field of Query (or of PastQuery): the lists and lookups of readable types; the change
   * log, webhooks (which send what the role sees of it) and `asOf` when it reads any.
   */
  showsQuery(field: string): boolean {
    const type = queryFields.get(field);
    if (type) return this.reads(type);
    if (CHANGE_REQUEST_QUERIES.has(field)) return this.writesAny() || this.approvesAny();
    return (
      (field === 'changes' || field === 'asOf' || WEBHOOK_QUERIES.has(field) || FEDERATION_QUERIES.has(field)) &&
      this.readsAny()
    );
  }

  /**
   * A root field of Mutation: the operation on its type allowed without approval (a write that
   * waits for approval is a change request; whether its input keeps a field is asked apart);
   * webhooks' when it reads any.
   */
  showsMutation(field: string): boolean {
    if (WEBHOOK_MUTATIONS.has(field)) return this.readsAny();
    if (CHANGE_REQUEST_MUTATIONS.has(field))
      return field.startsWith('approve') || field.startsWith('reject') ? this.approvesAny() : this.writesAny();
    const needs = mutationFields.get(field) ?? STRUCTURE_MUTATIONS[field];
    return (
      needs?.every(
        ([type, operation]) => this.access.can(type, operation) && !this.access.needsApproval(type, operation),
      ) ?? false
    );
  }

  /** A root field of Subscription: the change log, when it reads any type. */
  showsSubscription(field: string): boolean {
    return field === 'changes' && this.readsAny();
  }
}
