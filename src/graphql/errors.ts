/**
 * The one mapping from errors to GraphQL errors: domain errors to their `extensions.code`, a
 * database outage to SERVICE_UNAVAILABLE (the HTTP layer then answers 503), anything else to a
 * masked INTERNAL_SERVER_ERROR whose details go to the log only. Bad input that GraphQL coercion
 * refuses is said in ./input-problems.ts.
 */
import { GraphQLError } from 'graphql';
import { DomainError, type DomainErrorKind } from '../data/errors.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import type { Logger } from '../observability/logger.ts';

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

/** Bad input from the client, naming the argument or input field at fault where there is one. */
export function badInput(message: string, field?: string, nodes?: GraphQLError['nodes']): GraphQLError {
  return new GraphQLError(message, { nodes, extensions: { code: CODES.bad_input, ...(field ? { field } : {}) } });
}

export function maskError(logger: Logger) {
  return (error: unknown): Error => {
    const graphQLError = error instanceof GraphQLError ? error : undefined;
    const original = graphQLError?.originalError ?? error;
    const at = { path: graphQLError?.path, nodes: graphQLError?.nodes };
    if (original instanceof DomainError) {
      const extensions: Record<string, unknown> = { code: CODES[original.kind] };
      if (original.field) extensions.field = original.field;
      if (original.currentVersion !== undefined) extensions.currentVersion = original.currentVersion;
      return new GraphQLError(original.message, { ...at, extensions });
    }
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
