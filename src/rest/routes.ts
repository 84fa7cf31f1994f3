/**
 * Every route of the REST compatibility layer, as data generated from the registry: the app
 * registers handlers from this table and the OpenAPI document describes exactly this table,
 * so the two cannot disagree. Paths and methods are those of the old interface (rest.md).
 */
import { resources } from '../resources/registry.ts';
import type { RelationshipOperation, ResourceDefinition } from '../resources/types.ts';

export type RestOperation =
  | 'list'
  | 'add'
  | 'get'
  | 'update'
  | 'rel-get'
  | 'rel-set'
  | 'related-get'
  | 'rel-add'
  | 'rel-replace'
  | 'rel-remove'
  | 'add-structure'
  | 'add-items';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface RestRoute {
  method: Method;
  /** Hono pattern, relative to the base path: `/customers/:id/relationships/customer_type`. */
  path: string;
  operation: RestOperation;
  type: string;
  relationship?: string;
  /** Always refused (403), with what to use instead. */
  refused?: string;
}

const RELATIONSHIP_OPERATIONS: Record<
  RelationshipOperation,
  { method: Method; operation: RestOperation; related?: true }
> = {
  get: { method: 'GET', operation: 'rel-get' },
  set: { method: 'PATCH', operation: 'rel-set' },
  related: { method: 'GET', operation: 'related-get', related: true },
  add: { method: 'POST', operation: 'rel-add' },
  replace: { method: 'PATCH', operation: 'rel-replace' },
  remove: { method: 'DELETE', operation: 'rel-remove' },
};

function routesOf(resource: ResourceDefinition): RestRoute[] {
  const { type } = resource;
  const collection = `/${type}`;
  const member = `/${type}/:id`;
  const routes: RestRoute[] = [];
  if (resource.operations.includes('list')) routes.push({ method: 'GET', path: collection, operation: 'list', type });
  if (resource.operations.includes('add')) routes.push({ method: 'POST', path: collection, operation: 'add', type });
  else if (resource.forbidden?.operations.includes('add'))
    routes.push({ method: 'POST', path: collection, operation: 'add', type, refused: resource.forbidden.message });
  if (resource.operations.includes('get')) routes.push({ method: 'GET', path: member, operation: 'get', type });
  if (resource.operations.includes('update')) {
    routes.push(
      { method: 'PATCH', path: member, operation: 'update', type },
      { method: 'PUT', path: member, operation: 'update', type },
    );
  }
  for (const [relationship, rel] of Object.entries(resource.relationships)) {
    const listed = rel.operations.map((op) => ({ op, refused: undefined as string | undefined }));
    const refused = (rel.forbidden?.operations ?? []).map((op) => ({ op, refused: rel.forbidden!.message }));
    for (const { op, refused: message } of [...listed, ...refused]) {
      // set is the to-one write, replace the to-many one; both are PATCH on the relationship.
      const { method, operation, related } = RELATIONSHIP_OPERATIONS[op];
      const path = related ? `${member}/${relationship}` : `${member}/relationships/${relationship}`;
      routes.push({ method, path, operation, type, relationship, ...(message ? { refused: message } : {}) });
    }
  }
  if (type === 'products')
    routes.push({
      method: 'POST',
      path: `${member}/product_structure`,
      operation: 'add-structure',
      type,
      relationship: 'product_structure',
    });
  if (type === 'product_structures')
    routes.push({ method: 'POST', path: `${member}/items`, operation: 'add-items', type, relationship: 'items' });
  return routes;
}

export const REST_ROUTES: readonly RestRoute[] = resources.flatMap(routesOf);

/**
 * The methods each path answers, for every path of the table and every relationship's two paths
 * (a relationship the spec lists no operation for answers none: every method is 405 there).
 */
export function methodsByPath(): Map<string, Method[]> {
  const byPath = new Map<string, Method[]>();
  for (const resource of resources) {
    for (const relationship of Object.keys(resource.relationships)) {
      for (const path of [
        `/${resource.type}/:id/relationships/${relationship}`,
        `/${resource.type}/:id/${relationship}`,
      ])
        byPath.set(path, []);
    }
  }
  for (const route of REST_ROUTES) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route.method]);
  return byPath;
}
