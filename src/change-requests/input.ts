/**
 * What a change request is made with, read and checked (./requests.ts): its operations' types and
 * the resources they name, its comment, its effective date.
 */
import { idFromText, isId } from '../db/integers.ts';
import { DomainError } from '../data/errors.ts';
import { resourceByType } from '../resources/registry.ts';
import { quoted } from '../words.ts';

/** The longest comment kept, of a request or a decision. */
export const MAX_COMMENT_LENGTH = 2000;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function invalid(message: string, at?: string): DomainError {
  return new DomainError('bad_input', message, at, undefined, 'invalid_attribute');
}

export function notFound(id: number | string): DomainError {
  return new DomainError('not_found', `change_requests ${id} not found`);
}

/** The types an operations document writes: each operation's `ref` or `data` type, in order, once. */
export function typesOf(operations: readonly unknown[]): string[] {
  const types = new Set<string>();
  for (const operation of operations) {
    if (!isObject(operation)) continue;
    const named = isObject(operation.ref)
      ? operation.ref.type
      : isObject(operation.data)
        ? operation.data.type
        : undefined;
    if (typeof named === 'string' && resourceByType(named)) types.add(named);
  }
  return [...types];
}

/** The resources the operations name by id (not by lid): those that exist before the request is applied. */
export function namedResources(operations: readonly unknown[]): { type: string; id: number }[] {
  const named: { type: string; id: number }[] = [];
  for (const operation of operations) {
    if (!isObject(operation)) continue;
    const ref = isObject(operation.ref) ? operation.ref : operation.op === 'update' ? operation.data : undefined;
    if (!isObject(ref) || typeof ref.type !== 'string' || !resourceByType(ref.type)) continue;
    const id = typeof ref.id === 'string' ? idFromText(ref.id) : ref.id;
    if (isId(id)) named.push({ type: ref.type, id });
  }
  return named;
}

export function comment(value: unknown, at: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > MAX_COMMENT_LENGTH)
    throw invalid(`${at} must be text of at most ${MAX_COMMENT_LENGTH} characters`, at);
  return value;
}

export function effectiveDate(value: unknown, now: Date): Date | null {
  if (value === undefined || value === null) return null;
  const date =
    typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,3})?)?(Z|[+-]\d\d:\d\d)$/.test(value)
      ? new Date(value)
      : undefined;
  if (!date || Number.isNaN(date.getTime()))
    throw invalid(
      `effective_date must be an instant with its offset, e.g. "2027-01-01T00:00:00Z" (got ${quoted(value)})`,
      'effective_date',
    );
  if (date.getTime() <= now.getTime())
    throw invalid(
      `effective_date must be in the future (got ${value}); leave it out for a request applied once approved`,
      'effective_date',
    );
  return date;
}
