/**
 * What a client's role (src/permissions) lets a write do, checked by the writes of both APIs
 * (./writes.ts, ./bom-writes.ts) inside their transaction:
 *
 * - the operation on the type, and every field the input sets: 403 naming the type or the first
 *   field the role may not set; nothing is written (a field is never silently dropped);
 * - the row written: one outside the operation's `where` (or the rows the role may read) is 404,
 *   as if it did not exist;
 * - the row as written: one that fails the operation's `check`, or that the role could no longer
 *   read, is 403, and the transaction rolls back.
 *
 * A caller without an Access (admin, the CLI) is not checked and pays nothing.
 */
import type { Access } from '../permissions/access.ts';
import type { RoleOperation } from '../permissions/roles.ts';
import type { WhereNode } from '../query/where.ts';
import type { DataSource } from '../db/reads.ts';
import { DomainError, notFound } from './errors.ts';
import { rowsByIds } from './load.ts';
import { readingAs } from './visible.ts';
import type { Column } from './columns.ts';

const ID_ONLY: Column[] = [{ name: 'id', type: 'integer' }];

/** The fields a write sets: attributes with a value, relationships given. */
export interface WrittenFields {
  attributes?: Record<string, unknown>;
  relationships?: Record<string, unknown>;
}

function forbidden(message: string, field?: string): DomainError {
  return new DomainError('forbidden', message, field);
}

/** 403 unless the role may `operation` on `type` and set every field `input` sets (named with `fieldPrefix`). */
export function authorizeWrite(
  access: Access | undefined,
  type: string,
  operation: RoleOperation,
  input: WrittenFields = {},
  fieldPrefix = '',
): void {
  if (!access) return;
  const rule = access.rule(type, operation);
  if (!rule) throw forbidden(`the role ${access.name} may not ${operation} ${type}`);
  if (rule.approval === 'required' && !access.proposing)
    throw forbidden(
      `the role ${access.name} may ${operation} ${type} only with another client's approval: propose it as a change request (POST /change_requests, or GraphQL createChangeRequest)`,
    );
  if (!rule.fields) return;
  const given = [
    ...Object.entries(input.attributes ?? {}).filter(([, v]) => v !== undefined),
    ...Object.entries(input.relationships ?? {}).filter(([, v]) => v !== undefined),
  ].map(([name]) => name);
  const refused = given.find((name) => !rule.fields!.has(name));
  if (refused !== undefined)
    throw forbidden(
      `${fieldPrefix}${refused}: the role ${access.name} may not ${operation === 'create' ? 'set' : operation} this field of ${type}`,
      fieldPrefix + refused,
    );
}

/** The ids among `ids` that the role may read and that meet `where`: one statement, none when there is nothing to ask. */
async function meeting(
  tx: DataSource,
  access: Access,
  type: string,
  ids: readonly number[],
  where: WhereNode | undefined,
): Promise<Set<number>> {
  if (ids.length === 0 || (!where && !access.rowFilter(type))) return new Set(ids);
  const rows = await rowsByIds(readingAs(tx, access), type, ids, ID_ONLY, where);
  return new Set(rows.flatMap((row) => (row ? [row.id] : [])));
}

/** 404 unless the row `id` of `type` is one the role may `operation` (and read). */
export async function requireRowFor(
  tx: DataSource,
  access: Access | undefined,
  type: string,
  id: number,
  operation: RoleOperation,
): Promise<void> {
  if (!access) return;
  const where = operation === 'read' ? undefined : access.rule(type, operation)?.where;
  if (!(await meeting(tx, access, type, [id], where)).has(id)) throw notFound(type, id);
}

/** The ids among `ids` the role may `operation` (and read); all of them for admin. */
export async function rowsFor(
  tx: DataSource,
  access: Access | undefined,
  type: string,
  ids: readonly number[],
  operation: RoleOperation,
): Promise<number[]> {
  if (!access) return [...ids];
  const found = await meeting(tx, access, type, ids, access.rule(type, operation)?.where);
  return ids.filter((id) => found.has(id));
}

/** 403 unless the rows written meet the operation's `check` and stay rows the role may read. */
export async function requireCheck(
  tx: DataSource,
  access: Access | undefined,
  type: string,
  ids: readonly number[],
  operation: 'create' | 'update',
  field?: (index: number) => string,
): Promise<void> {
  if (!access) return;
  const check = access.rule(type, operation)?.check;
  const found = await meeting(tx, access, type, ids, check);
  const failed = ids.findIndex((id) => !found.has(id));
  if (failed >= 0)
    throw forbidden(
      `${field ? `${field(failed)}: ` : ''}${type} ${ids[failed]} as written would be outside what the role ${access.name} may ${check ? `${operation} (its check)` : 'read'}: nothing was written`,
      field?.(failed),
    );
}

/** Of the linked `ids` of `target`, those the role may not see (none for admin): a write keeps them as they are. */
export async function hiddenAmong(
  tx: DataSource,
  access: Access | undefined,
  target: string,
  ids: readonly number[],
): Promise<Set<number>> {
  if (!access?.rowFilter(target) || ids.length === 0) return new Set();
  const visible = new Set(await rowsFor(tx, access, target, ids, 'read'));
  return new Set(ids.filter((id) => !visible.has(id)));
}
