/**
 * Every resource type of the spec, described once. The GraphQL schema, the REST routes, the
 * seed's integrity checks and the spec conformance test all read this list.
 */
import * as customerGroup from './customers/index.ts';
import * as productGroup from './products/index.ts';
import * as structureGroup from './structures/index.ts';
import * as supplierGroup from './suppliers/index.ts';
import type { ResourceDefinition } from './types.ts';

/**
 * The name-keyed parts of a description as maps with no prototype: they are looked up by names
 * clients send (query parameters, body members), and `constructor`, `toString` or `__proto__`
 * must find nothing there rather than Object's own members (the fuzzer's first finding: a filter
 * named `toString` answered 500).
 */
function withoutPrototypes(resource: ResourceDefinition): ResourceDefinition {
  const bare = <T>(record: Record<string, T>): Record<string, T> =>
    Object.assign(Object.create(null) as Record<string, T>, record);
  return {
    ...resource,
    attributes: bare(resource.attributes),
    relationships: bare(resource.relationships),
    filters: bare(resource.filters),
  };
}

export const resources: readonly ResourceDefinition[] = [
  ...Object.values(customerGroup),
  ...Object.values(productGroup),
  ...Object.values(structureGroup),
  ...Object.values(supplierGroup),
].map(withoutPrototypes);

const byType = new Map(resources.map((r) => [r.type, r]));

export function resourceByType(type: string): ResourceDefinition | undefined {
  return byType.get(type);
}
