/**
 * Property-based fuzzing of the GraphQL API: the variables of every mutation and the arguments
 * of every root query (lists with their paging, filters and orders; lookups by id), on both
 * providers, derived from the executable schema; each answer selected at random from every field
 * of its type and of the types reached through its relationships, owner links, reverse links and
 * bills of material, two links deep, with their arguments (page, cursor, where, levels). For
 * every case: never a 5xx and never an INTERNAL_SERVER_ERROR; every error with a message and a
 * code; a variable of the wrong type named in its error; after every refused mutation, the
 * database byte for byte as it was.
 */
import fc from 'fast-check';
import {
  getNamedType,
  getNullableType,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  isLeafType,
  buildSchema,
  type GraphQLSchema,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.ts';
import { providers } from '../support/databases.ts';
import { holdsValue, linkOf, linksOf, RESOURCE_TYPES, valueSelections, type Link } from '../support/selections.ts';
import {
  anyJson,
  deepNesting,
  integerBoundary,
  integerBoundaryText,
  oddHeaders,
  oddNumber,
  oddString,
  rawJson,
  withDuplicateKey,
} from './arbitraries.ts';
import { dataDump, FIXTURE_ROWS, fuzzEnv, ROLES, RUNS, SEED, type FuzzEnv } from './fixture.ts';
import { type Asked, HiddenValues, randomRole, readRows, rowVisible, type Rows } from './roles.ts';
import type { RandomRole } from '../support/roles.ts';
import { resourceByType } from '../../src/resources/registry.ts';
import { camel } from '../../src/resources/names.ts';
import { testApp, type TestApp } from '../support/app.ts';

interface GraphQLCase {
  operation: 'query' | 'mutation';
  field: string;
  body: string;
  /** Request headers besides Authorization, Content-Type and Accept. */
  headers: Record<string, string>;
  /** A variable the answer must name (the one given a value of the wrong type on purpose). */
  names?: string;
}

/** The codes errors may carry; INTERNAL_SERVER_ERROR is a bug, never in this list. */
const CODES = [
  'BAD_REQUEST',
  'BATCH_NOT_SUPPORTED',
  'IDEMPOTENCY_KEY_IN_USE',
  'IDEMPOTENCY_KEY_REUSED',
  'METHOD_NOT_ALLOWED',
  'NOT_ACCEPTABLE',
  'OPERATION_NAME_REQUIRED',
  'OPERATION_NOT_SUPPORTED_BY_TRANSPORT',
  'PAYLOAD_TOO_LARGE',
  'UNKNOWN_OPERATION_NAME',
  'UNSUPPORTED_MEDIA_TYPE',
  'BAD_USER_INPUT',
  'NOT_FOUND',
  'CONFLICT',
  'CURSOR_EXPIRED',
  'HISTORY_PURGED',
  'BOM_CYCLE',
  'FORBIDDEN',
  'QUERY_COMPLEXITY',
  'QUERY_DEPTH',
  'QUERY_BREADTH',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
];

// Values by input type --------------------------------------------------------------------------

const existingId = fc.integer({ min: 1, max: FIXTURE_ROWS });

/**
 * Cursors as a client might forge them: a list's (`offset:<position>[:id:<id>]`, base64url) or the
 * change log's (a number as a string), with numbers at integer boundaries.
 */
const forgedCursor = fc.oneof(
  fc
    .tuple(integerBoundaryText, fc.option(integerBoundaryText))
    .map(([position, id]) => Buffer.from(`offset:${position}${id === null ? '' : `:id:${id}`}`).toString('base64url')),
  fc
    .tuple(fc.integer({ min: 0, max: 3 }), integerBoundaryText)
    .map(([position, id]) => Buffer.from(`offset:${position}:id:${id}`).toString('base64url')),
  integerBoundaryText,
);

/** A value for an input type: mostly of the type (ids that exist, enum values), sometimes anything. */
function valueFor(type: GraphQLInputType, depth = 0, name = ''): fc.Arbitrary<unknown> {
  const anything = depth > 2 ? fc.constant(null) : anyJson;
  if (/^(after|before)$/.test(name))
    return fc.oneof({ weight: 2, arbitrary: forgedCursor }, { weight: 1, arbitrary: valueFor(type, depth) });
  if (type instanceof GraphQLNonNull) return valueFor(type.ofType, depth, name);
  if (type instanceof GraphQLList) {
    return fc.oneof(
      { weight: 12, arbitrary: fc.array(valueFor(type.ofType, depth + 1), { maxLength: 3 }) },
      { weight: 1, arbitrary: valueFor(type.ofType, depth + 1) },
      { weight: 1, arbitrary: anything },
    );
  }
  if (type instanceof GraphQLEnumType)
    return fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom(...type.getValues().map((v) => v.name)) },
      { weight: 1, arbitrary: oddString },
    );
  if (type instanceof GraphQLInputObjectType) {
    if (depth > 3) return fc.constant({});
    const fields = Object.values(type.getFields());
    const record = fc.record(Object.fromEntries(fields.map((f) => [f.name, valueFor(f.type, depth + 1)])), {
      requiredKeys: [],
    });
    return fc.oneof(
      { weight: 12, arbitrary: record },
      {
        weight: 1,
        arbitrary: fc.tuple(record, oddString, anything).map(([r, key, value]) => ({ ...r, [key]: value })),
      },
      { weight: 1, arbitrary: anything },
    );
  }
  const scalar = type as GraphQLScalarType;
  const typed: Record<string, fc.Arbitrary<unknown>> = {
    Int: fc.oneof(
      { weight: 10, arbitrary: existingId },
      { weight: 2, arbitrary: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }) },
      { weight: 2, arbitrary: integerBoundary },
      { weight: 1, arbitrary: oddNumber },
    ),
    Float: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), oddNumber),
    String: fc.oneof({ weight: 6, arbitrary: fc.string({ maxLength: 12 }) }, { weight: 1, arbitrary: oddString }),
    ID: fc.oneof(existingId.map(String), oddString),
    Boolean: fc.boolean(),
    Decimal: fc.oneof(oddNumber, fc.constantFrom('2.49', '0.1', '1e3', '-0', 'abc', '1'.repeat(20))),
    DateTime: fc.oneof(
      fc.constantFrom('2026-01-31T12:00:00Z', '2026-02-30T00:00:00Z', '2026-01-31', 'yesterday', ''),
      oddString,
    ),
  };
  return fc.oneof({ weight: 20, arbitrary: typed[scalar.name] ?? oddString }, { weight: 1, arbitrary: anything });
}

