/**
 * Where an operation is prepared, once: per schema (the full one for admin, a role's from
 * ./role-schema.ts) and parsed document, everything that does not depend on the variables of a
 * request. A request that sends a text again under the same role only looks it up; under another
 * role the same document is prepared again, against that role's schema, so that nothing worked
 * out for one role (what validation let through, a compiled query, a plan) serves another.
 *
 * - the query text's parsed document (`PreparedOperations.documentOf`), for texts that passed
 *   validation under some schema: parsing is skipped;
 * - validation's verdict (`PreparedOperation.errors`);
 * - the read plan (./plan.ts), the compiled query (graphql-jit);
 * - per operation of the document, its sized arguments and cost estimates (./limits.ts).
 *
 * Per pipeline (./operation.ts), as validation depends on its options (introspection), and weakly
 * held: a document the caches forget, or a role read anew, takes what was prepared with it.
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
import { takesRecursiveInput } from './recursive-inputs.ts';

/**
 * How many query texts are remembered with their parsed documents, and how much text in all
 * (UTF-16 code units): a document, its compiled query and its plan weigh more than its text, and
 * a text may be padded up to the body limit.
 */
const KNOWN_QUERIES = 1000;
const KNOWN_QUERY_CHARS = 4 * 1024 * 1024;

/** One document prepared against one schema. */
export class PreparedOperation {
  /** Validation's errors (with codes), once validated against the schema: empty when it passed. */
  errors: readonly GraphQLError[] | undefined;
  private columnPlan: ColumnPlan | undefined;
  /** Its one operation compiled by graphql-jit; null where graphql-js runs it; undefined: not yet asked. */
  private compiledQuery: CompiledQuery | null | undefined;
  private readonly limits = new Map<OperationDefinitionNode, OperationLimits>();

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

  /**
   * What refuses `operation` of the document with these variables (coerced): sized arguments,
   * list lengths, the estimated cost (./limits.ts); undefined when all hold.
   */
  limitsError(operation: OperationDefinitionNode, variables: Record<string, unknown>): GraphQLError | undefined {
    let limits = this.limits.get(operation);
    if (!limits) this.limits.set(operation, (limits = new OperationLimits(this.schema, this.document, operation)));
    return limits.error(variables);
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
      const result = takesRecursiveInput(this.schema, only)
        ? undefined
        : compileQuery(this.schema, this.document, undefined);
      this.compiledQuery = result && isCompiledQuery(result) ? result : null;
    }
    return this.compiledQuery ?? undefined;
  }
}

/** The operations one pipeline prepared, by schema and document, and the query texts it knows. */
export class PreparedOperations {
  private readonly bySchema = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, PreparedOperation>>();
  /**
   * Query texts whose documents passed validation (under some schema): a request that sends one
   * again skips parsing. Clients send a few texts over and over, with other variables. Bounded
   * by number and length; once full, the oldest texts make room.
   */
  private readonly documents = new BoundedCache<string, DocumentNode>(
    (query) => query.length,
    KNOWN_QUERY_CHARS,
    KNOWN_QUERIES,
  );

  /** The parsed document of a text known valid, if it is. */
  documentOf(query: string): DocumentNode | undefined {
    return this.documents.get(query);
  }

  /** Remembers the document of a text that passed validation. */
  know(query: string, document: DocumentNode): void {
    this.documents.set(query, document);
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

/** Per parsed document (the parser cache hands back the same object): what is wrong with its string literals. */
const literalProblems = new WeakMap<DocumentNode, string | null>();

/** Text the database cannot store (NUL, lone surrogates) in a document's string literals: why, or null. */
export function literalProblem(document: DocumentNode): string | null {
  let problem = literalProblems.get(document);
  if (problem !== undefined) return problem;
  problem = null;
  visit(document, {
    [Kind.STRING]: (node) => {
      const why = unstorableText(node.value);
      if (why && problem === null) problem = `a string in the query ${why}`;
    },
  });
  literalProblems.set(document, problem);
  return problem;
}
