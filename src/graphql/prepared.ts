/**
 * Where an operation is prepared, once: per query text, its parsed document; per schema (the
 * full one for admin, a role's from ./role-schema.ts) and document, everything that does not
 * depend on the variables of a request. A request that sends a text again under the same role
 * only looks it up; under another role the same document is prepared again, against that role's
 * schema, so that nothing worked out for one role (what validation let through, a compiled query,
 * a plan) serves another. This is the only cache keyed by a document in the GraphQL layer:
 *
 * - per text (`KnownDocument`): the parsed document, and what is wrong with its string literals;
 * - per schema and document (`PreparedOperation`): validation's verdict; the read plan
 *   (./plan.ts); the compiled query (graphql-jit); per operation, its sized arguments and cost
 *   estimates (./limits.ts), its variables of recursive input types (./recursive-inputs.ts), the
 *   variables its selection uses, and the events of change subscriptions shared between
 *   subscribers (./change-events.ts).
 *
 * Per pipeline (./pipeline.ts), as validation depends on its options (introspection), and weakly
 * held: a document the texts forget, or a role read anew, takes what was prepared with it.
 */
import {
  type DocumentNode,
  type GraphQLError,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  visit,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { BoundedCache } from '../bounded-cache.ts';
import type { RowsOf } from '../data/columns.ts';
import { unstorableText } from '../db/text.ts';
import { OperationLimits } from './limits.ts';
import { type ColumnPlan, planFor } from './plan.ts';
import { type RecursiveVariable, recursiveVariables } from './recursive-inputs.ts';

/**
 * How many query texts are remembered with their parsed documents, and how much text in all
 * (UTF-16 code units): a document, its compiled query and its plan weigh more than its text, and
 * a text may be padded up to the body limit.
 */
const KNOWN_QUERIES = 1000;
const KNOWN_QUERY_CHARS = 4 * 1024 * 1024;

/** A query text, parsed. */
export interface KnownDocument {
  document: DocumentNode;
  /** Text the database cannot store (NUL, lone surrogates) in its string literals: why, or null. */
  literalProblem: string | null;
}

/** A parsed document with what is wrong with its literals. */
export function knownDocument(document: DocumentNode): KnownDocument {
  let problem: string | null = null;
  visit(document, {
    [Kind.STRING]: (node) => {
      const why = unstorableText(node.value);
      if (why && problem === null) problem = `a string in the query ${why}`;
    },
  });
  return { document, literalProblem: problem };
}

/** What one operation of a document needs, worked out once. */
interface OperationParts {
  limits: OperationLimits;
  /** Its variables of recursive input types. */
  recursive: readonly RecursiveVariable[];
  /** The variables its selection uses (not those only the root field's arguments take). */
  selectionVariables: readonly string[];
}

/** One document prepared against one schema. */
export class PreparedOperation {
  /** Validation's errors (with codes), once validated against the schema: empty when it passed. */
  errors: readonly GraphQLError[] | undefined;
  private columnPlan: ColumnPlan | undefined;
  /** Its one operation compiled by graphql-jit; null where graphql-js runs it; undefined: not yet asked. */
  private compiledQuery: CompiledQuery | null | undefined;
  private readonly parts = new Map<OperationDefinitionNode, OperationParts>();
  /** What transports keep per operation of this document (./change-events.ts), by their key. */
  private readonly kept = new Map<string, unknown>();

  constructor(
    readonly schema: GraphQLSchema,
    readonly document: DocumentNode,
    /** The role's rows of each type, for a restricted role's schema (its plan reads only those). */
    private readonly rowsOf?: RowsOf,
  ) {}

  /** The columns each resource type needs (./plan.ts). */
  get plan(): ColumnPlan {
    this.columnPlan ??= planFor(this.schema, this.document, this.rowsOf);
    return this.columnPlan;
  }

  private partsOf(operation: OperationDefinitionNode): OperationParts {
    let parts = this.parts.get(operation);
    if (!parts) {
      parts = {
        limits: new OperationLimits(this.schema, this.document, operation),
        recursive: recursiveVariables(this.schema, operation),
        selectionVariables: variablesOfSelection(operation),
      };
      this.parts.set(operation, parts);
    }
    return parts;
  }

  /**
   * What refuses `operation` of the document with these variables (coerced): sized arguments,
   * list lengths, the estimated cost (./limits.ts); undefined when all hold.
   */
  limitsError(operation: OperationDefinitionNode, variables: Record<string, unknown>): GraphQLError | undefined {
    return this.partsOf(operation).limits.error(variables);
  }

  /** The variables of `operation` of recursive input types (./recursive-inputs.ts). */
  recursiveVariables(operation: OperationDefinitionNode): readonly RecursiveVariable[] {
    return this.partsOf(operation).recursive;
  }

  /** The variables the selection of `operation` uses: what its events depend on (./change-events.ts). */
  selectionVariables(operation: OperationDefinitionNode): readonly string[] {
    return this.partsOf(operation).selectionVariables;
  }

  /** What a transport keeps for this document under `key`, made by `make` the first time (bounded by `most` keys). */
  keep<T>(key: string, make: () => T, most: number): T {
    let value = this.kept.get(key) as T | undefined;
    if (value === undefined) {
      if (this.kept.size >= most) this.kept.delete(this.kept.keys().next().value!);
      this.kept.set(key, (value = make()));
    }
    return value;
  }

  /**
   * The compiled query that runs the operation `operationName` names; undefined where graphql-js
   * runs it. Not for documents of several operations: a compiled query runs the operation it was
   * compiled for, whatever a later request names (a read-only token ran a mutation that way
   * through the envelop plugin that kept one per document: test/graphql/http.test.ts). Not for
   * subscriptions: graphql-jit 0.8 hands a subscription field the operation's variables as its
   * arguments, and coerces them again for every event (found by the subscription tests). Not for
   * variables of recursive input types (./recursive-inputs.ts).
   */
  compiled(operationName: string | null | undefined): CompiledQuery | undefined {
    const operations = this.document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    const only = operations.length === 1 ? operations[0]! : undefined;
    if (!only || only.operation === 'subscription') return undefined;
    if (operationName && operationName !== only.name?.value) return undefined;
    if (this.compiledQuery === undefined) {
      const result =
        this.recursiveVariables(only).length > 0 ? undefined : compileQuery(this.schema, this.document, undefined);
      this.compiledQuery = result && isCompiledQuery(result) ? result : null;
    }
    return this.compiledQuery ?? undefined;
  }
}

/** The variables a selection uses: those of the root fields' selections, not of their arguments. */
function variablesOfSelection(operation: OperationDefinitionNode): string[] {
  const used = new Set<string>();
  for (const root of operation.selectionSet.selections)
    if (root.kind === Kind.FIELD && root.selectionSet)
      visit(root.selectionSet, { Variable: (node) => void used.add(node.name.value) });
  return [...used].sort();
}

/** The operations one pipeline prepared, by schema and document, and the query texts it knows. */
export class PreparedOperations {
  private readonly bySchema = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, PreparedOperation>>();
  /**
   * Query texts whose documents passed validation (under some schema): a request that sends one
   * again skips parsing. Clients send a few texts over and over, with other variables. Bounded
   * by number and length; once full, the oldest texts make room.
   */
  private readonly texts = new BoundedCache<string, KnownDocument>(
    (query) => query.length,
    KNOWN_QUERY_CHARS,
    KNOWN_QUERIES,
  );

  /** The parsed document of a text known valid, if it is. */
  known(query: string): KnownDocument | undefined {
    return this.texts.get(query);
  }

  /** Remembers the document of a text that passed validation. */
  know(query: string, document: KnownDocument): void {
    this.texts.set(query, document);
  }

  /**
   * The document prepared against the schema: made on first use. `rowsOf`: the rows of a
   * restricted role, whose schema it is (a role's schema stands for its rules: ./role-schema.ts).
   */
  of(schema: GraphQLSchema, document: DocumentNode, rowsOf?: RowsOf): PreparedOperation {
    let byDocument = this.bySchema.get(schema);
    if (!byDocument) this.bySchema.set(schema, (byDocument = new WeakMap()));
    let prepared = byDocument.get(document);
    if (!prepared) byDocument.set(document, (prepared = new PreparedOperation(schema, document, rowsOf)));
    return prepared;
  }
}