/** The plainest value of a type: what a required argument is given while another one is spoiled. */
function plainValue(type: GraphQLInputType): unknown {
  const named = getNamedType(type);
  if (getNullableType(type) instanceof GraphQLList) return [];
  if (named instanceof GraphQLInputObjectType) return {};
  if (named instanceof GraphQLEnumType) return named.getValues()[0]!.name;
  return (
    (
      { Int: 1, Float: 1, String: 'x', ID: '1', Boolean: true, Decimal: 1, DateTime: '2026-01-01T00:00:00Z' } as Record<
        string,
        unknown
      >
    )[named.name] ?? 'x'
  );
}

/** A value of the wrong JSON type for a scalar argument (what coercion must refuse). */
function wrongFor(type: GraphQLInputType): fc.Arbitrary<unknown> | undefined {
  const named = getNullableType(type);
  if (!(named instanceof GraphQLScalarType)) return undefined;
  if (named.name === 'Int') return fc.constantFrom('one', true, 1.5, [1], { id: 1 });
  if (named.name === 'String') return fc.constantFrom(1, true, [], {});
  return undefined;
}

// Operations ------------------------------------------------------------------------------------

/** What to ask of a field's answer that leads to no resource: a page's count and ids, an object's id, or its type name. */
function selection(field: GraphQLField<unknown, unknown>): string {
  const type = getNamedType(field.type);
  if (!(type instanceof GraphQLObjectType)) return '';
  const fields = type.getFields();
  // The change log's pages have no count (a log grows while it is read).
  // A list's `where` and `search` are generated from their input types like any argument; its
  // aggregates (every function the type has, of its first field) are asked too.
  if (fields.nodes)
    return `{ ${fields.totalCount ? 'totalCount ' : ''}${aggregates(fields.aggregate)}pageInfo { hasNextPage endCursor } nodes { id } }`;
  if (fields.id) return fields.version ? '{ id version }' : '{ id }';
  return '{ __typename }';
}

function aggregates(field: GraphQLField<unknown, unknown> | undefined): string {
  if (!field) return '';
  const functions = Object.values((getNamedType(field.type) as GraphQLObjectType).getFields())
    .filter((f) => f.name !== 'count')
    .map((f) => `${f.name} { ${Object.keys((getNamedType(f.type) as GraphQLObjectType).getFields())[0]} }`);
  return `aggregate { count ${functions.join(' ')} } `;
}

/**
 * A selection whose arguments are variables: given how to declare one (its type and value, the
 * answer its name), its text. Built once per type and depth, drawn anew for every case.
 */
