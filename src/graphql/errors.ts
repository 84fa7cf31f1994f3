/**
 * The one mapping from errors to GraphQL errors: domain errors to their `extensions.code`, a
 * database outage to SERVICE_UNAVAILABLE (the HTTP layer then answers 503), anything else to a
 * masked INTERNAL_SERVER_ERROR whose details go to the log only. Bad input that GraphQL coercion
 * refuses is said in ./input-problems.ts.
 *
 * The bad rows of a bulk mutation (several domain errors, src/data/error-list.ts) are one error
 * each, at the mutation's path, `extensions.field` naming the row's field (`inputs[3].unitId`);
 * past the first MAX_LISTED_ERRORS, one more error says how many were left out
 * (`extensions.code` ERRORS_OMITTED, `extensions.omitted`).
 */
import { GraphQLError } from 'graphql';
import { DomainError, type DomainErrorKind } from '../data/errors.ts';
import { DomainErrors, MAX_LISTED_ERRORS } from '../data/error-list.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import type { Logger } from '../observability/logger.ts';
import { count } from '../words.ts';

const CODES: Record<DomainErrorKind, string> = {
  not_found: 'NOT_FOUND',
  forbidden: 'FORBIDDEN',
  conflict: 'CONFLICT',
  bom_cycle: 'BOM_CYCLE',
  bad_input: 'BAD_USER_INPUT',
  // The contract's code for a stale expectedVersion, with extensions.currentVersion.
  precondition_failed: 'CONFLICT',
  cursor_expired: 'CURSOR_EXPIRED',
};

export const SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE';

/** A masked error that stands for several: what listed() lists in the result. */
class ErrorList extends GraphQLError {
  constructor(readonly errors: readonly GraphQLError[]) {
    const [first] = errors;
    super(first!.message, { nodes: first!.nodes, path: first!.path, extensions: first!.extensions });
  }
}

/** The errors a masked error stands for in a result: the rows of a bulk write one by one, else itself. */
export function listed(error: Error): GraphQLError[] {
  return error instanceof ErrorList ? [...error.errors] : [error as GraphQLError];
}

type Location = Pick<GraphQLError, 'path' | 'nodes'>;

/** A domain error as GraphQL says it, at `at`: its code, the field at fault, the version the resource is at. */
function domainError(error: DomainError, at: Location): GraphQLError {
  const extensions: Record<string, unknown> = { code: CODES[error.kind] };
  if (error.field) extensions.field = error.field;
  if (error.currentVersion !== undefined) extensions.currentVersion = error.currentVersion;
  return new GraphQLError(error.message, { ...at, extensions });
}

/** Several domain errors (a bulk write's bad rows), each one error, with the count of those left out. */
function domainErrors(errors: DomainErrors, at: Location): ErrorList {
  const list = errors.errors.map((error) => domainError(error, at));
  if (errors.omitted > 0)
    list.push(
      new GraphQLError(
        `${count(errors.omitted, 'more error is', 'more errors are')} not listed: an answer lists at most ${MAX_LISTED_ERRORS}`,
        { ...at, extensions: { code: 'ERRORS_OMITTED', omitted: errors.omitted } },
      ),
    );
  return new ErrorList(list);
}

/** Bad input from the client, naming the argument or input field at fault where there is one. */
export function badInput(message: string, field?: string, nodes?: GraphQLError['nodes']): GraphQLError {
  return new GraphQLError(message, { nodes, extensions: { code: CODES.bad_input, ...(field ? { field } : {}) } });
}

export function maskError(logger: Logger) {
  return (error: unknown): Error => {
    const graphQLError = error instanceof GraphQLError ? error : undefined;
    const original = graphQLError?.originalError ?? error;
    const at = { path: graphQLError?.path, nodes: graphQLError?.nodes };
    if (original instanceof DomainErrors) return domainErrors(original, at);
    if (original instanceof DomainError) return domainError(original, at);
    if (isDatabaseUnavailable(original)) {
      return new GraphQLError('the database is unavailable; retry later', {
        ...at,
        extensions: { code: SERVICE_UNAVAILABLE },
      });
    }
    // A GraphQLError raised on purpose (bad arguments, limits) passes as it is.
    if (graphQLError && (!graphQLError.originalError || graphQLError.originalError instanceof GraphQLError))
      return graphQLError;
    logger.error({ err: original, path: graphQLError?.path }, 'unhandled error in a GraphQL operation');
    return new GraphQLError('the server could not complete this field', {
      ...at,
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
  };
}
