/**
 * What a client's role (src/permissions) allows on a REST route, before anything is read: every
 * path of a type the role may not read is 403, and so is a relationship's path when the role may
 * not see the relationship. What a write may set, and which rows it may touch, the data layer
 * checks (src/data/writes.ts), for both APIs.
 */
import { HttpError } from '../http/errors.ts';
import type { Access } from '../permissions/access.ts';
import { filterReads } from '../query/filters.ts';
import type { Filter } from '../resources/types.ts';
import type { RestRoute } from './routes.ts';

export function authorizeRoute(access: Access | undefined, route: RestRoute): void {
  if (!access) return;
  if (!access.can(route.type, 'read'))
    throw new HttpError(403, 'forbidden', `the role ${access.name} may not use ${route.type}`);
  if (route.relationship && !access.seesRelationship(route.type, route.relationship))
    throw new HttpError(
      403,
      'forbidden',
      `the role ${access.name} may not use the relationship ${route.relationship} of ${route.type}`,
    );
}

/** Whether the role may filter `type` by `filter`: it may name every field the filter reads. */
export function mayFilter(access: Access | undefined, type: string, filter: Filter): boolean {
  return !access || filterReads(type, filter).every(([t, key]) => access.mayName(t, key));
}