type Part = (declare: (type: GraphQLInputType, value: unknown) => string) => string;

/** Links are followed from the root's type (depth 0) and from the types it reaches (depth 1). */
const LINK_DEPTH = 2;

/** The argument of a link given a value now and then: mostly small pages, sometimes anything. */
function linkArgument(arg: GraphQLArgument): fc.Arbitrary<unknown> {
  const value =
    arg.name === 'first' || arg.name === 'levels'
      ? fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 3 }) }, { weight: 1, arbitrary: valueFor(arg.type) })
      : valueFor(arg.type, 0, arg.name);
  return fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value });
}

/** `name(arg: $v ...)` with the arguments drawn for this case. */
function withArguments(field: GraphQLField<unknown, unknown>): fc.Arbitrary<Part> {
  if (field.args.length === 0) return fc.constant(() => field.name);
  return fc.tuple(...field.args.map(linkArgument)).map((values) => (declare) => {
    const given = field.args.flatMap((arg, i) =>
      values[i] === undefined ? [] : [`${arg.name}: ${declare(arg.type, values[i])}`],
    );
    return given.length > 0 ? `${field.name}(${given.join(', ')})` : field.name;
  });
}

const objectSelections = new Map<string, fc.Arbitrary<Part>>();

/**
 * Some fields of a resource's object type: some of its values (localized text and small objects
 * whole), up to two of its links with a selection of their own, and now and then a field that
 * leads elsewhere (its `history`).
 */
function objectSelection(type: GraphQLObjectType, depth: number): fc.Arbitrary<Part> {
  const key = `${type.name}:${depth}`;
  let made = objectSelections.get(key);
  if (made) return made;
  const values = fc.subarray(valueSelections(type), { minLength: 1 });
  const links = depth < LINK_DEPTH ? linksOf(type) : [];
  const linked =
    links.length > 0
      ? fc
          .subarray(links, { maxLength: 2 })
          .chain((chosen) => fc.tuple(...chosen.map((l) => linkSelection(l, depth + 1))))
      : fc.constant([] as Part[]);
  const others = Object.values(type.getFields()).filter(
    (f) => !linkOf(f) && !holdsValue(f) && f.args.every((a) => !(a.type instanceof GraphQLNonNull)),
  );
  const other =
    others.length > 0
      ? fc.oneof(
          { weight: 4, arbitrary: fc.constant([] as Part[]) },
          {
            weight: 1,
            arbitrary: fc
              .constantFrom(...others)
              .chain((f) => withArguments(f).map((name): Part[] => [(declare) => `${name(declare)} ${selection(f)}`])),
          },
        )
      : fc.constant([] as Part[]);
  made = fc.tuple(values, linked, other).map(
    ([chosen, parts, more]) =>
      (declare) =>
        `{ ${[...chosen, ...[...parts, ...more].map((p) => p(declare))].join(' ')} }`,
  );
  objectSelections.set(key, made);
  return made;
}

/** The selection of a connection of resources: its nodes or edges, with some of its count, page and aggregates. */
function connectionSelection(
  connection: GraphQLObjectType,
  node: GraphQLObjectType,
  depth: number,
): fc.Arbitrary<Part> {
  const fields = connection.getFields();
  const extras = [
    ...(fields.totalCount ? ['totalCount'] : []),
    'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }',
    ...(fields.aggregate ? [aggregates(fields.aggregate)] : []),
  ];
  return fc
    .tuple(fc.subarray(extras), objectSelection(node, depth), fc.boolean())
    .map(([chosen, inner, edges]) => (declare) => {
      const rows = edges ? `edges { cursor node ${inner(declare)} }` : `nodes ${inner(declare)}`;
      return `{ ${[...chosen, rows].join(' ')} }`;
    });
}

/** A link with its arguments and a selection of what it reaches. */
function linkSelection(link: Link, depth: number): fc.Arbitrary<Part> {
  const inner: fc.Arbitrary<Part> =
    link.kind === 'connection'
      ? connectionSelection(link.connection, link.type, depth)
      : link.kind !== 'lines'
        ? objectSelection(link.type, depth)
        : linesSelection(link.lines, depth);
  return fc.tuple(withArguments(link.field), inner).map(
    ([name, sel]) =>
      (declare) =>
        `${name(declare)} ${sel(declare)}`,
  );
}

