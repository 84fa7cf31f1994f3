/**
 * The preconditions a client may put on a write (RFC 9110 §13; GraphQL's expectedVersion),
 * checked against the resource as it is under the write's lock, so that nothing is written when
 * one fails (`precondition_failed`). Surfaces turn their headers or arguments into WriteOptions.
 */
import type { ResourceDefinition } from '../resources/types.ts';
import { DomainError, staleVersion } from './errors.ts';
import { atom } from './forms.ts';
import type { Row } from './load.ts';

/**
 * What a client may ask of a write besides its content: the preconditions of RFC 9110 §13 on the
 * resource written, checked under its lock (nothing is written when one fails:
 * `precondition_failed`).
 */
export interface WriteOptions {
  /**
   * The version the client last read, or several of which any will do (REST's If-Match,
   * GraphQL's expectedVersion): when the resource is at another, nothing is written.
   */
  expectedVersion?: number | readonly number[];
  /**
   * If-None-Match: the write goes ahead only while the resource is at none of these versions;
   * `any` (`*`): only while it does not exist, so never on one that does.
   */
  unlessVersion?: readonly number[] | 'any';
  /**
   * If-Unmodified-Since (when no version is expected): the write goes ahead only if the
   * resource's `modified_date` is not after this instant, in whole seconds as HTTP dates are.
   * Ignored for types without one.
   */
  unmodifiedSince?: Date;
}

/**
 * precondition_failed when the resource is not as the client's preconditions say (WriteOptions),
 * evaluated in RFC 9110 §13.2.2's order.
 */
export function checkPreconditions(resource: ResourceDefinition, row: Row, options: WriteOptions): void {
  const { expectedVersion: expected, unlessVersion, unmodifiedSince } = options;
  const version = row.version as number;
  if (expected !== undefined) {
    const versions = typeof expected === 'number' ? [expected] : expected;
    if (!versions.includes(version)) throw staleVersion(resource.type, row.id, version, versions);
  } else if (unmodifiedSince && 'modified_date' in resource.attributes && row.modified_date != null) {
    // As documents show it (whole seconds, UTC), whatever form the provider reads it in.
    const modified = new Date(atom(row.modified_date)!);
    if (modified.getTime() > Math.floor(unmodifiedSince.getTime() / 1000) * 1000)
      throw preconditionFailed(
        resource.type,
        row,
        `was modified at ${modified.toISOString()}, after ${unmodifiedSince.toISOString()} (If-Unmodified-Since)`,
      );
  }
  if (unlessVersion === 'any') throw preconditionFailed(resource.type, row, 'exists (If-None-Match: *)');
  if (unlessVersion?.includes(version))
    throw preconditionFailed(resource.type, row, `is at version ${version}, which If-None-Match names`);
}

function preconditionFailed(type: string, row: Row, why: string): DomainError {
  return new DomainError(
    'precondition_failed',
    `${type} ${row.id} ${why}: nothing was written`,
    undefined,
    { type, id: row.id },
    undefined,
    row.version as number,
  );
}
