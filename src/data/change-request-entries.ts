/**
 * Change requests in the change log (src/change-requests): entries of type `change_requests`,
 * `created` when one is proposed and `updated` on each change of its state, so that a follower of
 * the log that asks for them by type (a quality tool, over /changes, a subscription or a webhook)
 * learns of work waiting for it, and of what became of it.
 *
 * Who sees them is not a role's read rule, as for resources: a request shows to its author, to
 * the clients whose role may approve every type it writes, and to admin. The first depends on the
 * client, not its role: a role's view of such an entry (made once for all of the role's
 * followers) carries `onlyFor`, the author's id, when the role does not approve it, and each
 * reader keeps it only if it is that author (shownTo). Inside one, the operations show only the
 * fields the role sees.
 */
import type { DataSource } from '../db/reads.ts';
import { Sql, WRITE_INSTANT } from '../db/sql.ts';
import type { Access } from '../permissions/access.ts';
import { resourceByType, resources } from '../resources/registry.ts';
import type { ChangeEntry } from './changes.ts';

/** The type of the change log's entries about change requests. */
export const CHANGE_REQUESTS: string = 'change_requests';

/** Every resource type. */
const RESOURCE_TYPES: readonly string[] = resources.map((r) => r.type);

/** The types of the change log's entries: every resource type's, and change requests'. */
export const LOGGED_TYPES: readonly string[] = [...RESOURCE_TYPES, CHANGE_REQUESTS];

/**
 * The types a follower of the log gets (REST's /changes, GraphQL's `changes` and subscription, a
 * webhook endpoint): those it names, or, when it names none, every resource type. Change
 * requests' entries come only to a follower that names them: one that keeps a copy of the master
 * data (and reads each entry's resource) is not handed entries of another kind.
 */
export function followedTypes(types: readonly string[] | undefined): readonly string[] {
  return types && types.length > 0 ? types : RESOURCE_TYPES;
}

/** The fields of a change request that its entries carry, as REST's documents name them. */
export interface LoggedRequest {
  state: string;
  comment: string | null;
  effective_date: string | null;
  author: string;
  types: string[];
  operations: unknown[];
}

/**
 * A change request's entry as the change log stores it (./change-log.ts): `created` with every
 * field of `LoggedRequest`, `updated` with the fields that changed (its state, and its failure).
 */
export function requestEntry(
  id: number,
  op: 'created' | 'updated',
  version: number,
  actor: string,
  { changed, before, after }: { changed: string[]; before: object | null; after: object },
): Record<string, unknown> {
  return {
    resource_type: CHANGE_REQUESTS,
    resource_id: id,
    op,
    version,
    changed: JSON.stringify(changed),
    before: before && JSON.stringify(before),
    after: JSON.stringify(after),
    actor,
    at: WRITE_INSTANT,
  };
}

/** The `created` entry of a request just proposed. */
export function proposedEntry(id: number, request: LoggedRequest): Record<string, unknown> {
  return requestEntry(id, 'created', 1, request.author, {
    changed: Object.keys(request),
    before: null,
    after: request,
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * An operation as `access` may see it: the attributes and relationships of its resource object
 * that the role does not see left out, and the data of a relationship it does not see.
 */
export function visibleOperation(operation: unknown, access: Access | undefined): unknown {
  if (!access || !isObject(operation)) return operation;
  const ref = isObject(operation.ref) ? operation.ref : undefined;
  const data = operation.data;
  if (ref && typeof ref.relationship === 'string') {
    if (typeof ref.type === 'string' && access.sees(ref.type, ref.relationship)) return operation;
    const { data: _, ...rest } = operation;
    return rest;
  }
  if (!isObject(data) || typeof data.type !== 'string' || !resourceByType(data.type)) return operation;
  const type = data.type;
  const only = (members: unknown) =>
    isObject(members)
      ? Object.fromEntries(Object.entries(members).filter(([name]) => access.sees(type, name)))
      : members;
  return {
    ...operation,
    data: {
      ...data,
      ...(data.attributes !== undefined && { attributes: only(data.attributes) }),
      ...(data.relationships !== undefined && { relationships: only(data.relationships) }),
    },
  };
}

/** Whether a role may approve a request that writes these types: it then sees the request. */
export function approves(access: Access, types: readonly string[]): boolean {
  return types.every((type) => access.mayApprove(type));
}

/**
 * The role's views of change requests' entries (all of type CHANGE_REQUESTS), in the same
 * places; null where no client of the role sees it (its request no longer exists). One statement.
 */
export async function requestViews(
  source: DataSource,
  access: Access,
  entries: readonly ChangeEntry[],
): Promise<(ChangeEntry | null)[]> {
  if (entries.length === 0) return [];
  const ids = [...new Set(entries.map((entry) => entry.id))];
  const rows = await source.query<{ id: number; author_id: number; types: string }>(
    new Sql(source.provider).text('SELECT "id", "author_id", "types" FROM "change_requests" WHERE "id"').in(ids),
  );
  const requests = new Map(rows.map((row) => [Number(row.id), row]));
  return entries.map((entry) => {
    const request = requests.get(entry.id);
    if (!request) return null;
    const after = entry.after && {
      ...entry.after,
      ...(Array.isArray(entry.after.operations) && {
        operations: entry.after.operations.map((operation) => visibleOperation(operation, access)),
      }),
    };
    const view = { ...entry, after };
    return approves(access, JSON.parse(request.types) as string[])
      ? view
      : { ...view, onlyFor: Number(request.author_id) };
  });
}

/** The entries a client (its API client row id; undefined: none, admin's CLI) sees of its role's views. */
export function shownTo(entries: readonly ChangeEntry[], clientId: number | undefined): ChangeEntry[] {
  return entries.filter((entry) => entry.onlyFor === undefined || entry.onlyFor === clientId);
}