/** A bill of material's or where-used's lines: some of their values and of the resources they hold. */
function linesSelection(lines: GraphQLObjectType, depth: number): fc.Arbitrary<Part> {
  const fields = Object.values(lines.getFields());
  const values = fields.filter((f) => isLeafType(getNamedType(f.type))).map((f) => f.name);
  const held = fields.filter((f) => RESOURCE_TYPES.has(getNamedType(f.type).name));
  return fc
    .tuple(
      fc.subarray(values, { minLength: 1 }),
      fc.subarray(held, { maxLength: Math.min(2, held.length) }).chain((chosen) =>
        fc.tuple(
          ...chosen.map((f) =>
            objectSelection(getNamedType(f.type) as GraphQLObjectType, depth).map(
              (sel): Part =>
                (declare) =>
                  `${f.name} ${sel(declare)}`,
            ),
          ),
        ),
      ),
    )
    .map(
      ([chosen, parts]) =>
        (declare) =>
          `{ ${[...chosen, ...parts.map((p) => p(declare))].join(' ')} }`,
    );
}

/** What a root field's answer is asked for: a selection from its type and beyond where it holds resources. */
function rootSelection(field: GraphQLField<unknown, unknown>): fc.Arbitrary<Part> {
  const link = linkOf({ ...field, args: [] });
  if (!link) return fc.constant(() => selection(field));
  if (link.kind === 'connection') return connectionSelection(link.connection, link.type, 0);
  if (link.kind === 'lines') return linesSelection(link.lines, 0);
  return objectSelection(link.type, 0);
}

/** An operation's text, with the root field's arguments and the selection's own as variables. */
function operationText(
  kind: 'query' | 'mutation',
  field: GraphQLField<unknown, unknown>,
  part: Part,
): { query: string; nested: Record<string, unknown> } {
  const definitions = field.args.map((a) => `$${a.name}: ${String(a.type)}`);
  const nested: Record<string, unknown> = {};
  const declare = (type: GraphQLInputType, value: unknown) => {
    const name = `_v${Object.keys(nested).length}`;
    nested[name] = value;
    definitions.push(`$${name}: ${String(type)}`);
    return `$${name}`;
  };
  const args = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const selected = part(declare);
  const query = `${kind} Fuzz${definitions.length > 0 ? `(${definitions.join(', ')})` : ''} { ${field.name}${args ? `(${args})` : ''} ${selected} }`;
  return { query, nested };
}

/** Cases for one root field: its variables generated from its arguments, a few spoiled on purpose. */
function casesFor(kind: 'query' | 'mutation', field: GraphQLField<unknown, unknown>): fc.Arbitrary<GraphQLCase> {
  // Required arguments mostly given (leaving one out is a case too, but a dull one).
  const required = field.args.filter((a) => a.type instanceof GraphQLNonNull).map((a) => a.name);
  const record = (requiredKeys: string[]) =>
    fc.record(Object.fromEntries(field.args.map((a) => [a.name, valueFor(a.type, 0, a.name)])), { requiredKeys });
  // A read that finds rows, so that what is selected beyond them is loaded: an id that exists, a
  // short first page.
  const plain = fc.record(
    Object.fromEntries(
      field.args.flatMap((a) =>
        a.name === 'id'
          ? [[a.name, existingId]]
          : a.name === 'first'
            ? [[a.name, fc.integer({ min: 1, max: 3 })]]
            : required.includes(a.name)
              ? [[a.name, valueFor(a.type, 0, a.name)]]
              : [],
      ),
    ),
    { requiredKeys: required },
  );
  const variables = fc.oneof(
    { weight: 9, arbitrary: record(required) },
    { weight: 1, arbitrary: record([]) },
    ...(kind === 'query' ? [{ weight: 5, arbitrary: plain }] : []),
  );
  // A selection drawn anew makes a document of its own, prepared and compiled for that one case
  // (12 ms a case): one case in six; the others ask for the same few fields.
  const selected = fc.oneof(
    { weight: 5, arbitrary: fc.constant(operationText(kind, field, () => selection(field))) },
    { weight: 1, arbitrary: rootSelection(field).map((part) => operationText(kind, field, part)) },
  );
  const bodies = fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .tuple(selected, variables)
        .map(([o, v]) => rawJson({ query: o.query, variables: { ...v, ...o.nested } })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(selected, variables, oddString, fc.oneof(anyJson, deepNesting))
        .map(([o, v, key, value]) => rawJson({ query: o.query, variables: { ...v, ...o.nested, [key]: value } })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(selected, variables, anyJson)
        .map(([o, v, value]) =>
          withDuplicateKey(rawJson({ query: o.query, variables: { ...v, ...o.nested } }), 'variables', value),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(selected, deepNesting).map(([o, value]) => rawJson({ query: o.query, variables: value })),
    },
  );
  const spoiled: fc.Arbitrary<GraphQLCase>[] = [];
  // One scalar argument of the wrong type, the required others at their plainest: the error names it.
  const spoilable = field.args.filter((a) => wrongFor(a.type));
  if (spoilable.length > 0) {
    const plainest = Object.fromEntries(
      field.args.filter((a) => a.type instanceof GraphQLNonNull).map((a) => [a.name, plainValue(a.type)]),
    );
    // The selection's own variables left out: their values could be refused first.
    const { query } = operationText(kind, field, () => selection(field));
    spoiled.push(
      fc.constantFrom(...spoilable).chain((arg) =>
        wrongFor(arg.type)!.map((wrong) => ({
          operation: kind,
          field: field.name,
          body: rawJson({ query, variables: { ...plainest, [arg.name]: wrong } }),
          headers: {},
          names: `$${arg.name}`,
        })),
      ),
    );
  }
  const headers = fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: oddHeaders });
  const cases = fc
    .tuple(bodies, headers)
    .map(([body, headers]): GraphQLCase => ({ operation: kind, field: field.name, body, headers }));
  return spoiled.length > 0 ? fc.oneof({ weight: 4, arbitrary: cases }, { weight: 1, arbitrary: spoiled[0]! }) : cases;
}

