/**
 * Limits on every GraphQL operation, checked before anything is executed; each breach is a
 * GraphQL error that says which limit and by how much. Sized so that the heaviest legitimate
 * reads (100 products with their bill of material and each item's product and unit) pass.
 *
 * Every kind of field is counted alike: root fields, relationships, reverse links, `history`,
 * `bom`, subscription fields, and introspection (`__schema`, `__type`), through named and inline
 * fragments (counted where they are spread). Arguments that size a result (`first`, `last`,
 * `levels`) are declared with their bounds on their fields (`boundedArguments`) and checked here
 * for literals and variables alike, before anything runs; the resolvers check them again.
 */
import { getArgumentValues } from 'graphql/execution/values.js';
import {
  GraphQLError,
  getNamedType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  SchemaMetaFieldDef,
  TypeInfo,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  valueFromAST,
  visit,
  visitWithTypeInfo,
  type ASTVisitor,
  type ASTNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValueNode,
} from 'graphql';
import { badInput } from './errors.ts';
import { type ListRows, longLiteral, longVariable } from './list-limits.ts';

export const GRAPHQL_LIMITS = {
  /** Lexical tokens in the document (the introspection query GraphiQL sends has about 350). */
  tokens: 5000,
  /** Nesting of selections, fragments counted where they are spread. */
  depth: 12,
  /**
   * Nesting under `__schema` and `__type`: the standard introspection query (graphql-js's, which
   * GraphiQL sends) goes 15 deep, its type references nine `ofType` levels down.
   */
  introspectionDepth: 15,
  /** Aliased fields per operation. */
  aliases: 30,
  /** Directives per operation. */
  directives: 50,
  /**
   * Estimated cost: 1 per field, nested selections multiplied by the page size of a connection
   * (`first`, 20 by default) or by 10 for a list. 100 products with every attribute, their
   * structure, items and the items' products cost about 56,000; a third level of pages of 100
   * (100 x 100 x 100 rows) is far beyond the limit.
   */
  complexity: 200_000,
  /** Selected fields per operation, in all. */
  breadth: 1000,
  /**
   * Items of one list given in an argument, literally or by a variable (ids in a filter, links,
   * structure items); the rows of a bulk mutation, up to 1,000, are the exception (ListRows).
   */
  listItems: 100,
} as const;

/** The range of an integer argument that sizes a result (a page size, a number of levels). */
export interface Bounds {
  min: number;
  max: number;
}

/** A field's sized arguments, as its `extensions` (read by `boundsError`). */
export function boundedArguments(bounds: Record<string, Bounds>): { argumentBounds: Record<string, Bounds> } {
  return { argumentBounds: bounds };
}

/** The message of a sized argument out of its bounds (the resolvers' own checks say it alike). */
export function outOfBounds(argument: string, bounds: Bounds, value: number): string {
  return `${argument} must be between ${bounds.min} and ${bounds.max} (got ${value})`;
}

// Depth ------------------------------------------------------------------------------------------

/** The deepest selection below a selection set: of the schema's own fields, and under introspection. */
interface Depths {
  fields: number;
  introspection: number;
}

const INTROSPECTION_ROOTS = new Set(['__schema', '__type']);

function depthsOf(
  set: SelectionSetNode,
  introspecting: boolean,
  context: ValidationContext,
  fragments: Map<string, Depths>,
): Depths {
  const depths: Depths = { fields: 0, introspection: 0 };
  for (const selection of set.selections) {
    let inner: Depths;
    if (selection.kind === Kind.FIELD) {
      const entering = introspecting || INTROSPECTION_ROOTS.has(selection.name.value);
      const below = selection.selectionSet
        ? depthsOf(selection.selectionSet, entering, context, fragments)
        : { fields: 0, introspection: 0 };
      inner = entering
        ? { fields: 0, introspection: 1 + Math.max(below.fields, below.introspection) }
        : { fields: 1 + below.fields, introspection: below.introspection && 1 + below.introspection };
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      inner = depthsOf(selection.selectionSet, introspecting, context, fragments);
    } else {
      const key = `${selection.name.value}:${introspecting}`;
      let known = fragments.get(key);
      if (!known) {
        // Marked first: a cycle (refused by validation anyway) ends here.
        fragments.set(key, { fields: 0, introspection: 0 });
        const fragment = context.getFragment(selection.name.value);
        known = fragment ? depthsOf(fragment.selectionSet, introspecting, context, fragments) : depths;
        fragments.set(key, known);
      }
      inner = known;
    }
    depths.fields = Math.max(depths.fields, inner.fields);
    depths.introspection = Math.max(depths.introspection, inner.introspection);
  }
  return depths;
}

