/**
 * The words of bad input that GraphQL coercion refuses (a literal or a variable of the wrong
 * type, out of range, an unknown or missing input field): graphql-js says "String cannot represent
 * a non string value: 5" without saying where; these say which field, by its path from the
 * argument (`input.shelfLife.value`, or through the variable that carried it), and what it must
 * be, as BAD_USER_INPUT errors (./errors.ts `badInput`). Found by walking the value against its
 * type, not by rewording graphql-js's messages.
 */
import {
  GraphQLError,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  print,
  TypeInfo,
  typeFromAST,
  visit,
  visitWithTypeInfo,
  type ASTNode,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValueNode,
} from 'graphql';
import { INT32_RANGE } from '../db/integers.ts';
import { badInput } from './errors.ts';

/**
 * `extensions.field` of a path: the path inside `input` (as the data layer names its fields:
 * `name.en`, `items[0].productId`), or from the argument for the other arguments (`first`).
 */
export function fieldOfPath(path: string): string {
  return path.replace(/^input\./, '');
}

/** A problem with an input value: where (a path from the argument or variable), what, and the node at fault. */
interface InputProblem {
  path: string;
  /** What is wrong, said after the path: `must be a string (got 5)`. */
  what: string;
  node?: ASTNode;
}

/** At most this much of a value is quoted back. */
const QUOTED_CHARS = 60;