const roots: [kind: 'query' | 'mutation', GraphQLField<unknown, unknown>][] = [
  ...Object.values(schema.getMutationType()!.getFields()).map(
    (f) => ['mutation', f] as ['mutation', GraphQLField<unknown, unknown>],
  ),
  ...Object.values(schema.getQueryType()!.getFields())
    .filter((f) => f.args.length > 0)
    .map((f) => ['query', f] as ['query', GraphQLField<unknown, unknown>]),
];

/**
 * Each root field's cases, built once: building them (arbitraries for every argument's input
 * type, `where` nested three deep) took longer than running the case.
 */
const rootCases = new Map(roots.map(([kind, field]) => [field, casesFor(kind, field)]));

const graphqlCase: fc.Arbitrary<GraphQLCase> = fc.constantFrom(...roots).chain(([, field]) => rootCases.get(field)!);

// Reads under random roles -------------------------------------------------------------------------

/** Values that mean something in the fuzz data: ids that exist, small numbers, words it holds (or holds only where hidden). */
function sensibleValue(type: GraphQLInputType, depth = 0): fc.Arbitrary<unknown> {
  if (type instanceof GraphQLNonNull) return sensibleValue(type.ofType, depth);
  if (type instanceof GraphQLList)
    return fc.array(sensibleValue(type.ofType, depth + 1), { minLength: 1, maxLength: 2 });
  if (type instanceof GraphQLEnumType) return fc.constantFrom(...type.getValues().map((v) => v.name));
  if (type instanceof GraphQLInputObjectType) {
    // One field at a time, a relationship's or a combinator's nested two deep at most.
    const nestsRows = (f: { type: GraphQLInputType }) =>
      RESOURCE_TYPES.has(getNamedType(f.type).name.replace(/(List)?Where$/, ''));
    const fields = Object.values(type.getFields()).filter((f) => depth < 2 || !nestsRows(f));
    if (fields.length === 0) return fc.constant({});
    // Links first: a condition on a to-one's id (`productGroupTypeId`) or through a relationship
    // is where a row the role cannot see could show through.
    const links = fields.filter((f) => nestsRows(f) || /Id$/.test(f.name));
    const field = fc.oneof(
      { weight: 1, arbitrary: fc.constantFrom(...fields) },
      ...(links.length > 0 ? [{ weight: 2, arbitrary: fc.constantFrom(...links) }] : []),
    );
    return field.chain((f) => sensibleValue(f.type, depth + 1).map((value) => ({ [f.name]: value })));
  }
  const scalars: Record<string, fc.Arbitrary<unknown>> = {
    // The ids of the fixture's rows and their copies (./roles.ts), and numbers around them.
    Int: fc.integer({ min: 0, max: 7 }),
    Float: fc.constantFrom(0, 1, 2.5),
    Decimal: fc.constantFrom(0, 1, 2.5, 100_000),
    String: fc.constantFrom('zebra', 'quartz', 'hidden', 'reference', '1', '-2', 'e', ''),
    Boolean: fc.boolean(),
    DateTime: fc.constantFrom('2000-01-01T00:00:00Z', '2030-01-01T00:00:00Z'),
    ID: fc.constantFrom('1', '2'),
  };
  return scalars[(type as GraphQLScalarType).name] ?? fc.constant(null);
}

