/**
 * The GraphQL schema, generated from the resource registry. Importing builds it; nothing else
 * happens at import (the SDL file is written by `npm run codegen`, not here).
 */
import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.ts';
import './objects.ts';
import './queries.ts';
import './mutations.ts';
import './bulk-mutations.ts';
import './bom.ts';
import './changes.ts';
import './subscriptions.ts';
import './webhooks.ts';
import './change-requests.ts';
import './federation.ts';

export const schema = builder.toSchema();

/** The SDL as published at /graphql/schema.graphql and committed as schema.graphql. */
export function printSdl(): string {
  return printSchema(lexicographicSortSchema(schema));
}
