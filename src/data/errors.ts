import { uniqueViolationFields } from '../db/errors.ts';
/**
 * What can go wrong with a request to the data layer, independent of the surface that asked.
 * Each surface maps these to its own shape in one place: GraphQL to `extensions.code`
 * (src/graphql/errors.ts), REST to its status codes and error bodies.
 */
export type DomainErrorKind =
  /** A resource named by id (the primary one, or a relationship target) does not exist. */
  | 'not_found'
  /** An operation the API always refuses; the message says what to use instead. */
  | 'forbidden'
  /** A uniqueness rule (reference, gtin, username, language and currency codes, one structure per product). */
  | 'conflict'
  /** A structure item would make a product part of itself. */
  | 'bom_cycle'
  /** A value of the wrong type or out of range, an unknown or missing field. */
  | 'bad_input'
  /** The resource is no longer at the version the client read (If-Match, expectedVersion): nothing was written. */
  | 'precondition_failed'
  /** A change-log cursor that can no longer be followed (purged, replaced, or not of this log): read afresh. */
  | 'cursor_expired';

/** What is wrong with bad input, for surfaces that say it in a code (REST's error codes). */
export type BadInputReason =
  | 'missing_field'
  | 'unknown_field'
  | 'invalid_attribute'
  | 'invalid_relationship'
  | 'invalid_parameter';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    /** The field at fault, by its registry name (`reference`, `items[2].product`). */
    readonly field?: string,
    /** For not_found: the resource type and id. */
    readonly resource?: { type: string; id: number },
    /** For bad_input: what is wrong. */
    readonly reason?: BadInputReason,
    /** For precondition_failed: the version the resource is at now. */
    readonly currentVersion?: number,
  ) {
    super(message);
  }
}

export function notFound(type: string, id: number, field?: string): DomainError {
  return new DomainError('not_found', `${type} ${id} not found`, field, { type, id });
}

/** A write refused because the resource has moved on from the version(s) the client expected. */
export function staleVersion(
  type: string,
  id: number,
  currentVersion: number,
  expected: readonly number[],
): DomainError {
  const wanted =
    expected.length === 0
      ? 'a version the client holds'
      : expected.length === 1
        ? `version ${expected[0]}`
        : `one of versions ${expected.join(', ')}`;
  return new DomainError(
    'precondition_failed',
    `${type} ${id} is at version ${currentVersion}, not ${wanted}: it changed since it was read; read it again and reapply the change`,
    undefined,
    { type, id },
    undefined,
    currentVersion,
  );
}

/** A field the type does not have (400 `unknown_field` in REST). */
export function unknownField(field: string, kind: 'an attribute' | 'a relationship', type: string): DomainError {
  return new DomainError('bad_input', `${field} is not ${kind} of ${type}`, field, undefined, 'unknown_field');
}

/** A field required on create that was not given (400 `missing_field` in REST). */
export function missingField(field: string): DomainError {
  return new DomainError('bad_input', `${field} is required`, field, undefined, 'missing_field');
}

/** A unique constraint violated by a write, as a conflict naming the field. */
export function uniqueViolation(error: unknown, type: string): DomainError | undefined {
  const fields = uniqueViolationFields(error);
  if (!fields) return undefined;
  const field = fields.join(', ') || 'a unique field';
  return new DomainError(
    'conflict',
    `${field} must be unique among ${type}: another one already has this value`,
    field,
  );
}