/** A few of a type's values (`id` always), and at most one link with a few of its own. */
function roleSelection(type: GraphQLObjectType, depth: number): fc.Arbitrary<Part> {
  const others = valueSelections(type).filter((v) => v !== 'id');
  const values = fc.subarray(others, { maxLength: Math.min(4, others.length) });
  const links = depth < 1 ? linksOf(type).flatMap((l) => (l.kind === 'lines' ? [] : [l])) : [];
  const link: fc.Arbitrary<Part | undefined> =
    links.length === 0
      ? fc.constant(undefined)
      : fc.option(
          fc.constantFrom(...links).chain((l) => {
            const inner = roleSelection(l.type, depth + 1);
            const args = l.field.args.filter((a) => a.name === 'where' || a.name === 'first');
            return fc
              .tuple(inner, fc.tuple(...args.map((a) => fc.option(sensibleValue(a.type), { nil: undefined }))))
              .map(
                ([sel, given]): Part =>
                  (declare) => {
                    const named = args.flatMap((a, i) =>
                      given[i] === undefined ? [] : [`${a.name}: ${declare(a.type, given[i])}`],
                    );
                    const call = named.length > 0 ? `${l.field.name}(${named.join(', ')})` : l.field.name;
                    return l.kind === 'connection'
                      ? `${call} { totalCount nodes ${sel(declare)} }`
                      : `${call} ${sel(declare)}`;
                  },
              );
          }),
          { nil: undefined },
        );
  return fc.tuple(values, link).map(
    ([chosen, part]) =>
      (declare) =>
        `{ id ${chosen.join(' ')} ${part?.(declare) ?? ''} }`,
  );
}

/**
 * A read of a role's schema: a list with its filter, where, orderBy and search drawn from the
 * role's own input types (every spelling it offers: a field, its column's name, `<link>Id`),
 * a count and aggregates, some fields and a link; or a lookup by id.
 */
function roleRead(roleSchema: GraphQLSchema): fc.Arbitrary<{ query: string; variables: Record<string, unknown> }> {
  const roots = Object.values(roleSchema.getQueryType()!.getFields()).flatMap((field) => {
    const link = linkOf({ ...field, args: [] });
    return link && link.kind !== 'lines' ? [{ field, link }] : [];
  });
  const lists = roots.filter((r) => r.link.kind === 'connection');
  const root = fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(...roots) },
    ...(lists.length > 0 ? [{ weight: 3, arbitrary: fc.constantFrom(...lists) }] : []),
  );
  return root.chain(({ field, link }) => {
    const args = field.args.filter((a) => a.name !== 'after' && a.name !== 'before' && a.name !== 'last');
    const given = fc.tuple(
      ...args.map((a) =>
        a.type instanceof GraphQLNonNull
          ? sensibleValue(a.type)
          : fc.option(a.name === 'first' ? fc.integer({ min: 1, max: 5 }) : sensibleValue(a.type), {
              nil: undefined,
              freq: 2,
            }),
      ),
    );
    const extras =
      link.kind === 'connection'
        ? fc.subarray([
            'totalCount',
            ...(link.connection.getFields().aggregate ? [aggregates(link.connection.getFields().aggregate)] : []),
          ])
        : fc.constant([] as string[]);
    return fc.tuple(given, roleSelection(link.type, 0), extras).map(([values, sel, more]) => {
      const variables: Record<string, unknown> = {};
      const definitions: string[] = [];
      const declare = (type: GraphQLInputType, value: unknown) => {
        const name = `v${definitions.length}`;
        definitions.push(`$${name}: ${String(type)}`);
        variables[name] = value;
        return `$${name}`;
      };
      const named = args.flatMap((a, i) =>
        values[i] === undefined ? [] : [`${a.name}: ${declare(a.type, values[i])}`],
      );
      const call = named.length > 0 ? `${field.name}(${named.join(', ')})` : field.name;
      const body = link.kind === 'connection' ? `{ ${more.join(' ')} nodes ${sel(declare)} }` : sel(declare);
      const query = `query Role${definitions.length > 0 ? `(${definitions.join(', ')})` : ''} { ${call} ${body} }`;
      return { query, variables };
    });
  });
}

/** By GraphQL type and field of its filter or where: the foreign key column a link condition compares. */
function linkColumns(type: string): Map<string, string> {
  const resource = resourceByType(RESOURCE_TYPES.get(type)!)!;
  const columns = new Map<string, string>();
  for (const [name, rel] of Object.entries(resource.relationships))
    if (rel.storage.kind === 'foreignKey') {
      columns.set(`${camel(name)}Id`, rel.storage.column);
      columns.set(camel(name), rel.storage.column);
    }
  for (const [name, filter] of Object.entries(resource.filters))
    if ('column' in filter && /_id$/.test(filter.column)) columns.set(camel(name), filter.column);
  return columns;
}

