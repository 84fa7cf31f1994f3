/**
 * Which writes wait for approval (src/change-requests/requests.ts): what the REST layer and
 * `POST /operations` ask before writing, kept apart from the requests themselves, which run
 * operations through the atomic endpoint's runner.
 */
import type { Access } from '../permissions/access.ts';
import type { RoleOperation } from '../permissions/roles.ts';
import { resourceByType } from '../resources/registry.ts';
import { rowsFor } from '../data/authorize.ts';
import type { WriteTx } from '../db/transactions.ts';
import { DomainError } from '../data/errors.ts';
import { OperationFailure } from '../rest/atomic-errors.ts';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A request's operations that cannot be applied: the refusal of the first operation refused (src/rest/atomic-errors.ts). */
export class ProposalRefused extends Error {
  constructor(
    readonly failure: OperationFailure,
    readonly operations: readonly unknown[],
  ) {
    super(failure.message);
  }
}

/**
 * The role rules an operation uses, by type and operation: an add creates its type; an update,
 * or a change of a relationship, updates the resource; a structure's items are created and
 * deleted by the changes of its `items`.
 */
function rulesUsedBy(operation: unknown): [string, RoleOperation][] {
  if (!isObject(operation)) return [];
  const ref = isObject(operation.ref) ? operation.ref : undefined;
  const data = isObject(operation.data) ? operation.data : undefined;
  const type = ref?.type ?? data?.type;
  if (typeof type !== 'string' || !resourceByType(type)) return [];
  if (!ref || typeof ref.relationship !== 'string') return [[type, operation.op === 'add' ? 'create' : 'update']];
  const rel = resourceByType(type)!.relationships[ref.relationship];
  if (rel?.storage.kind !== 'children') return [[type, 'update']];
  if (operation.op === 'add') return [[rel.target, 'create']];
  if (operation.op === 'remove') return [[rel.target, 'delete']];
  return [
    [rel.target, 'create'],
    [rel.target, 'delete'],
  ];
}

/** Whether any of the operations is one that `access` makes only with another client's approval. */
export function needsApproval(access: Access | undefined, operations: readonly unknown[]): boolean {
  return !!access && operations.some((o) => rulesUsedBy(o).some(([type, op]) => access.needsApproval(type, op)));
}

export function approverRefused(access: Access, error: Error): DomainError {
  return new DomainError(
    'forbidden',
    `the role ${access.name} could not make this change itself, so it cannot approve it: ${failureText(error)}`,
  );
}

export function failureText(error: Error): string {
  return error instanceof OperationFailure ? `/atomic:operations/${error.index}: ${error.message}` : error.message;
}

/** 403 unless `access` may approve (read, and meet its `approve` rule's where) every resource named. */
export async function requireApprovable(
  tx: WriteTx,
  access: Access,
  resources: readonly { type: string; id: number }[],
): Promise<void> {
  const byType = new Map<string, number[]>();
  for (const { type, id } of resources) byType.set(type, [...(byType.get(type) ?? []), id]);
  for (const [type, ids] of byType) {
    const allowed = new Set(await rowsFor(tx, access, type, ids, 'approve'));
    const outside = ids.find((id) => !allowed.has(id));
    if (outside !== undefined)
      throw new DomainError('forbidden', `${type} ${outside} is outside what the role ${access.name} may approve`);
  }
}
