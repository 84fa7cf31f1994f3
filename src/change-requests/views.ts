/**
 * What a client sees of a change request (./requests.ts), on both APIs: its operations limited to
 * the fields the client's role sees, and its preview, the REST documents of what it writes as
 * they are now and as applying it would leave them. REST documents on both APIs: the operations
 * themselves are in REST's names.
 */
import { RequestLoaders } from '../data/request.ts';
import { type DataSource, readingAs } from '../data/visible.ts';
import type { Database } from '../db/client.ts';
import type { Access } from '../permissions/access.ts';
import { resourceByType } from '../resources/registry.ts';
import { Documents, type ResourceObject } from '../rest/documents.ts';
import type { ChangeRequests, Viewer } from './requests.ts';
import type { ChangeRequest } from './states.ts';

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

/** A resource a request writes: as the client's role sees it now and after (null where it does not). */
export interface PreviewEntry {
  type: string;
  id: number;
  now: ResourceObject | null;
  after: ResourceObject | null;
}

/**
 * The preview of request `id` for `viewer`: each resource it writes, once, read inside a
 * transaction that applies it and is rolled back, and as it is now; a resource the viewer sees
 * neither now nor after is left out. `base`: the URL the documents' links start with.
 */
export async function previewOf(
  db: Database,
  requests: ChangeRequests,
  viewer: Viewer,
  id: number,
  base: string,
): Promise<{ request: ChangeRequest; entries: PreviewEntry[] }> {
  const documentsOf = async (source: DataSource, touched: readonly { type: string; id: number }[]) => {
    const loaders = new RequestLoaders(readingAs(source, viewer.access));
    const docs = new Documents(loaders, base);
    const rows = await Promise.all(touched.map(({ type, id }) => loaders.byId(type).load(id)));
    return rows.map((row, i) => (row ? docs.resources(touched[i]!.type, [row])[0]! : null));
  };
  const { request, after } = await requests.preview(viewer, id, async (tx, touched) => {
    const once = touched.filter((t, i) => touched.findIndex((o) => o.type === t.type && o.id === t.id) === i);
    return { once, documents: await documentsOf(tx, once) };
  });
  const now = await documentsOf(viewer.clientId === undefined ? db.primary : db.readsFor(viewer.clientId), after.once);
  const entries = after.once
    .map((t, i) => ({ ...t, now: now[i] ?? null, after: after.documents[i] ?? null }))
    .filter((entry) => entry.now !== null || entry.after !== null);
  return { request, entries };
}