/**
 * Every list of a role's schema once per link condition it offers: its filter's foreign keys
 * (`productGroupTypeId`) and its where's to-one relationships, each on an id its rows link to,
 * a row the role cannot see where there is one (what such a condition must find nothing through).
 */
function linkReads(
  roleSchema: GraphQLSchema,
  role: RandomRole,
  rows: Rows,
  seed: number,
): { query: string; variables: Record<string, unknown> }[] {
  const reads: { query: string; variables: Record<string, unknown> }[] = [];
  for (const field of Object.values(roleSchema.getQueryType()!.getFields())) {
    const link = linkOf({ ...field, args: [] });
    if (link?.kind !== 'connection') continue;
    const resource = resourceByType(RESOURCE_TYPES.get(link.type.name)!)!;
    const columns = linkColumns(link.type.name);
    for (const arg of field.args.filter((a) => a.name === 'filter' || a.name === 'where')) {
      const input = getNamedType(arg.type) as GraphQLInputObjectType;
      for (const f of Object.values(input.getFields())) {
        const column = columns.get(f.name);
        const isId = arg.name === 'filter' ? /Id$/.test(f.name) : !/Id$/.test(f.name);
        if (!column || !isId) continue;
        const rel = Object.values(resource.relationships).find(
          (r) => r.storage.kind === 'foreignKey' && r.storage.column === column,
        )!;
        const linked = [...new Set([...rows.get(resource.type)!.values()].map((r) => r[column] as number | null))];
        const ids = linked.filter((id): id is number => id !== null);
        const hidden = ids.filter((id) => !rowVisible(role, rel.target, rows.get(rel.target)!.get(id)));
        const pool = hidden.length > 0 ? hidden : ids.length > 0 ? ids : [1];
        const id = pool[Math.abs(seed + reads.length) % pool.length]!;
        reads.push({
          query: `query Link($v: ${input.name}) { ${field.name}(${arg.name}: $v) { totalCount nodes { id } } }`,
          variables: { v: { [f.name]: arg.name === 'filter' ? id : { id: { equals: id } } } },
        });
      }
    }
  }
  return reads;
}

/** Reads per role, each sent before and after its hidden values change. */
const READS_PER_ROLE = 15;
/** Reads per role of a where on one link alone (linkReads), of the 50 or so a role offers. */
const LINK_READS_PER_ROLE = 6;

// Properties -------------------------------------------------------------------------------------

