/**
 * A GraphQL schema per role (permissions.md "What a client with a role sees"): the full schema
 * (./schema.ts) with what the role may not use taken out, its resolvers kept. Introspection,
 * GraphiQL and `/graphql/schema.graphql` then show only what the role may use, and an operation
 * naming anything else fails validation as if it did not exist. `admin` has no Access and keeps the
 * full schema object itself: nothing is made for it.
 *
 * For a restricted role (./role-view.ts says what each name shows):
 * - the types of a resource type it may not read are gone (object, connection, edge, aggregates,
 *   where, filter, orderBy), with every field, argument and union member that names them;
 * - fields, where inputs, filters, orderBy values and aggregates keep what it sees; `search` goes
 *   where a searched attribute is hidden; `bom` and `whereUsed` need structures and items;
 * - a to-one relationship to a type whose rows it sees only some of is nullable (a hidden target
 *   loads as null);
 * - `createX` and `updateX` are there where it may create or update X and its input keeps what that
 *   operation may set; a required field it may not set is left out of the input (the data layer
 *   refuses the write that lacks it); the structure mutations need create or delete on items;
 * - `changes`, its subscription and `ResourceType` keep the types it reads;
 * - types left without fields go, and the fields that return them. A role that reads nothing has
 *   a Query of one field, `role` (GraphQL needs one): the name of its role.
 *
 * Made once per Access (a new Access comes with every reading of the roles), kept while it is;
 * an Access read again with the same rules gets the same schema.
 */
import { MapperKind, mapSchema, pruneSchema, type SchemaMapper } from '@graphql-tools/utils';
import {
  assertValidSchema,
  type GraphQLFieldConfig,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLSchema,
  GraphQLString,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  lexicographicSortSchema,
  printSchema,
} from 'graphql';
import { CHANGE_REQUESTS } from '../data/change-request-entries.ts';
import type { Access } from '../permissions/access.ts';
import { SEARCHABLE_TYPES } from '../query/search.ts';
import { resources } from '../resources/registry.ts';
import { camel } from '../resources/names.ts';
import type { GraphQLContext } from './context.ts';
import { resourcePartOf, RoleView } from './role-view.ts';
import { schema } from './schema.ts';

const schemas = new WeakMap<Access, GraphQLSchema>();

/**
 * The last schema made for each role, with the rules it was made from (as stored): a role read
 * again unchanged (the roles are read anew every few seconds on SQLite) keeps its schema, and
 * with it every operation prepared against it (./prepared.ts). A schema depends on nothing else.
 */
const lastMade = new Map<string, { rules: string; schema: GraphQLSchema }>();

/** The schema of a role: the full one for admin (no Access). */
export function schemaFor(access: Access | undefined): GraphQLSchema {
  if (!access) return schema;
  let made = schemas.get(access);
  if (!made) {
    const rules = access.role.source === undefined ? undefined : JSON.stringify(access.role.source);
    const last = lastMade.get(access.name);
    made = rules !== undefined && last?.rules === rules ? last.schema : roleSchema(new RoleView(access));
    if (rules !== undefined) lastMade.set(access.name, { rules, schema: made });
    schemas.set(access, made);
  }
  return made;
}

const sdls = new WeakMap<GraphQLSchema, string>();

/** A schema's SDL, as `/graphql/schema.graphql` serves it (types and fields in alphabetical order). */
export function sdlOf(of: GraphQLSchema): string {
  let sdl = sdls.get(of);
  if (sdl === undefined) sdls.set(of, (sdl = printSchema(lexicographicSortSchema(of))));
  return sdl;
}

/** The one field of the Query of a role that reads nothing. */
const ROLE_FIELD = 'role';

/** The list fields of Query that take `search`, with their types. */
const searchedLists = new Map(
  resources.filter((r) => SEARCHABLE_TYPES.has(r.type)).map((r) => [camel(r.type), r.type] as const),
);

function roleSchema(view: RoleView): GraphQLSchema {
  let made = pruneSchema(mapSchema(schema, mapperOf(view)));
  // A field whose required argument lost its type (an input left with nothing the role may set)
  // cannot be called: it goes too, and what only it used.
  for (let broken = unusableFields(made); broken.size > 0; broken = unusableFields(made)) {
    const gone = broken;
    made = pruneSchema(
      mapSchema(made, {
        [MapperKind.OBJECT_FIELD]: (_config, field, type) => (gone.has(`${type}.${field}`) ? null : undefined),
      }),
    );
  }
  assertValidSchema(made);
  return made;
}

/** `Type.field` of the fields of `made` that lack a required argument the full schema gives them. */
function unusableFields(made: GraphQLSchema): Set<string> {
  const broken = new Set<string>();
  const brokenInputs = unusableInputs(made);
  for (const type of Object.values(made.getTypeMap())) {
    const full = schema.getType(type.name);
    if (!isObjectType(type) || !isObjectType(full) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const args = new Set(field.args.map((a) => a.name));
      const required = full.getFields()[field.name]?.args.filter((a) => isNonNullType(a.type)) ?? [];
      const unusable = field.args.some((a) => isNonNullType(a.type) && brokenInputs.has(getNamedType(a.type).name));
      if (unusable || required.some((a) => !args.has(a.name))) broken.add(`${type.name}.${field.name}`);
    }
  }
  return broken;
}

