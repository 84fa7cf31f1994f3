/**
 * The service as an Apollo Federation 2 subgraph (docs/guides/joining-a-federated-graph.md):
 * every resource type is an entity, keyed by `id` and by each unique attribute of the registry
 * (a product's `reference` and `gtin`, a customer's `reference`, ...), so that other subgraphs
 * (orders, a web shop) point at master data and a gateway (Hive Gateway, Apollo Router) fetches
 * it from here.
 *
 * - `_service { sdl }`: the SDL a gateway composes, of the schema of the role of the token that
 *   asks (the client's own, made by ./role-schema.ts), with `@link` to the federation spec and
 *   `@key` on each entity; a key whose field the role does not see is not offered.
 * - `_entities(representations:)`: each representation found through the same per-request
 *   DataLoaders as every field, so that all those of one type and key are one statement, whatever
 *   their number; read under the caller's role: a row it does not see is null.
 *
 * Written here rather than with @pothos/plugin-federation: its `_service` prints one SDL, of the
 * full schema, where each role has a schema of its own.
 */
import { MapperKind, mapSchema, pruneSchema } from '@graphql-tools/utils';
import {
  GraphQLScalarType,
  type GraphQLSchema,
  isObjectType,
  lexicographicSortSchema,
  printSchema,
  valueFromASTUntyped,
} from 'graphql';
import { type Row, rowsByUnique } from '../data/load.ts';
import { ID_RANGE, idFromText, int32FromText, isId } from '../db/integers.ts';
import { operand, WhereInputError } from '../query/where.ts';
import { quoted } from '../words.ts';
import { resources } from '../resources/registry.ts';
import { attributeField, typeName } from '../resources/names.ts';
import type { ResourceDefinition, ScalarType } from '../resources/types.ts';
import { builder } from './builder.ts';
import type { GraphQLContext } from './context.ts';
import { badInput } from './errors.ts';
import { refOf } from './objects.ts';
import { requestLoader } from './request-loaders.ts';

/** The federation spec the SDL links to. */
export const FEDERATION_SPEC = 'https://specs.apollo.dev/federation/v2.6';
/** Representations one `_entities` takes (a gateway asks for those of one plan step at once). */
export const MAX_REPRESENTATIONS = 1000;
/** The root fields of the federation: in the schema of every role that reads anything. */
export const FEDERATION_QUERIES: ReadonlySet<string> = new Set(['_service', '_entities']);

/** A key beside `id`: the GraphQL field of a unique attribute, its column and the type of its values. */
interface EntityKey {
  field: string;
  column: string;
  type: ScalarType;
}

/** Each entity (every resource type), by its GraphQL type name: its resource type and keys beside `id`. */
const entities = new Map(
  resources.map((resource) => [typeName(resource.type), { type: resource.type, keys: uniqueKeys(resource) }]),
);

function uniqueKeys(resource: ResourceDefinition): EntityKey[] {
  return Object.entries(resource.attributes)
    .filter(([, attribute]) => attribute.unique)
    .map(([name, attribute]) => ({
      field: attributeField(resource, name, attribute.column),
      column: attribute.column,
      // Unique attributes are text or integers (references, codes, GTINs).
      type: attribute.type as ScalarType,
    }));
}

builder.addScalarType(
  '_Any',
  new GraphQLScalarType({
    name: '_Any',
    description: "An entity's representation: its `__typename` and one of its keys.",
    parseValue: (value) => value,
    parseLiteral: (node) => valueFromASTUntyped(node),
    serialize: (value) => value,
  }),
);

const ServiceRef = builder.objectRef<object>('_Service').implement({
  fields: (t) => ({
    sdl: t.string({
      nullable: false,
      description: "The SDL a gateway composes: this client's schema, with its entities' keys.",
      resolve: (_service, _args, _context, info) => subgraphSdl(info.schema),
    }),
  }),
});

/** Marks a loaded row with its type, for the union to tell which it is. */
const ENTITY_TYPE = Symbol('entity type');

const EntityUnion = builder.unionType('_Entity', {
  types: resources.map((r) => refOf(r.type)) as never,
  resolveType: (value) => (value as { [ENTITY_TYPE]: string })[ENTITY_TYPE],
});

builder.queryField('_service', (t) =>
  t.field({
    type: ServiceRef,
    nullable: false,
    description: 'Apollo Federation: this subgraph, as a gateway composes it.',
    resolve: () => ({}),
  }),
);