describe.each(providers)('GraphQL fuzzing on %s', (provider) => {
  let env: FuzzEnv;
  let dump: string;
  beforeAll(async () => {
    env = await fuzzEnv(provider);
    dump = await dataDump(env);
  }, 120_000);
  afterAll(async () => env?.database.cleanup());

  it(`${RUNS} cases (seed ${SEED}): never a 5xx or an internal error; errors with a message and a code; refused mutations change nothing`, {
    timeout: 60_000 + RUNS * 100,
  }, async () => {
    let cases = 0;
    const outcomes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(graphqlCase, async (c) => {
        cases += 1;
        const res = await env.t.request('/graphql', {
          method: 'POST',
          headers: {
            Accept: 'application/graphql-response+json',
            ...c.headers,
            Authorization: `Bearer ${env.token}`,
            'Content-Type': 'application/json',
          },
          body: c.body,
        });
        const text = await res.text();
        const what = `${c.field}: ${JSON.stringify(c.headers)} ${c.body.slice(0, 400)} -> ${res.status} ${text.slice(0, 400)}`;
        expect(res.status, what).toBeLessThan(500);
        // Every answer, a refusal of the request too, is GraphQL's: errors with a code.
        if (res.status !== 200) expect(text, what).toMatch(/^\{"errors":\[/);
        const answer = JSON.parse(text) as {
          data?: Record<string, unknown> | null;
          errors?: { message?: unknown; path?: unknown[]; extensions?: { code?: unknown } }[];
        };
        const errors = answer.errors ?? [];
        for (const error of errors) {
          expect(typeof error.message === 'string' && error.message.length > 0, what).toBe(true);
          expect(CODES, what).toContain(error.extensions?.code);
        }
        if (c.names) {
          expect(errors.length, what).toBeGreaterThan(0);
          expect(errors.map((e) => e.message).join(' '), what).toContain(c.names);
        }
        // An error under the root field (a page of its history, a bad cursor of a link) comes
        // after the mutation ran: only the root field's own errors, or none and no answer, refuse it.
        const own = errors.filter((e) => (e.path?.length ?? 0) <= 1);
        const refused = own.length > 0 || (errors.length === 0 && !answer.data?.[c.field]);
        const outcome = refused ? (own[0]?.extensions?.code ?? 'null') : errors.length > 0 ? 'ok, errors below' : 'ok';
        const key = `${c.operation} ${res.status} ${outcome}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        if (c.operation !== 'mutation') return;
        if (refused) expect(await dataDump(env), `a refused mutation changed the database: ${what}`).toBe(dump);
        else dump = await dataDump(env);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    expect(cases).toBeGreaterThanOrEqual(RUNS);
    console.log(
      `[fuzz] GraphQL on ${provider}: ${cases} cases, seed ${SEED}: ${[...outcomes]
        .sort()
        .map(([k, n]) => `${k} x${n}`)
        .join(', ')}`,
    );
  });

  it(`${ROLES} random roles x ${READS_PER_ROLE} reads (seed ${SEED}): no answer depends on a value the role cannot see`, {
    timeout: 60_000 + ROLES * 20_000,
  }, async () => {
    const world = new HiddenValues(env.database, () => testApp(env.database));
    try {
      await world.spread(SEED);
      const outcomes = new Map<string, number>();
      await fc.assert(
        fc.asyncProperty(randomRole, fc.integer(), fc.gen(), async (role, seed, g) => {
          let reads: { query: string; variables: Record<string, unknown> }[] | undefined;
          const ask = async (t: TestApp, token: string): Promise<Asked[]> => {
            const send = (body: unknown) =>
              t.request('/graphql', {
                method: 'POST',
                headers: {
                  Authorization: `Bearer ${token}`,
                  'Content-Type': 'application/json',
                  Accept: 'application/graphql-response+json',
                },
                body: JSON.stringify(body),
              });
            if (!reads) {
              // The role's own schema: what it may name, under every spelling it offers. A read
              // in eight is drawn from the full schema: names the role may not use, refused alike.
              const sdl = await (
                await t.request('/graphql/schema.graphql', { headers: { Authorization: `Bearer ${token}` } })
              ).text();
              const own = buildSchema(sdl);
              const links = linkReads(own, role, await readRows(env.database.db), seed);
              reads = [
                ...g(() =>
                  fc.array(
                    fc.oneof({ weight: 7, arbitrary: roleRead(own) }, { weight: 1, arbitrary: roleRead(schema) }),
                    { minLength: READS_PER_ROLE, maxLength: READS_PER_ROLE },
                  ),
                ),
                // Every foreign key's filter (`productGroupTypeId`), some of the where's links.
                ...links.filter((r) => r.query.includes('(filter:')),
                ...g(() => {
                  const wheres = links.filter((r) => r.query.includes('(where:'));
                  const n = Math.min(LINK_READS_PER_ROLE, wheres.length);
                  return fc.shuffledSubarray(wheres, { minLength: n, maxLength: n });
                }),
              ];
            }
            const asked: Asked[] = [];
            for (const read of reads) {
              const res = await send(read);
              asked.push({ request: JSON.stringify(read), answer: `${res.status} ${await res.text()}` });
            }
            return asked;
          };
          const { before, after, role: file, changed } = await world.compare(role, seed, ask);
          for (const [i, { request, answer }] of before.entries()) {
            const key = answer.startsWith('200 {"data"')
              ? 'ok'
              : (/"code":"(\w+)"/.exec(answer)?.[1] ?? answer.slice(0, 3));
            outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
            expect(answer, `role ${file}\n${request}`).not.toMatch(/^5|INTERNAL_SERVER_ERROR/);
            expect(
              after[i]!.answer,
              `role ${file}\n(seed ${seed}, ${changed} rows changed where the role cannot see)\n${request}\nbefore: ${answer.slice(0, 1500)}\nafter: ${after[i]!.answer.slice(0, 1500)}`,
            ).toBe(answer);
          }
        }),
        { numRuns: ROLES, seed: SEED, endOnFailure: true },
      );
      console.log(
        `[fuzz] GraphQL roles on ${provider}: ${world.roles} roles, ${world.requests} reads sent twice, ${world.rowsChanged} rows changed, seed ${SEED}: ${[
          ...outcomes,
        ]
          .sort()
          .map(([k, n]) => `${k} x${n}`)
          .join(', ')}`,
      );
    } finally {
      await world.close();
    }
  });
});