/**
 * The depth limit, fragments (named and inline) counted where they are spread and introspection
 * counted too, under its own ceiling. (graphql-armor's rule leaves `__schema` out altogether.)
 */
export function depthRule(context: ValidationContext): ASTVisitor {
  const fragments = new Map<string, Depths>();
  return {
    OperationDefinition(operation) {
      const { fields, introspection } = depthsOf(operation.selectionSet, false, context, fragments);
      if (fields > GRAPHQL_LIMITS.depth)
        context.reportError(
          new GraphQLError(`Query depth limit of ${GRAPHQL_LIMITS.depth} exceeded, found ${fields}.`, {
            nodes: operation,
          }),
        );
      if (introspection > GRAPHQL_LIMITS.introspectionDepth)
        context.reportError(
          new GraphQLError(
            `Introspection depth limit of ${GRAPHQL_LIMITS.introspectionDepth} exceeded, found ${introspection}.`,
            { nodes: operation },
          ),
        );
    },
  };
}

// Directives -------------------------------------------------------------------------------------

/** Directives in a selection set, a fragment's once per spread (a spread's own included). */
function directivesIn(set: SelectionSetNode, context: ValidationContext, fragments: Map<string, number>): number {
  let count = 0;
  for (const selection of set.selections) {
    count += selection.directives?.length ?? 0;
    if (selection.kind !== Kind.FRAGMENT_SPREAD) {
      if (selection.selectionSet) count += directivesIn(selection.selectionSet, context, fragments);
      continue;
    }
    const name = selection.name.value;
    let known = fragments.get(name);
    if (known === undefined) {
      // Marked first: a cycle (refused by validation anyway) ends here.
      fragments.set(name, 0);
      const fragment = context.getFragment(name);
      known = fragment
        ? (fragment.directives?.length ?? 0) + directivesIn(fragment.selectionSet, context, fragments)
        : 0;
      fragments.set(name, known);
    }
    count += known;
  }
  return count;
}

/**
 * The directive limit. Ours, not graphql-armor's: that one counts the directives of a fragment
 * spread only the first time the fragment is spread.
 */
export function directivesRule(context: ValidationContext): ASTVisitor {
  const fragments = new Map<string, number>();
  return {
    OperationDefinition(operation) {
      const count = (operation.directives?.length ?? 0) + directivesIn(operation.selectionSet, context, fragments);
      if (count > GRAPHQL_LIMITS.directives)
        context.reportError(
          new GraphQLError(`Directives limit of ${GRAPHQL_LIMITS.directives} exceeded, found ${count}.`, {
            nodes: operation,
          }),
        );
    },
  };
}

// Cost and breadth -------------------------------------------------------------------------------

/** A list's multiplier where its field says nothing else (Pothos's default, ./builder.ts). */
export const LIST_MULTIPLIER = 10;

type Complexity = number | { field?: number; multiplier?: number };
type ComplexityOption = Complexity | ((args: Record<string, unknown>, context: unknown, field: unknown) => Complexity);

/** What a selection costs, and how many fields it selects. */
interface Estimate {
  cost: number;
  breadth: number;
}

interface Estimating {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  /** Per selection set and type: a fragment spread many times is estimated once. */
  known: Map<SelectionSetNode, Map<GraphQLNamedType, Estimate>>;
}

/** The field a selection names, the introspection fields included (graphql-js keeps those apart). */
function fieldDefOf(
  schema: GraphQLSchema,
  parent: GraphQLNamedType,
  name: string,
): GraphQLField<unknown, unknown> | undefined {
  if (name === '__typename') return TypeNameMetaFieldDef;
  if (parent === schema.getQueryType()) {
    if (name === '__schema') return SchemaMetaFieldDef;
    if (name === '__type') return TypeMetaFieldDef;
  }
  return isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
}

function isList(type: GraphQLType): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type);
}