builder.queryField('_entities', (t) =>
  t.field({
    type: [EntityUnion],
    nullable: { list: false, items: true },
    description: `Apollo Federation: the entities of these representations, null where there is none (or the client may not see it); at most ${MAX_REPRESENTATIONS}.`,
    args: { representations: t.arg({ type: ['_Any'], required: { list: true, items: true } }) },
    extensions: { listRows: { representations: MAX_REPRESENTATIONS } },
    complexity: (args) => ({ field: 1, multiplier: Math.max(1, (args.representations as unknown[]).length) }),
    resolve: (_root, { representations }, context, info) =>
      representations.map((representation) => entityOf(representation, context, info.schema)),
  }),
);

/** The entity a representation names, loaded with the others of its type and key (null: none the client sees). */
async function entityOf(representation: unknown, context: GraphQLContext, schema: GraphQLSchema): Promise<Row | null> {
  const given = representation as Record<string, unknown> | null;
  const name = given?.__typename;
  if (!given || typeof given !== 'object' || typeof name !== 'string')
    throw badInput('a representation is an object with the entity\'s "__typename" and a key', 'representations');
  const entity = entities.get(name);
  const type = schema.getType(name);
  if (!entity || !type || !isObjectType(type))
    throw badInput(`${JSON.stringify(name)} is not an entity of this subgraph`, 'representations');
  let row: Row | null;
  if (given.id !== undefined) {
    // An id as a number or its digits (GraphQL's ID is text); out of range is no id at all.
    const id = typeof given.id === 'string' ? idFromText(given.id) : given.id;
    if (!isId(id)) throw badInput(`the id of a ${name} is ${ID_RANGE} (got ${quoted(given.id)})`, 'representations');
    row = (await refOf(entity.type).getDataloader(context).load(id)) as Row | null;
  } else {
    // A key the client's role does not see is none of its keys, nor named.
    const keys = entity.keys.filter((k) => type.getFields()[k.field]);
    const key = keys.find((k) => given[k.field] !== undefined);
    if (!key)
      throw badInput(`a ${name} is found by ${['id', ...keys.map((k) => k.field)].join(' or ')}`, 'representations');
    const value = keyValue(key, given[key.field], name);
    row = await requestLoader<Row | null, string | number>(context, `${entity.type}.${key.column}`, (values) =>
      rowsByUnique(context.source, entity.type, key.column, values, context.plan.columns(entity.type)),
    ).load(value);
  }
  return row && ({ ...row, [ENTITY_TYPE]: name } as Row);
}

/**
 * A representation's value of a key, as the where language checks a condition's (query/where.ts
 * operand: text within its length, an integer in the database's range): a number for a text key
 * and digits for an integer key are taken as they read.
 */
function keyValue(key: EntityKey, given: unknown, name: string): string | number {
  const value =
    key.type === 'string' && typeof given === 'number'
      ? String(given)
      : key.type === 'integer' && typeof given === 'string'
        ? (int32FromText(given) ?? given)
        : given;
  try {
    return operand(key.type, value, `the ${key.field} of a ${name}`) as string | number;
  } catch (error) {
    if (error instanceof WhereInputError) throw badInput(error.message, 'representations');
    throw error;
  }
}

const sdls = new WeakMap<GraphQLSchema, string>();

/**
 * A schema's SDL as a subgraph's: without the federation's own fields and types, with `@link` to
 * the federation spec and `@key` on each entity, for each key whose field the schema shows.
 */
export function subgraphSdl(schema: GraphQLSchema): string {
  let sdl = sdls.get(schema);
  if (sdl !== undefined) return sdl;
  const bare = pruneSchema(
    mapSchema(schema, {
      [MapperKind.QUERY_ROOT_FIELD]: (config, field) => (FEDERATION_QUERIES.has(field) ? null : config),
    }),
  );
  sdl = printSchema(lexicographicSortSchema(bare));
  for (const [name, entity] of entities) {
    const type = bare.getType(name);
    if (!type || !isObjectType(type)) continue;
    const fields = ['id', ...entity.keys.map((k) => k.field)].filter((field) => type.getFields()[field]);
    sdl = sdl.replace(`\ntype ${name} {`, `\ntype ${name} ${fields.map((f) => `@key(fields: "${f}")`).join(' ')} {`);
  }
  sdl = `extend schema @link(url: "${FEDERATION_SPEC}", import: ["@key"])\n\n${sdl}`;
  sdls.set(schema, sdl);
  return sdl;
}