function quote(text: string): string {
  return text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}…` : text;
}

const BUILT_IN_SCALARS: Record<string, string> = {
  Int: `must be ${INT32_RANGE}`,
  Float: 'must be a number',
  String: 'must be a string',
  Boolean: 'must be true or false',
  ID: 'must be a string or an integer',
};

/**
 * What is wrong with a value a scalar refused: for the built-in ones, what they take; for ours,
 * their own words (they start with the scalar's name: "Decimal must be a number (got ...)").
 */
function scalarProblem(name: string, got: string, error: unknown): string {
  const builtIn = BUILT_IN_SCALARS[name];
  if (builtIn) return `${builtIn} (got ${got})`;
  const original = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  const message = original instanceof Error ? original.message : '';
  if (message.startsWith(`${name} `)) return message.slice(name.length + 1);
  return `must be a ${name}${message ? `: ${message}` : ''} (got ${got})`;
}

/** The words for an enum value that is not one of its values (without them when the schema is hidden). */
function enumProblem(type: { name: string; getValues(): readonly { name: string }[] }, got: string, hide: boolean) {
  const names = type.getValues().map((v) => v.name);
  if (hide || names.length > 20) return `must be a value of the enum ${type.name} (got ${got})`;
  return `must be one of ${names.join(', ')} (got ${got})`;
}

/** Options of the two walks below. */
interface Walk {
  problems: InputProblem[];
  /** Introspection is off: no field or value lists that would hand the schema out. */
  hide: boolean;
}

/** The problems of an input object's fields: unknown ones, required ones left out. */
function objectFieldProblems(
  type: GraphQLInputType & { getFields(): Record<string, { type: GraphQLInputType; defaultValue?: unknown }> },
  given: readonly string[],
  path: string,
  walk: Walk,
  nodeOf: (name: string | undefined) => ASTNode | undefined,
): void {
  const fields = type.getFields();
  const name = (type as { name: string }).name;
  for (const key of given) {
    if (fields[key]) continue;
    const list = walk.hide ? '' : ` (its fields: ${Object.keys(fields).join(', ')})`;
    walk.problems.push({ path: `${path}.${key}`, what: `is not a field of ${name}${list}`, node: nodeOf(key) });
  }
  for (const [key, field] of Object.entries(fields)) {
    if (isNonNullType(field.type) && field.defaultValue === undefined && !given.includes(key))
      walk.problems.push({
        path: `${path}.${key}`,
        what: `is required (${String(field.type)}) and was not given`,
        node: nodeOf(undefined),
      });
  }
}

/**
 * A single value where a list is expected stands for a list of one (GraphQL's rule); when it
 * does not fit as an item either, the problem is said as the list's.
 */
function asListOf(item: GraphQLInputType, path: string, got: string, walk: Walk, check: () => void): void {
  const before = walk.problems.length;
  check();
  const problem = walk.problems[before];
  if (walk.problems.length === before + 1 && problem?.path === path)
    problem.what = `must be a list of ${String(item)} (got ${got})`;
}

/** The problems of a literal in the query against its type (variables in it are checked with their values). */
function literalProblems(type: GraphQLInputType, node: ValueNode, path: string, walk: Walk): void {
  if (node.kind === Kind.VARIABLE) return;
  if (isNonNullType(type)) {
    if (node.kind === Kind.NULL) walk.problems.push({ path, what: 'must not be null', node });
    else literalProblems(type.ofType, node, path, walk);
    return;
  }
  if (node.kind === Kind.NULL) return;
  if (isListType(type)) {
    if (node.kind === Kind.LIST)
      for (const [i, item] of node.values.entries()) literalProblems(type.ofType, item, `${path}[${i}]`, walk);
    else asListOf(type.ofType, path, quote(print(node)), walk, () => literalProblems(type.ofType, node, path, walk));
    return;
  }
  const got = quote(print(node));
  if (isInputObjectType(type)) {
    if (node.kind !== Kind.OBJECT) {
      walk.problems.push({ path, what: `must be an object of type ${type.name} (got ${got})`, node });
      return;
    }
    const given = node.fields.map((f) => f.name.value);
    objectFieldProblems(type, given, path, walk, (name) => node.fields.find((f) => f.name.value === name) ?? node);
    const fields = type.getFields();
    for (const field of node.fields) {
      const def = fields[field.name.value];
      if (def) literalProblems(def.type, field.value, `${path}.${field.name.value}`, walk);
    }
    return;
  }
  if (isEnumType(type)) {
    if (node.kind !== Kind.ENUM || !type.getValue(node.value))
      walk.problems.push({ path, what: enumProblem(type, got, walk.hide), node });
    return;
  }
  if (!isScalarType(type)) return;
  let refused: unknown;
  try {
    if (type.parseLiteral(node, undefined) === undefined) refused = new Error('');
  } catch (error) {
    refused = error;
  }
  if (refused !== undefined) walk.problems.push({ path, what: scalarProblem(type.name, got, refused), node });
}

/** The problems of a variable's value (JSON) against its type. */
function valueProblems(type: GraphQLInputType, value: unknown, path: string, walk: Walk): void {
  if (isNonNullType(type)) {
    if (value === undefined) walk.problems.push({ path, what: `is required (${String(type)}) and was not given` });
    else if (value === null) walk.problems.push({ path, what: 'must not be null' });
    else valueProblems(type.ofType, value, path, walk);
    return;
  }
  if (value === null || value === undefined) return;
  if (isListType(type)) {
    if (Array.isArray(value))
      for (const [i, item] of value.entries()) valueProblems(type.ofType, item, `${path}[${i}]`, walk);
    else
      asListOf(type.ofType, path, quote(JSON.stringify(value)), walk, () =>
        valueProblems(type.ofType, value, path, walk),
      );
    return;
  }
  const got = quote(JSON.stringify(value) ?? String(value));
  if (isInputObjectType(type)) {
    if (typeof value !== 'object' || Array.isArray(value)) {
      walk.problems.push({ path, what: `must be an object of type ${type.name} (got ${got})` });
      return;
    }
    const record = value as Record<string, unknown>;
    objectFieldProblems(type, Object.keys(record), path, walk, () => undefined);
    for (const [key, field] of Object.entries(type.getFields()))
      if (key in record) valueProblems(field.type, record[key], `${path}.${key}`, walk);
    return;
  }
  if (isEnumType(type)) {
    if (typeof value !== 'string' || !type.getValue(value))
      walk.problems.push({ path, what: enumProblem(type, got, walk.hide) });
    return;
  }
  if (!isScalarType(type)) return;
  let refused: unknown;
  try {
    if (type.parseValue(value) === undefined) refused = new Error('');
  } catch (error) {
    refused = error;
  }
  if (refused !== undefined) walk.problems.push({ path, what: scalarProblem(type.name, got, refused) });
}

/**
 * The literals of a document that do not fit their types, by the node graphql-js reports them
 * at (its validation says that something is wrong; these say where and what).
 */
function literalProblemsOf(schema: GraphQLSchema, document: DocumentNode, hide: boolean): Map<ASTNode, InputProblem> {
  const walk: Walk = { problems: [], hide };
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Argument(node) {
        const type = typeInfo.getArgument()?.type;
        if (type) literalProblems(type, node.value, node.name.value, walk);
      },
    }),
  );
  const byNode = new Map<ASTNode, InputProblem>();
  for (const problem of walk.problems) if (problem.node && !byNode.has(problem.node)) byNode.set(problem.node, problem);
  return byNode;
}

/**
 * Validation errors about values written in the query, as BAD_USER_INPUT naming the field and
 * what it must be; the other validation errors as they are.
 */
export function withInputProblems(
  schema: GraphQLSchema,
  document: DocumentNode,
  errors: readonly GraphQLError[],
  hide: boolean,
): (GraphQLError | undefined)[] {
  let problems: Map<ASTNode, InputProblem> | undefined;
  return errors.map((error) => {
    const node = error.nodes?.[0];
    if (!node) return undefined;
    problems ??= literalProblemsOf(schema, document, hide);
    const problem = problems.get(node);
    return problem && badInput(`${problem.path} ${problem.what}`, fieldOfPath(problem.path), error.nodes);
  });
}

/** Where each variable is used: the path from the argument to its first use (`input`, `input.nlc`, `items[0]`). */
export function variableUses(document: DocumentNode): Map<string, string> {
  const uses = new Map<string, string>();
  const walkValue = (node: ValueNode, path: string) => {
    if (node.kind === Kind.VARIABLE) {
      if (!uses.has(node.name.value)) uses.set(node.name.value, path);
    } else if (node.kind === Kind.LIST) for (const [i, v] of node.values.entries()) walkValue(v, `${path}[${i}]`);
    else if (node.kind === Kind.OBJECT) for (const f of node.fields) walkValue(f.value, `${path}.${f.name.value}`);
  };
  visit(document, { Argument: (node) => void walkValue(node.value, node.name.value) });
  return uses;
}

/**
 * A path inside a variable (`$i.shelfLife.value`) said where it lands: `input.shelfLife.value
 * (variable $i)`, or as it is when the variable's use is not found.
 */
export function variablePath(path: string, uses: Map<string, string>): { said: string; field?: string } {
  const [, name, rest] = /^\$([_A-Za-z]\w*)(.*)$/.exec(path) ?? [];
  const use = name === undefined ? undefined : uses.get(name);
  if (use === undefined) return { said: path };
  return { said: `${use}${rest} (variable $${name})`, field: fieldOfPath(`${use}${rest}`) };
}

/**
 * Variables whose values do not fit their types, as BAD_USER_INPUT errors that name the field
 * (through the variable's use) and what it must be; empty when none is found (graphql-js's
 * words stand then).
 */
export function variableProblems(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  hide: boolean,
): GraphQLError[] {
  const walk: Walk = { problems: [], hide };
  for (const definition of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    const name = definition.variable.name.value;
    const value = variables[name];
    if (!type || (value === undefined && definition.defaultValue)) continue;
    const before = walk.problems.length;
    valueProblems(type, value, `$${name}`, walk);
    for (const problem of walk.problems.slice(before)) problem.node = definition;
  }
  const uses = variableUses(document);
  return walk.problems.map((problem) => {
    const { said, field } = variablePath(problem.path, uses);
    return badInput(`${said} ${problem.what}`, field, problem.node && [problem.node]);
  });
}
