/**
 * REST writes that wait: the write of a role whose rule asks for approval (src/change-requests)
 * becomes a change request holding the atomic operation (./atomic.ts) it stands for, and the
 * answer is 202 with the request.
 */
import type { Context } from 'hono';
import type { ChangeRequests } from '../change-requests/requests.ts';
import type { WriteOptions } from '../data/writes.ts';
import { HttpError, JSON_CONTENT_TYPE } from '../http/errors.ts';
import type { Access } from '../permissions/access.ts';
import { CHANGE_REQUESTS_PATH, changeRequestObject } from './change-requests.ts';
import type { RestRoute } from './routes.ts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The atomic operation a REST write stands for, without its data: what a change request holds
 * when the write waits for approval. Undefined for reads.
 */
export function atomicOperationOf(route: RestRoute, id: string | undefined): Record<string, unknown> | undefined {
  const ref = { type: route.type, id };
  const relationship = { ...ref, relationship: route.relationship };
  switch (route.operation) {
    case 'add':
      return { op: 'add', data: { type: route.type } };
    case 'update':
      return { op: 'update', ref };
    case 'rel-set':
    case 'rel-replace':
      return { op: 'update', ref: relationship };
    case 'rel-add':
    case 'add-items':
      return { op: 'add', ref: relationship };
    case 'rel-remove':
      return { op: 'remove', ref: relationship };
    default:
      return undefined;
  }
}

/** A new structure cannot be an atomic operation: a role that adds one only with approval may not add it (403). */
export function refuseWaitingStructure(access: Access): void {
  if (access.needsApproval('product_structures', 'create'))
    throw new HttpError(
      403,
      'forbidden',
      `the role ${access.name} may add a structure only with another client's approval, and a new structure cannot wait as a change request: ask a client that may add it`,
    );
}

/**
 * The operation with the write's body as its data, and the version its If-Match names as
 * `meta.version` (checked when the request is applied). The other preconditions cannot wait.
 */
export function withData(
  operation: Record<string, unknown>,
  document: Record<string, unknown>,
  { expectedVersion, unlessVersion, unmodifiedSince }: WriteOptions,
): Record<string, unknown> {
  const versions = expectedVersion === undefined ? [] : [expectedVersion].flat();
  if (expectedVersion !== undefined && versions.length === 0)
    throw new HttpError(
      412,
      'precondition_failed',
      'If-Match names no version of this resource, as this client sees it',
    );
  if (versions.length > 1 || unlessVersion !== undefined || unmodifiedSince !== undefined)
    throw new HttpError(
      400,
      'invalid_parameter',
      'a write that waits for approval keeps one precondition: If-Match with one entity tag, checked when it is applied',
    );
  return {
    ...operation,
    data: operation.data && isRecord(document.data) ? { ...document.data, ...operation.data } : document.data,
    ...(versions.length === 1 && { meta: { version: versions[0] } }),
  };
}

/** The operations stored as a change request of the request's client: 202 with it, `Location` its URL. */
export async function proposalAnswer(
  c: Context,
  requests: ChangeRequests,
  base: string,
  operations: unknown[],
): Promise<Response> {
  const auth = c.get('auth')!;
  const request = await requests.propose(
    { clientId: auth.clientId, access: auth.access },
    { operations },
    c.get('beforeCommit'),
  );
  return c.body(JSON.stringify({ data: changeRequestObject(request, base, auth.access) }), 202, {
    'Content-Type': JSON_CONTENT_TYPE,
    Location: `${base}${CHANGE_REQUESTS_PATH}/${request.id}`,
  });
}