/**
 * Input types that lost a required field, or whose required field takes one of them (a bulk
 * update's row, `{id, input}`, whose input keeps nothing the role may set): no value of them
 * can be given.
 */
function unusableInputs(made: GraphQLSchema): Set<string> {
  const broken = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const type of Object.values(made.getTypeMap())) {
      const full = schema.getType(type.name);
      if (!isInputObjectType(type) || !isInputObjectType(full) || broken.has(type.name)) continue;
      const fields = type.getFields();
      const lost = Object.values(full.getFields()).some((f) => {
        const kept = fields[f.name];
        return isNonNullType(f.type) && (!kept || broken.has(getNamedType(kept.type).name));
      });
      if (lost) {
        broken.add(type.name);
        grew = true;
      }
    }
  }
  return broken;
}

/** What to keep, drop (null) or change of each type, field and value of the full schema. */
function mapperOf(view: RoleView): SchemaMapper {
  const keepIf = (shown: boolean) => (shown ? undefined : null);
  const readsAny = view.readsAny();
  return {
    [MapperKind.QUERY]: (type) => (readsAny ? undefined : onlyRole(type)),
    [MapperKind.OBJECT_TYPE]: (type) => {
      const part = resourcePartOf(type.name);
      return keepIf(!part || view.reads(part.type));
    },
    [MapperKind.INPUT_OBJECT_TYPE]: (type) => {
      const part = resourcePartOf(type.name);
      if (!part) return undefined;
      if (part.kind === 'create' || part.kind === 'update') return keepIf(view.access.can(part.type, part.kind));
      return keepIf(view.reads(part.type));
    },
    [MapperKind.ENUM_TYPE]: (type) => {
      if (type.name === 'ResourceType') return keepIf(readsAny);
      const part = resourcePartOf(type.name);
      return keepIf(!part || view.reads(part.type));
    },
    [MapperKind.ENUM_VALUE]: (config, typeName) => {
      // Change requests are in the log of every role: shown to their author and approvers.
      if (typeName === 'ResourceType')
        return keepIf(config.value === CHANGE_REQUESTS || view.reads(config.value as string));
      const part = resourcePartOf(typeName);
      if (part?.kind !== 'orderBy') return undefined;
      return keepIf(view.ordersBy(part.type, (config.value as { column: string }).column));
    },
    [MapperKind.OBJECT_FIELD]: (config, field, typeName) => objectField(view, config, field, typeName),
    [MapperKind.QUERY_ROOT_FIELD]: (config, field) => {
      if (field === ROLE_FIELD && !readsAny) return undefined;
      return readRootField(view, config, field);
    },
    [MapperKind.MUTATION_ROOT_FIELD]: (_config, field) => keepIf(view.showsMutation(field)),
    [MapperKind.SUBSCRIPTION_ROOT_FIELD]: (_config, field) => keepIf(view.showsSubscription(field)),
    [MapperKind.INPUT_OBJECT_FIELD]: (_config, field, typeName) => {
      if (typeName === 'CreateProductStructureInput') return keepIf(view.setsStructureInput(field));
      const part = resourcePartOf(typeName);
      switch (part?.kind) {
        case 'where':
          return keepIf(view.showsField(part.type, field));
        case 'filter':
          return keepIf(view.showsFilter(part.type, field));
        case 'create':
        case 'update':
          return keepIf(view.setsInputField(typeName, part, field));
        default:
          return undefined;
      }
    },
  };
}

/** A read root field, of Query or of PastQuery (the same, as of an instant). */
function readRootField(
  view: RoleView,
  config: GraphQLFieldConfig<unknown, unknown>,
  field: string,
): GraphQLFieldConfig<unknown, unknown> | null | undefined {
  if (!view.showsQuery(field)) return null;
  const searched = searchedLists.get(field);
  if (!searched || view.searches(searched)) return undefined;
  const { search: _search, ...args } = config.args ?? {};
  return { ...config, args };
}

/** A field of an object type that is not a root type. */
function objectField(
  view: RoleView,
  config: GraphQLFieldConfig<unknown, unknown>,
  field: string,
  typeName: string,
): GraphQLFieldConfig<unknown, unknown> | null | undefined {
  if (typeName === 'PastQuery') return readRootField(view, config, field);
  if (typeName === 'BomLine' || typeName === 'WhereUsedLine')
    return view.showsLineField(typeName, field) ? undefined : null;
  const part = resourcePartOf(typeName);
  if (part?.kind === 'aggregateParts') return view.showsField(part.type, field) ? undefined : null;
  if (part?.kind !== 'object') return undefined;
  if (!view.showsField(part.type, field)) return null;
  // A to-one whose target the role sees only some rows of: a hidden one loads as null.
  const target = view.toOneTarget(part.type, field);
  if (target && isNonNullType(config.type) && !isListType(config.type.ofType) && view.access.rowFilter(target))
    return { ...config, type: config.type.ofType };
  return undefined;
}

/** The Query of a role that reads nothing: GraphQL needs a field. */
function onlyRole(query: GraphQLObjectType): GraphQLObjectType {
  return new GraphQLObjectType<unknown, GraphQLContext>({
    name: query.name,
    description: query.description,
    fields: {
      [ROLE_FIELD]: {
        type: new GraphQLNonNull(GraphQLString),
        description: "Your client's role, which may read nothing: the one field of its schema.",
        resolve: (_root, _args, context) => context.auth.role,
      },
    },
  });
}
