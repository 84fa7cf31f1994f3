/**
 * The Pothos schema builder: the one place that lists plugins and scalars. The schema itself is
 * generated from the resource registry (./schema.ts).
 */
import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import type { ImplementableLoadableObjectRef } from '@pothos/plugin-dataloader';
import type { Row } from '../data/load.ts';
import type { GraphQLContext } from './context.ts';
import { PAST_CONTEXT_PLUGIN } from './past.ts';
import { AtomicOperationsScalar, DateTimeScalar, DecimalScalar, JsonScalar } from './scalars.ts';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    Decimal: { Input: string; Output: number | string };
    JSON: { Input: never; Output: unknown };
    AtomicOperations: { Input: unknown[]; Output: never };
    _Any: { Input: unknown; Output: never };
  };
  DefaultFieldNullability: true;
}>({
  // pastContext first: its wrapper runs outermost, so the others see the context it gives (./past.ts).
  plugins: [PAST_CONTEXT_PLUGIN, ComplexityPlugin, DataloaderPlugin],
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 10,
    // The plugin gives each field its cost; the limits are checked before execution, with the
    // other request limits (./http.ts), so that a breach is a request error like theirs.
    disabled: true,
  },
});

builder.addScalarType('DateTime', DateTimeScalar);
builder.addScalarType('Decimal', DecimalScalar);
builder.addScalarType('JSON', JsonScalar);
builder.addScalarType('AtomicOperations', AtomicOperationsScalar);

export type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The object type of a resource type: loaded by id, or given a row already read. */
export type RowRef = ImplementableLoadableObjectRef<Types, number | Row, Row, number, number>;
