/**
 * `POST /operations` (../atomic.ts) in the API reference: JSON:API Atomic Operations, several
 * writes of the interface as one.
 */
import type { PathItemObject, SchemaObject, TagObject } from 'openapi3-ts/oas31';
import { MAX_BULK_ROWS } from '../../data/bulk-writes.ts';
import { resources } from '../../resources/registry.ts';
import { ATOMIC_MEDIA_TYPE } from '../atomic.ts';
import { responseRef } from './common.ts';

export const ATOMIC_TAG: TagObject = {
  name: 'operations',
  description:
    'Extension (not in the master-data spec): JSON:API Atomic Operations (https://jsonapi.org/ext/atomic): several writes as one, all or nothing.',
};

const TYPES = resources.map((r) => r.type);

const REF: SchemaObject = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', enum: TYPES },
    id: { type: ['integer', 'string'], description: 'The resource, by id (or by `lid`).' },
    lid: { type: 'string', description: 'A resource added earlier in the same request, by the `lid` it was given.' },
    relationship: { type: 'string', description: 'For an operation on one of its relationships.' },
  },
};

function operationSchema(): SchemaObject {
  return {
    type: 'object',
    required: ['op'],
    properties: {
      op: { type: 'string', enum: ['add', 'update', 'remove'] },
      ref: REF,
      data: {
        description:
          "For a resource: its resource object (an `add` may give a `lid` to refer to it later; relationships may name resources by `lid`). For a relationship: its identifier, `null`, or a list of identifiers (full item objects for a structure's `items`).",
      },
      meta: {
        type: 'object',
        properties: { version: { type: 'integer', minimum: 1 } },
        description:
          'The version the operation expects the resource at, as `If-Match` does for a single write: 412 at another.',
      },
    },
  };
}

export function atomicPath(): PathItemObject {
  return {
    post: {
      tags: [ATOMIC_TAG.name],
      summary: 'Run several writes as one',
      operationId: 'atomicOperations',
      description: [
        'Scope: `write`.',
        `Up to ${MAX_BULK_ROWS} operations, each one the interface has on its own path: an ADD (\`add\` with data), an UPDATE (\`update\` with data, by \`ref\` or by the data's id or lid), and a relationship's set, add, replace or remove (\`ref.relationship\`: \`update\` sets a to-one or replaces a to-many, \`add\` and \`remove\` change a to-many; a structure's \`items\` take full item objects). The interface removes no resource: a \`remove\` without a relationship is 405.`,
        "One transaction: when an operation is refused, nothing is written, and the error (shape A or B, as the same write on its own path would answer) starts its message with the operation's pointer, `/atomic:operations/<n>: ...`.",
        'Each resource changed gets one change-log entry. `Idempotency-Key` applies to the whole request.',
      ].join(' '),
      requestBody: {
        required: true,
        content: {
          [ATOMIC_MEDIA_TYPE]: {
            schema: {
              type: 'object',
              required: ['atomic:operations'],
              properties: {
                'atomic:operations': { type: 'array', minItems: 1, maxItems: MAX_BULK_ROWS, items: operationSchema() },
              },
            },
          },
        },
      },
      responses: {
        '200': {
          description:
            'The results, in the order of the operations: `{"data": <resource object>}` for an add or update of a resource (as its GET shows it now), `{}` for a relationship operation.',
          content: {
            [ATOMIC_MEDIA_TYPE]: {
              schema: {
                type: 'object',
                required: ['atomic:results'],
                properties: { 'atomic:results': { type: 'array', items: { type: 'object' } } },
              },
            },
          },
        },
        '400': responseRef('BadRequestBody'),
        '401': responseRef('Unauthorized'),
        '403': responseRef('Forbidden'),
        '404': responseRef('NotFound'),
        '409': responseRef('StructureConflict'),
        '412': responseRef('PreconditionFailed'),
        '413': responseRef('PayloadTooLarge'),
        '415': responseRef('UnsupportedMediaType'),
        '422': responseRef('IdempotencyKeyReused'),
        '503': responseRef('ServiceUnavailable'),
      },
    },
  };
}
