/**
 * The preview of a change request (./requests.ts), on both APIs: the REST documents of what it
 * writes as they are now and as applying it would leave them, as the client's role sees them.
 * REST documents on both APIs: the operations themselves are in REST's names. (What a role sees
 * of the operations: visibleOperation, in src/data/change-request-entries.ts, which the change
 * log's entries of requests share.)
 */
import { RequestLoaders } from '../data/request.ts';
import { type DataSource, readingAs } from '../data/visible.ts';
import type { Database } from '../db/client.ts';
import { Documents, type ResourceObject } from '../rest/documents.ts';
import type { ChangeRequests, Viewer } from './requests.ts';
import type { ChangeRequest } from './states.ts';

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