function fieldEstimate(node: FieldNode, parent: GraphQLNamedType, ctx: Estimating): Estimate {
  const field = fieldDefOf(ctx.schema, parent, node.name.value);
  if (!field) return { cost: 1, breadth: 1 };
  let option = field.extensions?.complexity as ComplexityOption | undefined;
  if (typeof option === 'function') option = option(getArgumentValues(field, node, ctx.variables), undefined, field);
  const own = typeof option === 'number' ? option : (option?.field ?? 1);
  const multiplier =
    typeof option === 'object' && option.multiplier !== undefined
      ? option.multiplier
      : isList(field.type)
        ? LIST_MULTIPLIER
        : 1;
  if (!node.selectionSet) return { cost: own, breadth: 1 };
  const below = setEstimate(node.selectionSet, getNamedType(field.type), ctx);
  // A negative page size (refused anyway) must not take cost off its siblings.
  return { cost: own + below.cost * Math.max(multiplier, 0), breadth: 1 + below.breadth };
}

function setEstimate(set: SelectionSetNode, type: GraphQLNamedType, ctx: Estimating): Estimate {
  const known = ctx.known.get(set)?.get(type);
  if (known) return known;
  const estimate: Estimate = { cost: 0, breadth: 0 };
  for (const selection of set.selections) {
    let part: Estimate;
    if (selection.kind === Kind.FIELD) part = fieldEstimate(selection, type, ctx);
    else {
      const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? ctx.fragments.get(selection.name.value) : selection;
      if (!fragment) continue;
      const condition = fragment.typeCondition && ctx.schema.getType(fragment.typeCondition.name.value);
      part = setEstimate(fragment.selectionSet, condition ?? type, ctx);
    }
    estimate.cost += part.cost;
    estimate.breadth += part.breadth;
  }
  if (!ctx.known.has(set)) ctx.known.set(set, new Map());
  ctx.known.get(set)!.set(type, estimate);
  return estimate;
}

/**
 * The estimated cost and breadth of an operation, every field counted (introspection's lists too,
 * by 10), with the values of its variables (defaults applied).
 */
export function estimate(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): Estimate {
  const fragments = new Map(
    document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const root = schema.getRootType(operation.operation);
  if (!root) return { cost: 0, breadth: 0 };
  return setEstimate(operation.selectionSet, root, { schema, fragments, variables, known: new Map() });
}

/** A limit an operation's estimated cost goes over. */
interface CostBreach {
  name: string;
  actual: number;
  max: number;
  code: string;
}

function costBreach(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): CostBreach | undefined {
  const { cost, breadth } = estimate(schema, document, operation, variables);
  return [
    { name: 'complexity', actual: cost, max: GRAPHQL_LIMITS.complexity, code: 'QUERY_COMPLEXITY' },
    { name: 'breadth', actual: breadth, max: GRAPHQL_LIMITS.breadth, code: 'QUERY_BREADTH' },
  ].find((limit) => limit.actual > limit.max);
}

/** Estimates kept per operation (a client sending ever new page sizes starts it again)... */
const COST_ESTIMATES_KEPT = 64;
/** ...for values this long at most (JSON): longer ones are estimated on every request. */
const COST_KEY_CHARS = 256;

// Sized arguments and list lengths ---------------------------------------------------------------

/** A sized argument of a field selected in an operation. */
interface SizedArgument {
  field: string;
  argument: string;
  bounds: Bounds;
  type: GraphQLInputType;
  value: ValueNode;
}

/**
 * What an operation's arguments hold: its sized arguments, its literal lists too long, and the
 * variables its estimated cost can change with: those in the arguments of a field whose cost is
 * computed from them (page sizes, BOM levels; the estimate reads nothing else, not even @skip and
 * @include).
 */
interface OperationArguments {
  sized: SizedArgument[];
  tooLong: GraphQLError | undefined;
  costVariables: Set<string>;
  /** Variables given whole as a bulk mutation's rows, with the rows that argument takes. */
  rowVariables: Map<string, number>;
}

/**
 * The fragments an operation spreads, at any depth: only they are part of it (a fragment of
 * another operation in the same document must not lend its arguments' limits to this one).
 */
function fragmentsOf(document: DocumentNode, operation: OperationDefinitionNode): FragmentDefinitionNode[] {
  const byName = new Map(
    document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d] as const),
  );
  const found = new Map<string, FragmentDefinitionNode>();
  const pending: ASTNode[] = [operation];
  for (let node = pending.pop(); node; node = pending.pop()) {
    visit(node, {
      FragmentSpread: (spread) => {
        const fragment = byName.get(spread.name.value);
        if (fragment && !found.has(fragment.name.value)) {
          found.set(fragment.name.value, fragment);
          pending.push(fragment);
        }
      },
    });
  }
  return [...found.values()];
}

function argumentsOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): OperationArguments {
  const found: OperationArguments = {
    sized: [],
    tooLong: undefined,
    costVariables: new Set(),
    rowVariables: new Map(),
  };
  const typeInfo = new TypeInfo(schema);
  for (const definition of [operation, ...fragmentsOf(document, operation)]) {
    visit(
      definition,
      visitWithTypeInfo(typeInfo, {
        Argument: (node) => {
          const argument = typeInfo.getArgument();
          const field = typeInfo.getFieldDef();
          const parent = typeInfo.getParentType();
          if (typeof field?.extensions?.complexity === 'function')
            visit(node, { Variable: (v) => void found.costVariables.add(v.name.value) });
          if (!argument) return;
          const rows = (field?.extensions?.listRows as ListRows | undefined)?.[node.name.value];
          if (rows && node.value.kind === Kind.VARIABLE) found.rowVariables.set(node.value.name.value, rows);
          found.tooLong ??= longLiteral(
            node.value,
            node.name.value,
            rows ?? GRAPHQL_LIMITS.listItems,
            GRAPHQL_LIMITS.listItems,
          );
          const bounds = (field?.extensions?.argumentBounds as Record<string, Bounds> | undefined)?.[node.name.value];
          if (bounds && field)
            found.sized.push({
              field: `${parent?.name}.${field.name}`,
              argument: node.name.value,
              bounds,
              type: argument.type,
              value: node.value,
            });
        },
      }),
    );
  }
  return found;
}

/**
 * The limits that depend on an operation's variables, worked out once per operation and schema
 * (./prepared.ts keeps it): its sized arguments and literal lists, and which variables its cost
 * can change with, with the estimates made so far by their values. Clients send the same page
 * sizes over and over (W3's operation estimated on every request was 1% of its CPU).
 */
export class OperationLimits {
  private readonly arguments: OperationArguments;
  private readonly costVariables: string[];
  /** The estimated cost's breach (null: within the limits), by the values of costVariables. */
  private readonly breaches = new Map<string, CostBreach | null>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly document: DocumentNode,
    private readonly operation: OperationDefinitionNode,
  ) {
    this.arguments = argumentsOf(schema, document, operation);
    this.costVariables = [...this.arguments.costVariables];
  }

  /**
   * What refuses the operation with these variables (coerced: defaults applied), as a request
   * error: sized arguments out of their bounds and lists longer than the limit, literally or by
   * variables, naming the argument; then the estimated cost. Undefined when all hold.
   */
  error(variables: Record<string, unknown>): GraphQLError | undefined {
    return this.argumentsError(variables) ?? this.costError(variables);
  }

  private argumentsError(variables: Record<string, unknown>): GraphQLError | undefined {
    const { sized, tooLong } = this.arguments;
    if (tooLong) return tooLong;
    for (const { field, argument, bounds, type, value } of sized) {
      const given = valueFromAST(value, type, variables);
      if (typeof given === 'number' && (given < bounds.min || given > bounds.max))
        return badInput(`${outOfBounds(argument, bounds, given)}, in ${field}`, argument, [value]);
    }
    return longVariable(this.document, variables, this.arguments.rowVariables, GRAPHQL_LIMITS.listItems);
  }

  private costError(variables: Record<string, unknown>): GraphQLError | undefined {
    // Coerced variables (defaults applied) give the same estimate for the same values.
    const key = this.costVariables.map((name) => (name in variables ? JSON.stringify(variables[name]) : '')).join('\n');
    let breach = this.breaches.get(key);
    if (breach === undefined) {
      breach = costBreach(this.schema, this.document, this.operation, variables) ?? null;
      if (key.length <= COST_KEY_CHARS) {
        if (this.breaches.size >= COST_ESTIMATES_KEPT) this.breaches.clear();
        this.breaches.set(key, breach);
      }
    }
    if (!breach) return undefined;
    return new GraphQLError(`Query ${breach.name} of ${breach.actual} exceeds max ${breach.name} of ${breach.max}`, {
      extensions: { code: breach.code },
    });
  }
}
