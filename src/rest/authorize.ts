/**
 * What a client's role (src/permissions) allows on a REST route, before anything is read: every
 * path of a type the role may not read is 403, and so is a relationship's path when the role may
 * not see the relationship. What a write may set, and which rows it may touch, the data layer
 * checks (src/data/writes.ts), for both APIs.
 */
import { HttpError } from '../http/errors.ts';
import type { Access } from '../permissions/access.ts';
import { resourceByType } from '../resources/registry.ts';
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

/** Whether the role may filter `type` by `filter`: it sees every field the filter reads. */
export function mayFilter(access: Access | undefined, type: string, filter: Filter): boolean {
  if (!access) return true;
  const resource = resourceByType(type)!;
  if (filter.kind === 'relatedReference') {
    const target = resource.relationships[filter.relationship]!.target;
    return access.seesRelationship(type, filter.relationship) && access.seesAttribute(target, 'reference');
  }
  const attribute = Object.entries(resource.attributes).find(([, a]) => a.column === filter.column)?.[0];
  return attribute !== undefined && access.seesAttribute(type, attribute);
}
