/**
 * Every resource type of the spec, described once. The GraphQL schema, the REST routes, the
 * seed's integrity checks and the spec conformance test all read this list.
 */
import * as customerGroup from './customers/index.ts';
import * as productGroup from './products/index.ts';
import * as structureGroup from './structures/index.ts';
import * as supplierGroup from './suppliers/index.ts';
import type { ResourceDefinition } from './types.ts';

export const resources: readonly ResourceDefinition[] = [
  ...Object.values(customerGroup),
  ...Object.values(productGroup),
  ...Object.values(structureGroup),
  ...Object.values(supplierGroup),
];

const byType = new Map(resources.map((r) => [r.type, r]));

export function resourceByType(type: string): ResourceDefinition | undefined {
  return byType.get(type);
}

